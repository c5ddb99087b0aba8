import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { OtpVerify } from '../src/elements/otp-verify/index.js';
import { DEFAULT_PROXY_PATH } from '../src/protocol/paths.js';
import { elementIn, press, reach, typeInto } from './support/drive.js';
import { proxyFor } from './support/fake-proxy.js';
import { OTP_CODE } from './support/story-proxy.js';
import { dark, rtl, themeArgTypes, themeStyle } from './support/theme.js';

const meta = {
  title: 'Elements/otp-verify',
  component: 'otp-verify',
  parameters: {
    proxy: { claims: { scope: 'otp', purpose: 'sign-in' } },
    docs: {
      description: {
        component: `Verifies a phone number with a one-time code sent by SMS. In these stories a fake proxy answers:
the code is always **${OTP_CODE}**; \`024 000 0001\` gets its SMS delivered, \`024 000 0002\` does not;
any other Ghanaian number works, anything else is refused.`,
      },
    },
  },
  args: { proxy: DEFAULT_PROXY_PATH, lang: '', value: '', name: 'phone-proof', required: false, deliveryPoll: 400 },
  argTypes: {
    ...themeArgTypes('otp-verify'),
    lang: { control: 'select', options: ['', 'en', 'fr'] },
    deliveryPoll: { control: 'number' },
  },
  render: (args, context) => html`
    <otp-verify
      proxy=${args['proxy']}
      token=${proxyFor(context).token}
      lang=${ifDefined(args['lang'] || undefined)}
      name=${ifDefined(args['name'] || undefined)}
      value=${args['value']}
      ?required=${args['required']}
      .deliveryPoll=${args['deliveryPoll']}
      .strings=${args['strings']}
      style=${themeStyle(args)}
      @otp-sent=${(e: CustomEvent) => args['onOtpSent']?.(e.detail)}
      @otp-verified=${(e: CustomEvent) => args['onOtpVerified']?.(e.detail)}
      @otp-failed=${(e: CustomEvent) => args['onOtpFailed']?.(e.detail)}
    ></otp-verify>
  `,
} satisfies Meta;

export default meta;
type Story = StoryObj;

const the = (canvas: HTMLElement) => elementIn<OtpVerify>(canvas, 'otp-verify');

/** Types the number and asks for the code. */
async function sendTo(canvas: HTMLElement, number = '024 000 0001') {
  const el = the(canvas);
  await typeInto(el, 'phone-input', number);
  await press(el, 'send-button');
  return el;
}

/** Number sent, code step shown, then `code` typed (the element checks it once it is complete). */
async function enterCode(canvas: HTMLElement, code: string) {
  const el = await sendTo(canvas);
  await reach(el, 'sent');
  await typeInto(el, 'code-input', code);
  return el;
}

export const Idle: Story = {
  play: ({ canvasElement }) => reach(the(canvasElement), 'idle'),
};

export const Sending: Story = {
  parameters: { proxy: { hang: ['otpSend'] } },
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement), 'sending', 'Sending the code'),
};

export const SentAndDelivered: Story = {
  name: 'Sent (delivered)',
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement), 'sent', 'Code delivered.'),
};

export const SentNotDelivered: Story = {
  name: 'Sent (not delivered)',
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement, '024 000 0002'), 'sent', 'Not delivered. Check the number.'),
};

export const Verifying: Story = {
  parameters: { proxy: { hang: ['otpVerify'] } },
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, OTP_CODE), 'verifying', 'Checking the code'),
};

export const Verified: Story = {
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, OTP_CODE), 'verified', 'verified.'),
};

export const WrongCode: Story = {
  name: 'Wrong code (attempts left)',
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, '000000'), 'wrong-code', '4 tries left.'),
};

export const Expired: Story = {
  parameters: { proxy: { otp: { lifetime: 0 } } },
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, OTP_CODE), 'expired'),
};

export const Locked: Story = {
  parameters: { proxy: { otp: { attempts: 1 } } },
  play: async ({ canvasElement }) => {
    const el = await enterCode(canvasElement, '000000');
    // The last wrong code locks at once: no sixth try, a new code is the way on, and when (one time, said once).
    await reach(el, 'locked', 'No tries left. Send a new code in 0:5');
  },
};

export const LockedNumber: Story = {
  name: 'Locked (the number, for the hour)',
  parameters: { proxy: { fail: { otpVerify: { error: 'OTP_LOCKED', details: { reason: 'number', retryAfter: 3540 } } } } },
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, '000000'), 'locked', 'Too many wrong codes for this number. Try again in 59 min.'),
};

export const RateLimited: Story = {
  name: 'Rate limited (countdown)',
  parameters: { proxy: { fail: { otpSend: { error: 'RATE_LIMITED', details: { retryAfter: 45 } } } } },
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement), 'rate-limited', 'Try again in 4'),
};

export const NetworkError: Story = {
  name: 'Network error (retry)',
  parameters: { proxy: { offline: ['otpSend'] } },
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement), 'network-error'),
};

export const InvalidNumber: Story = {
  name: 'Error (invalid number)',
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement, '12345'), 'error', 'Enter a Ghanaian mobile number'),
};

export const French: Story = {
  args: { lang: 'fr' },
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement), 'sent', 'Code remis.'),
};

export const CustomTheme: Story = {
  name: 'Custom theme',
  args: { '--me-accent': '#6d28d9', '--me-radius': '999px', '--me-font': 'Georgia, serif', '--otp-verify-danger': '#9f1239' },
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, '000000'), 'wrong-code'),
};

export const CustomWords: Story = {
  name: 'Custom words',
  args: { strings: { phone: 'Mobile number', send: 'Text me a code' } },
  play: ({ canvasElement }) => reach(the(canvasElement), 'idle', 'Text me a code'),
};

export const DarkMode: Story = {
  name: 'Dark mode',
  ...dark,
  play: async ({ canvasElement }) => reach(await enterCode(canvasElement, '000000'), 'wrong-code'),
};

export const RightToLeft: Story = {
  name: 'Right to left',
  ...rtl,
  play: async ({ canvasElement }) => reach(await sendTo(canvasElement), 'sent', 'Code delivered.'),
};
