import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html, nothing } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { fn } from 'storybook/test';
import type { CheckoutButton } from '../src/elements/checkout-button/index.js';
import { DEFAULT_PROXY_PATH } from '../src/protocol/paths.js';
import { elementIn, press, reach } from './support/drive.js';
import { proxyFor } from './support/fake-proxy.js';
import { dark, rtl, themeArgTypes, themeStyle } from './support/theme.js';

const meta = {
  title: 'Elements/checkout-button',
  component: 'checkout-button',
  parameters: {
    proxy: {
      claims: { scope: 'checkout', title: 'Adjoa Fabrics', reference: 'INV-2043', amount: 50, description: 'Two kente scarves', returnUrl: 'https://shop.example/thanks' },
    },
    docs: {
      description: {
        component: `Opens the provider's hosted checkout and follows the payment. In these stories a fake proxy answers;
in \`popup\` and \`tab\` modes a fake hosted page opens, where Pay, Fail and Cancel settle the checkout. In
\`redirect\` mode the page is not left: \`navigate\` only logs the URL in the Actions panel.`,
      },
    },
  },
  args: { proxy: DEFAULT_PROXY_PATH, lang: '', mode: 'redirect', label: '', navigate: fn() },
  argTypes: {
    ...themeArgTypes('checkout-button'),
    lang: { control: 'select', options: ['', 'en', 'fr'] },
    mode: { control: 'inline-radio', options: ['redirect', 'popup', 'tab'] },
    label: { control: 'text', description: 'Slotted label (default "Pay now").', table: { category: 'slots' } },
    navigate: { control: false },
  },
  render: (args, context) => html`
    <checkout-button
      proxy=${args['proxy']}
      token=${proxyFor(context).token}
      lang=${ifDefined(args['lang'] || undefined)}
      mode=${args['mode']}
      .navigate=${args['navigate']}
      .strings=${args['strings']}
      style=${themeStyle(args)}
      @checkout-opened=${(e: CustomEvent) => args['onCheckoutOpened']?.(e.detail)}
      @checkout-completed=${(e: CustomEvent) => args['onCheckoutCompleted']?.(e.detail)}
      @checkout-failed=${(e: CustomEvent) => args['onCheckoutFailed']?.(e.detail)}
      @checkout-cancelled=${(e: CustomEvent) => args['onCheckoutCancelled']?.(e.detail)}
      @checkout-expired=${(e: CustomEvent) => args['onCheckoutExpired']?.(e.detail)}
      >${args['label'] || nothing}</checkout-button
    >
  `,
} satisfies Meta;

export default meta;
type Story = StoryObj;

/** Clicks the button: the session is created and its page opened. */
async function click(canvas: HTMLElement) {
  const el = elementIn<CheckoutButton>(canvas, 'checkout-button');
  await press(el, 'button');
  return el;
}

export const Idle: Story = {
  play: ({ canvasElement }) => reach(elementIn(canvasElement, 'checkout-button'), 'idle'),
};

export const Creating: Story = {
  parameters: { proxy: { hang: ['checkouts'] } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'creating', 'Opening the checkout'),
};

export const Open: Story = {
  name: 'Open (waiting)',
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'open', 'Finish paying on the checkout page.'),
};

export const Completed: Story = {
  parameters: { proxy: { checkoutOutcome: 'completed' } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'completed', 'Payment received.'),
};

export const Failed: Story = {
  parameters: { proxy: { checkoutOutcome: 'failed' } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'failed', 'did not go through'),
};

export const Cancelled: Story = {
  parameters: { proxy: { checkoutOutcome: 'cancelled' } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'cancelled', 'was cancelled'),
};

export const Expired: Story = {
  parameters: { proxy: { checkoutOutcome: 'expired' } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'expired', 'expired'),
};

export const ErrorUnavailable: Story = {
  name: 'Error (service busy)',
  parameters: { proxy: { fail: { checkouts: { error: 'UPSTREAM_UNAVAILABLE', details: { retryable: true } } } } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'error', 'The service is busy.'),
};

export const PopupMode: Story = {
  name: 'Popup mode',
  args: { mode: 'popup' },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'open'),
};

export const CustomLabel: Story = {
  name: 'Custom slotted label',
  args: { label: 'Pay GHS 50.00 with mobile money' },
  play: ({ canvasElement }) => reach(elementIn(canvasElement, 'checkout-button'), 'idle'),
};

export const French: Story = {
  args: { lang: 'fr' },
  parameters: { proxy: { checkoutOutcome: 'completed' } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'completed'),
};

export const DarkMode: Story = {
  name: 'Dark mode',
  ...dark,
  parameters: { proxy: { checkoutOutcome: 'failed' } },
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'failed'),
};

export const RightToLeft: Story = {
  name: 'Right to left',
  ...rtl,
  play: async ({ canvasElement }) => reach(await click(canvasElement), 'open'),
};
