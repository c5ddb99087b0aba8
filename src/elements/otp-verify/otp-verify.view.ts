import { html, nothing } from 'lit';
import type { OtpDeliveryStatus } from '../../protocol/codes.js';
import type { OtpSendResponse } from '../../protocol/bodies.js';
import { clock } from '../shared/localize.js';
import type { OtpVerifyStrings } from './otp-verify.strings.js';
import type { OtpVerifyState } from './otp-verify.js';

/** What the element's template shows: its state, read by the element on each render. */
export interface OtpVerifyView {
  s: OtpVerifyStrings;
  state: OtpVerifyState;
  step: 'phone' | 'code';
  sent: OtpSendResponse | undefined;
  /** The code was sent again ("Send a new code"). */
  resent: boolean;
  delivery: OtpDeliveryStatus | undefined;
  /** The phone number typed, and the code typed. */
  value: string;
  code: string;
  /** A call is under way, or the element is disabled: inputs are read-only and buttons off. */
  busy: boolean;
  /** Milliseconds left of a rate-limit wait, and of the resend cooldown (0: none). */
  waiting: number;
  resendLeft: number;
  /** The assertive error sentence ('' when nothing failed). */
  error: string;
}

/** What the template's controls call back. */
export interface OtpVerifyActions {
  submit(e: SubmitEvent): void;
  phoneInput(e: InputEvent): void;
  codeInput(e: Event): void;
  resend(): void;
  changeNumber(): void;
  retry(): void;
}

/** The polite status sentence: what is happening, and what became of the SMS. */
function statusText({ s, state, step, sent, resent, delivery }: OtpVerifyView): string {
  if (state == 'sending') return s.sending;
  if (state == 'verifying') return s.verifying;
  if (!sent || (step == 'phone' && state != 'verified')) return '';
  // Non-breaking spaces: a masked number never wraps in its middle.
  const to = sent.recipient.replace(/ /g, '\xa0');
  if (state == 'verified') return s.verified(to);
  return `${(resent ? s.resent : s.sent)(to)} ${delivery == 'DELIVERED' ? s.delivered : delivery && delivery != 'ACCEPTED' ? s.notDelivered : ''}`;
}

/** The element's shadow content: the phone step or the code step, the live regions, the retry button. */
export function renderOtpVerify(v: OtpVerifyView, on: OtpVerifyActions) {
  const { s, state, sent, busy, waiting, resendLeft } = v;
  const invalid = state == 'wrong-code' || state == 'error' || state == 'locked';
  const busyNow = state == 'sending' || state == 'verifying';
  return html`
    <form @submit=${on.submit}>
      ${state == 'verified'
        ? nothing
        : v.step == 'phone' || !sent
          ? html`<div class="field">
                <label for="input">${s.phone}</label>
                <input id="input" part="phone-input" type="tel" autocomplete="tel" inputmode="tel" required maxlength="20"
                  .value=${v.value} ?readonly=${busy} aria-invalid=${invalid} aria-describedby="error"
                  @input=${on.phoneInput} />
              </div>
              <button part="send-button" ?disabled=${busy || !!waiting}>${s.send}</button>`
          : html`<div class="field">
                <label for="input">${s.code}</label>
                <input id="input" part="code-input" autocomplete="one-time-code" required
                  inputmode=${sent.pinType == 'NUMERIC' ? 'numeric' : 'text'} maxlength=${sent.pinLength}
                  .value=${v.code} ?readonly=${busy} aria-invalid=${invalid} aria-describedby="error"
                  @input=${on.codeInput} @paste=${on.codeInput} />
              </div>
              <button part="verify-button" ?disabled=${busy || !!waiting || state == 'expired' || state == 'locked'}>
                ${s.verify}
              </button>
              <div class="links">
                <button type="button" class="link" part="resend-button" @click=${on.resend}
                  ?disabled=${busy || !!waiting || !!resendLeft}>
                  ${resendLeft && state != 'locked' ? s.resendIn(clock(resendLeft)) : s.resend}
                </button>
                <button type="button" class="link" part="change-button" ?disabled=${busy} @click=${on.changeNumber}>
                  ${s.changeNumber}
                </button>
              </div>`}
    </form>
    <p part="status" aria-live="polite" tabindex="-1" class=${state == 'verified' ? 'ok' : busyNow ? 'spin' : ''}>${statusText(v)}</p>
    <p id="error" part="error-message" aria-live="assertive">${v.error}</p>
    ${state == 'network-error' ? html`<button type="button" part="retry-button" @click=${on.retry}>${s.tryAgain}</button>` : nothing}
  `;
}
