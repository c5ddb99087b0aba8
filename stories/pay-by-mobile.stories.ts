import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { PayByMobile } from '../src/elements/pay-by-mobile/index.js';
import { DEFAULT_PROXY_PATH } from '../src/protocol/paths.js';
import { expect, waitFor } from 'storybook/test';
import { elementIn, press, reach, typeInto } from './support/drive.js';
import { proxyFor } from './support/fake-proxy.js';
import { dark, rtl, themeArgTypes, themeStyle } from './support/theme.js';

const meta = {
  title: 'Elements/pay-by-mobile',
  component: 'pay-by-mobile',
  parameters: {
    proxy: { claims: { scope: 'payment', amount: 12.5, narration: 'Order 1042', payee: 'Adjoa Fabrics', maxAttempts: 3 } },
    docs: {
      description: {
        component: `Takes a mobile-money payment. In these stories a fake proxy answers with the sandbox's test numbers:
\`024 000 0001\` pays, \`024 000 0002\` fails (insufficient funds), \`020 000 0003\` declines on the phone,
\`026 000 0004\` never answers, \`024 000 0005\` waits until its prompt expires (MTN: 2 minutes),
\`024 000 0404\` has no account; any other Ghanaian number pays. The network charges the sandbox's 1 %.`,
      },
    },
  },
  args: { proxy: DEFAULT_PROXY_PATH, lang: '', value: '', currency: 'GHS', timeout: 120 },
  argTypes: {
    ...themeArgTypes('pay-by-mobile'),
    lang: { control: 'select', options: ['', 'en', 'fr'] },
    amount: { control: 'number' },
    timeout: { control: 'number' },
  },
  render: (args, context) => html`
    <pay-by-mobile
      proxy=${args['proxy']}
      token=${proxyFor(context).token}
      lang=${ifDefined(args['lang'] || undefined)}
      value=${args['value']}
      amount=${ifDefined(args['amount'])}
      currency=${args['currency']}
      timeout=${args['timeout']}
      .strings=${args['strings']}
      style=${themeStyle(args)}
      @payment-pending=${(e: CustomEvent) => args['onPaymentPending']?.(e.detail)}
      @payment-completed=${(e: CustomEvent) => args['onPaymentCompleted']?.(e.detail)}
      @payment-failed=${(e: CustomEvent) => args['onPaymentFailed']?.(e.detail)}
      @payment-cancelled=${(e: CustomEvent) => args['onPaymentCancelled']?.(e.detail)}
    ></pay-by-mobile>
  `,
} satisfies Meta;

export default meta;
type Story = StoryObj;

const the = (canvas: HTMLElement) => elementIn<PayByMobile>(canvas, 'pay-by-mobile');

/** Once the order is read (a new one: the form), types the number and continues to the account's confirmation. */
async function lookUp(canvas: HTMLElement, number: string) {
  const el = the(canvas);
  await reach(el, 'idle');
  await typeInto(el, 'phone-input', number);
  await press(el, 'continue-button');
  return el;
}

/** Confirms the account found for `number`: the request goes to the phone. */
async function pay(canvas: HTMLElement, number: string) {
  const el = await lookUp(canvas, number);
  await reach(el, 'confirm');
  await press(el, 'confirm-button');
  return el;
}

export const OrderUnanswered: Story = {
  name: 'Idle, the order not answered yet',
  parameters: {
    proxy: { hang: ['order'] },
    docs: { description: { story: 'The form is drawn at once; where the order stands is read meanwhile, and Continue waits for its answer.' } },
  },
  play: async ({ canvasElement }) => {
    const el = the(canvasElement);
    await reach(el, 'idle', 'Mobile money number');
    await typeInto(el, 'phone-input', '024 000 0001');
    await press(el, 'continue-button');
    await reach(el, 'looking-up', 'Finding the account');
  },
};

export const Idle: Story = {
  play: ({ canvasElement }) => reach(the(canvasElement), 'idle'),
};

export const LookingUp: Story = {
  name: 'Looking up',
  parameters: { proxy: { hang: ['accountLookup'] } },
  play: async ({ canvasElement }) => reach(await lookUp(canvasElement, '024 000 0001'), 'looking-up', 'Finding the account'),
};

export const Confirm: Story = {
  play: async ({ canvasElement }) => reach(await lookUp(canvasElement, '024 000 0001'), 'confirm', 'from KWAME M. on MTN?'),
};

export const ConfirmWithEstimate: Story = {
  name: 'Confirm (charge estimated)',
  parameters: {
    proxy: { estimate: true },
    docs: { description: { story: "The shop's configuration knows the network's charge: the customer reads what the phone will ask before Pay." } },
  },
  play: async ({ canvasElement }) => reach(await lookUp(canvasElement, '024 000 0001'), 'confirm', 'network charge) from KWAME M. on MTN?'),
};

export const Paying: Story = {
  parameters: { proxy: { hang: ['payments'] } },
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '024 000 0001'), 'paying', 'Sending the request'),
};

export const Pending: Story = {
  name: 'Pending (countdown)',
  // AirtelTigo keeps a prompt open 150 s in the sandbox: sent just now, 2:29 left.
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '026 000 0004'), 'pending', '2:2'),
};

