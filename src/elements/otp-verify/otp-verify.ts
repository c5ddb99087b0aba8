import { html, nothing } from 'lit';
import { clock } from '../shared/format.js';
import { wait } from '../shared/strings.js';
import { failureText } from './otp-failure.js';
import { OtpVerifyFlow } from './otp-verify.flow.js';
import { otpVerifyStyles } from './otp-verify.styles.js';

export type { OtpVerifyState } from './otp-verify.flow.js';

/**
 * @summary Verifies a phone number with a one-time code sent by SMS, and gives the merchant's form a proof.
 * A complete code (typed, pasted, or the whole SMS pasted) is checked at once, without a press of Verify.
 * @tagname otp-verify
 *
 *
 * @event {MerchantEvent<OtpSentDetail>} otp-sent - A code was sent: `detail` `{ otpId, recipient (masked), expiresAt }`.
 * @event {MerchantEvent<OtpVerifiedDetail>} otp-verified - The number is verified: `detail` `{ proof, recipient }`.
 * @event {MerchantEvent<OtpFailedDetail>} otp-failed - Sending or checking failed: `detail` `{ code, message }`.
 *
 * @csspart phone-input - The phone number input.
 * @csspart send-button - The button that sends the code.
 * @csspart code-input - The code input (one input; the whole code may be pasted). A complete code is checked at once.
 * @csspart verify-button - Checks the code as it stands; a complete code is checked without it.
 * @csspart resend-button - Sends a new code; disabled with a countdown until the cooldown ends.
 * @csspart change-button - Goes back to the phone number.
 * @csspart retry-button - Repeats the last call after a network error.
 * @csspart status - The polite live region (what is happening).
 * @csspart error-message - The assertive live region (what went wrong).
 *
 * @cssproperty --otp-verify-accent - Buttons, focus ring (default `--me-accent`).
 * @cssproperty --otp-verify-radius - Corner radius (default `--me-radius`).
 * @cssproperty --otp-verify-font - Font family (default `--me-font`, else inherited).
 * @cssproperty --otp-verify-surface - Background (default `--me-surface`).
 * @cssproperty --otp-verify-text - Text colour (default `--me-text`).
 * @cssproperty --otp-verify-danger - Error colour (default `--me-danger`).
 * @cssproperty --otp-verify-success - Success colour (default `--me-success`).
 *
 * @cssstate idle - Waiting for a phone number.
 * @cssstate sending - Sending the code.
 * @cssstate sent - Waiting for the code; it is checked as soon as it is complete.
 * @cssstate verifying - Checking the code.
 * @cssstate verified - The number is verified; the proof is the form value.
 * @cssstate wrong-code - The code was wrong; attempts left are shown.
 * @cssstate expired - The code expired; a new one is needed.
 * @cssstate locked - Too many wrong codes for this number.
 * @cssstate rate-limited - Too many requests; a countdown runs.
 * @cssstate network-error - The proxy could not be reached; a retry button is shown.
 * @cssstate error - Another failure (invalid number, expired token…).
 */
export class OtpVerify extends OtpVerifyFlow {
  static override styles = otpVerifyStyles;

  /** The element's shadow content: the phone step or the code step, the live regions, the retry button. */
  override render() {
    const { t, state, lastSend: sent } = this;
    const s = t.strings;
    const busy = this.busy() || this.formDisabled;
    const waiting = this.waitCountdown.left;
    const resendLeft = this.resendCountdown.left;
    const invalid = state == 'wrong-code' || state == 'error' || state == 'locked';
    return html`
      <form @submit=${this.handleSubmit}>
        ${state == 'verified'
          ? nothing
          : this.stage == 'phone' || !sent
            ? html`<div class="field">
                  <label for="input">${s.phone}</label>
                  <input id="input" part="phone-input" type="tel" autocomplete="tel" inputmode="tel" required maxlength="20"
                    .value=${this.value} ?readonly=${busy} aria-invalid=${invalid} aria-describedby="error"
                    @input=${this.handlePhoneInput} />
                </div>
                <button part="send-button" ?disabled=${busy || !!waiting}>${s.send}</button>`
            : html`<div class="field">
                  <label for="input">${s.code}</label>
                  <input id="input" part="code-input" autocomplete="one-time-code" required
                    inputmode=${sent.pinType == 'NUMERIC' ? 'numeric' : 'text'} maxlength=${sent.pinLength}
                    .value=${this.typedCode} ?readonly=${busy} aria-invalid=${invalid} aria-describedby="error"
                    @input=${this.handleCodeInput} @paste=${this.handleCodeInput} />
                </div>
                <button part="verify-button" ?disabled=${busy || !!waiting || state == 'expired' || state == 'locked'}>
                  ${s.verify}
                </button>
                <div class="links">
                  <button type="button" class="link" part="resend-button" @click=${this.handleResend}
                    ?disabled=${busy || !!waiting || !!resendLeft}>
                    ${resendLeft && state != 'locked' ? s.resendIn(clock(resendLeft)) : s.resend}
                  </button>
                  <button type="button" class="link" part="change-button" ?disabled=${busy} @click=${this.handleChangeNumber}>
                    ${s.changeNumber}
                  </button>
                </div>`}
      </form>
      <p part="status" aria-live="polite" tabindex="-1" class=${state == 'verified' ? 'ok' : this.busy() ? 'spin' : ''}>${this.statusLine()}</p>
      <p id="error" part="error-message" aria-live="assertive">
        ${timed(failureText(t, this.failure, waiting, resendLeft), waiting ? wait(waiting) : resendLeft ? clock(resendLeft) : '')}
      </p>
      ${state == 'network-error' ? html`<button type="button" part="retry-button" @click=${this.retryAction}>${s.tryAgain}</button>` : nothing}
    `;
  }

  /** The polite status sentence: what is happening, and what became of the SMS. */
  private statusLine(): string {
    const { state, lastSend: sent, delivery } = this;
    const s = this.t.strings;
    // Sending or verifying: the words of the same names.
    if (this.busy()) return s[state as 'sending' | 'verifying'];
    if (!sent || (this.stage == 'phone' && state != 'verified')) return '';
    // Non-breaking spaces: a masked number never wraps in its middle.
    const to = sent.recipient.replace(/ /g, '\xa0');
    if (state == 'verified') return s.verified(to);
    return `${(this.wasResent ? s.resent : s.sent)(to)} ${delivery == 'DELIVERED' ? s.delivered : delivery && delivery != 'ACCEPTED' ? s.notDelivered : ''}`;
  }
}

/**
 * `text` with its `time` in a timer, which is not live: the sentence is said once when the wait begins, with
 * the time then; the time counts down on screen, read on request, not announced every second.
 */
const timed = (text: string, time: string, i = time ? text.indexOf(time) : -1) =>
  i < 0 ? text : html`${text.slice(0, i)}<span role="timer">${time}</span>${text.slice(i + time.length)}`;

declare global {
  interface HTMLElementTagNameMap {
    'otp-verify': OtpVerify;
  }
}