export const PendingLifetimeUnknown: Story = {
  name: 'Pending (lifetime unknown)',
  parameters: {
    proxy: { promptLifetime: null },
    docs: { description: { story: "The proxy does not know how long this network keeps a prompt open: the prompt's age, and no invented countdown." } },
  },
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '026 000 0004'), 'pending', 'How long it stays open is up to your network.'),
};

export const SecondTab: Story = {
  name: 'Pending (opened in a second tab)',
  parameters: {
    proxy: { waiting: { msisdn: '233260000004', sentAgo: 42 } },
    docs: { description: { story: 'Another tab (or this one, before a reload) sent a prompt 42 s ago: the element shows it from its first paint, with its real age, and offers no number to type.' } },
  },
  play: ({ canvasElement }) => reach(the(canvasElement), 'pending', 'Sent 0:4'),
};

export const PromptExpired: Story = {
  name: 'Pending (prompt expired, network to confirm)',
  parameters: { proxy: { waiting: { msisdn: '233260000004', sentAgo: 160 } } },
  play: ({ canvasElement }) => reach(the(canvasElement), 'pending', 'The prompt expired at'),
};

export const Unknown: Story = {
  name: 'Unknown (being confirmed)',
  parameters: {
    proxy: { waiting: { msisdn: '233240000001', sentAgo: 5, status: 'UNKNOWN' } },
    docs: { description: { story: "The request went out but its answer was lost, and the provider cannot be read for it yet: nothing here starts another try." } },
  },
  play: ({ canvasElement }) => reach(the(canvasElement), 'unknown', 'The provider is confirming this payment'),
};

export const Completed: Story = {
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '024 000 0001'), 'completed', 'Payment received.'),
};

export const FailedWithRetry: Story = {
  name: 'Failed (retry)',
  play: async ({ canvasElement }) => {
    const el = the(canvasElement);
    let prompted = false;
    const failures: { code: string; canRetry: boolean }[] = [];
    el.addEventListener('payment-pending', () => (prompted = true));
    el.addEventListener('payment-failed', (e) => failures.push((e as CustomEvent).detail));
    await reach(await pay(canvasElement, '024 000 0002'), 'failed', 'Not enough money');
    await press(el, 'retry-button');
    await waitFor(() => expect(failures).toHaveLength(2));
    await reach(el, 'failed', 'Not enough money');
    // Refused at once, as the real proxy answers for this number: no prompt ever reached the phone, and the
    // refusals count as attempts (3 allowed: one is left).
    expect(prompted).toBe(false);
    expect(failures.map((f) => [f.code, f.canRetry])).toEqual([['INSUFFICIENT_FUNDS', true], ['INSUFFICIENT_FUNDS', true]]);
  },
};

export const FailedNoAttemptsLeft: Story = {
  name: 'Failed (no attempts left)',
  parameters: { proxy: { claims: { maxAttempts: 1 } } },
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '024 000 0002'), 'failed', 'Not enough money'),
};

export const SpentOrder: Story = {
  name: 'Failed (order spent, on load)',
  parameters: { proxy: { spent: true } },
  play: ({ canvasElement }) => reach(the(canvasElement), 'failed', 'No attempts left for this order.'),
};

export const Cancelled: Story = {
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '020 000 0003'), 'cancelled', 'declined on the phone'),
};

export const TimedOut: Story = {
  name: 'Timed out',
  args: { timeout: 3 },
  parameters: { proxy: { promptLifetime: null } },
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '026 000 0004'), 'timed-out', 'No answer from the phone yet.'),
};

export const ErrorNoAccount: Story = {
  name: 'Error (no account)',
  play: async ({ canvasElement }) => reach(await lookUp(canvasElement, '024 000 0404'), 'error', 'No mobile money account'),
};

export const ErrorUnconfirmed: Story = {
  name: 'Error (an earlier payment being confirmed)',
  parameters: { proxy: { fail: { payments: { error: 'PAYMENT_UNCONFIRMED', details: { method: 'mobile-money', status: 'UNKNOWN', retryable: true } } } } },
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '024 000 0001'), 'error', 'An earlier payment is still being confirmed.'),
};

export const ErrorOtherMethod: Story = {
  name: 'Error (paid on the checkout page)',
  parameters: { proxy: { otherMethod: { method: 'checkout', status: 'processing' } } },
  play: ({ canvasElement }) => reach(the(canvasElement), 'error', 'This order is being paid on the checkout page.'),
};

export const ResumedAfterReload: Story = {
  name: 'Resumed after a reload',
  parameters: { docs: { description: { story: 'The page is "reloaded" while the payment is pending: a new element with the same token watches it again, and hears when it completes.' } } },
  play: async (context) => {
    const el = await pay(context.canvasElement, '026 000 0004');
    await reach(el, 'pending');
    const reloaded = el.cloneNode() as PayByMobile;
    el.replaceWith(reloaded);
    await reach(reloaded, 'pending');
    proxyFor(context).settlePayment('COMPLETED');
    await reach(reloaded, 'completed', 'Payment received.');
  },
};

export const French: Story = {
  args: { lang: 'fr' },
  play: async ({ canvasElement }) => reach(await lookUp(canvasElement, '024 000 0001'), 'confirm', 'KWAME M.'),
};

export const DarkMode: Story = {
  name: 'Dark mode',
  ...dark,
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '024 000 0002'), 'failed'),
};

export const RightToLeft: Story = {
  name: 'Right to left',
  ...rtl,
  play: async ({ canvasElement }) => reach(await pay(canvasElement, '026 000 0004'), 'pending'),
};
