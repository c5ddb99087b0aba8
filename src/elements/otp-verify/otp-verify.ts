import type { PropertyDeclarations, PropertyValues } from 'lit';
import type { OtpDeliveryStatus } from '../../protocol/codes.js';
import { PROXY_PATHS } from '../../protocol/paths.js';
import type { OtpSendResponse, OtpVerifyResponse } from '../../protocol/bodies.js';
import { CountdownController } from '../shared/countdown.js';
import { FormValueController } from '../shared/form-value.js';
import { LocalizeController } from '../shared/localize.js';
import { FormAssociatedElement } from '../shared/form-associated.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { numberClaim, tokenClaims } from '../shared/token.js';
import { codeFrom, pollDelivery, readSmsCode } from './otp-code.js';
import { failureState, failureText, numberKey } from './otp-failure.js';
import { otpVerifyEn, type OtpVerifyStrings } from './otp-verify.strings.js';
import { otpVerifyStyles } from './otp-verify.styles.js';
import { renderOtpVerify, type OtpVerifyActions } from './otp-verify.view.js';

export type OtpVerifyState =
  | 'idle' | 'sending' | 'sent' | 'verifying' | 'verified' | 'wrong-code'
  | 'expired' | 'locked' | 'rate-limited' | 'network-error' | 'error';

/**
 * @summary Verifies a phone number with a one-time code sent by SMS, and gives the merchant's form a proof.
 * @tagname otp-verify
 *
 *
 * @event {MerchantEvent<OtpSentDetail>} otp-sent - A code was sent: `detail` `{ otpId, recipient (masked), expiresAt }`.
 * @event {MerchantEvent<OtpVerifiedDetail>} otp-verified - The number is verified: `detail` `{ proof, recipient }`.
 * @event {MerchantEvent<OtpFailedDetail>} otp-failed - Sending or checking failed: `detail` `{ code, message }`.
 *
 * @csspart phone-input - The phone number input.
 * @csspart send-button - The button that sends the code.
 * @csspart code-input - The code input (one input; the whole code may be pasted).
 * @csspart verify-button - The button that checks the code.
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
 * @cssstate sent - Waiting for the code.
 * @cssstate verifying - Checking the code.
 * @cssstate verified - The number is verified; the proof is the form value.
 * @cssstate wrong-code - The code was wrong; attempts left are shown.
 * @cssstate expired - The code expired; a new one is needed.
 * @cssstate locked - Too many wrong codes for this number.
 * @cssstate rate-limited - Too many requests; a countdown runs.
 * @cssstate network-error - The proxy could not be reached; a retry button is shown.
 * @cssstate error - Another failure (invalid number, expired token…).
 */
export class OtpVerify extends FormAssociatedElement<OtpVerifyState> {
  static override styles = otpVerifyStyles;
  static override properties: PropertyDeclarations = {
    value: {},
    strings: { attribute: false },
    deliveryPoll: { attribute: false },
    sent: { state: true },
    delivery: { state: true },
    proof: { state: true },
    failure: { state: true },
  };

  /** The phone number, prefilled by the page (or by the token's locked recipient). */
  value = '';

  /** Overrides of some of the element's words. */
  strings?: Partial<OtpVerifyStrings>;

  /** Milliseconds between the first reads of the SMS delivery receipt (growing: 1×, 2×, 3×…). */
  deliveryPoll = 3_000;

  private sent?: OtpSendResponse;
  private delivery?: OtpDeliveryStatus;
  private proof: string | null = null;
  private failure?: ProxyClientError;

  private step: 'phone' | 'code' = 'phone';
  private recipient = '';
  private code = '';
  private retry?: () => void;
  private otpAbort?: AbortController;
  /** A number locked by too many wrong codes (its last 9 digits) and until when: kept across "use another number". */
  private lock?: { key: string; until: number };
  /** The code on screen came from "Send a new code". */
  private resent = false;
  private refocus = false;

  private readonly t = new LocalizeController(this, otpVerifyEn);
  private readonly resendCountdown = new CountdownController(this);
  private readonly waitCountdown = new CountdownController(this);

  constructor() {
    super();
    new FormValueController(this, this.internals, () => ({
      value: this.proof,
      required: this.required,
      missing: this.t.strings.required,
      anchor: this.renderRoot.querySelector('input'),
    }));
  }

  override connectedCallback() {
    super.connectedCallback();
    // Moved in the page: calls in flight were aborted with the disconnect.
    if (this.busy()) this.setState(this.step == 'code' ? 'sent' : 'idle');
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.otpAbort?.abort();
  }

  formResetCallback() {
    this.reset();
    this.value = this.getAttribute('value') ?? '';
  }

  formStateRestoreCallback(restored: unknown) {
    // A proof still alive is restored (back/forward navigation); a dead one would only fail on the server.
    if (typeof restored == 'string' && numberClaim(restored, 'exp') * 1000 > Date.now()) {
      this.proof = restored;
      this.setState('verified');
    }
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('token')) {
      if (this.hasUpdated && this.state != 'verified') this.reset();
      this.value ||= String(tokenClaims(this.token)['recipient'] ?? '');
    }
  }

  protected override updated() {
    if (this.refocus && !this.busy()) {
      this.refocus = false;
      // Verified, the form is gone: the focus goes to the sentence saying so rather than to the page's body.
      const input = this.renderRoot.querySelector<HTMLInputElement>(this.state == 'verified' ? '[part=status]' : 'input');
      input?.focus();
      input?.select?.();
    }
  }

  /** Back to the phone number, dropping any code and proof. */
  private reset() {
    this.otpAbort?.abort();
    this.resendCountdown.stop();
    this.waitCountdown.stop();
    this.client.abort();
    this.step = 'phone';
    this.proof = null;
    this.failure = undefined;
    this.setState('idle');
  }

  private busy() {
    return this.state == 'sending' || this.state == 'verifying';
  }

  private async send(recipient = this.value.trim()) {
    if (this.busy() || this.waitCountdown.left) return;
    const { lock } = this;
    if (lock && lock.until > Date.now() && numberKey(recipient) == lock.key) {
      // The proxy would send a code that could not be checked before the lock ends: say when, send nothing.
      return this.fail(new ProxyClientError('OTP_LOCKED', '', { retryAfter: Math.ceil((lock.until - Date.now()) / 1000) }));
    }
    const resent = this.step == 'code';
    this.begin('sending', () => this.send(recipient));
    this.otpAbort?.abort();
    try {
      const sent = await this.client.post<OtpSendResponse>(PROXY_PATHS.otpSend, { recipient });
      this.sent = sent;
      this.resent = resent;
      this.recipient = recipient;
      this.step = 'code';
      this.code = '';
      this.delivery = undefined;
      // The proxy's clock decides: cheap phones often have the wrong time.
      this.resendCountdown.start(Date.parse(sent.resendAt) - this.client.skew);
      this.setState('sent');
      this.emit('otp-sent', { otpId: sent.otpId, recipient: sent.recipient, expiresAt: sent.expiresAt });
      const abort = (this.otpAbort = new AbortController());
      pollDelivery(this.client, sent.otpId, this.deliveryPoll, abort.signal, (d) => (this.delivery = d));
      readSmsCode(abort.signal).then((code) => {
        if (code) (this.code = code), this.verify();
      });
    } catch (e) {
      this.fail(e);
    }
  }

  private async verify() {
    const { state, sent } = this;
    if (this.busy() || !sent || !this.code || state == 'verified' || state == 'expired' || state == 'locked' || this.waitCountdown.left) return;
    this.begin('verifying', () => this.verify());
    try {
      const { proof } = await this.client.post<OtpVerifyResponse>(PROXY_PATHS.otpVerify, { recipient: this.recipient, code: this.code });
      this.otpAbort?.abort();
      this.resendCountdown.stop();
      this.proof = proof;
      this.setState('verified');
      // The form value (the proof) is set after the render: a page that submits its form on this event
      // must find it there.
      await this.updateComplete;
      this.emit('otp-verified', { proof, recipient: sent.recipient });
    } catch (e) {
      this.fail(e);
    }
  }

  private begin(next: OtpVerifyState, retry: () => void) {
    this.retry = retry;
    this.refocus = this.matches(':focus-within');
    this.failure = undefined;
    this.setState(next);
  }

  private fail(e: unknown) {
    if ((e as Error).name == 'AbortError') return;
    const failure = (this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e)));
    const next = failureState(failure);
    const waitFor = Number(failure.details.retryAfter) * 1000;
    if (next == 'locked' && waitFor) this.lock = { key: numberKey(this.recipient || this.value), until: Date.now() + waitFor };
    // A wait (a rate limit, or a number locked) blocks sending and checking, counted down in the sentence.
    if (next == 'rate-limited' || (next == 'locked' && waitFor && this.step == 'code')) {
      const resume = this.step == 'code' ? 'sent' : 'idle';
      this.waitCountdown.start(Date.now() + (waitFor || 30_000), () => {
        if (this.state == next) (this.failure = undefined), this.setState(resume);
      });
    }
    if (next == 'expired' || next == 'locked') this.otpAbort?.abort();
    this.setState(next);
    this.emit('otp-failed', { code: failure.code, message: failureText(this.t, failure, this.waitCountdown.left, this.resendCountdown.left) });
  }

  /** What the template's controls do (one object, so that no listener is re-bound on render). */
  private readonly actions: OtpVerifyActions = {
    submit: (e) => {
      e.preventDefault();
      if (this.step == 'phone') this.send();
      else this.verify();
    },
    phoneInput: (e) => (this.value = (e.target as HTMLInputElement).value),
    // Keeps the code in what was typed or pasted (the whole SMS may be) and checks it once complete.
    codeInput: (e) => {
      const input = e.target as HTMLInputElement;
      const { pinType, pinLength } = this.sent!;
      const raw = e.type == 'paste' ? ((e.preventDefault(), (e as ClipboardEvent).clipboardData?.getData('text')) ?? '') : input.value;
      input.value = this.code = codeFrom(raw, pinType, pinLength);
      if (this.code.length == pinLength) this.verify();
    },
    resend: () => this.send(this.recipient),
    changeNumber: () => {
      this.reset();
      this.refocus = true;
    },
    retry: () => this.retry?.(),
  };

  override render() {
    return renderOtpVerify(
      {
        s: this.t.strings,
        state: this.state,
        step: this.step,
        sent: this.sent,
        resent: this.resent,
        delivery: this.delivery,
        value: this.value,
        code: this.code,
        busy: this.busy() || this.disabled,
        waiting: this.waitCountdown.left,
        resendLeft: this.resendCountdown.left,
        error: failureText(this.t, this.failure, this.waitCountdown.left, this.resendCountdown.left),
      },
      this.actions,
    );
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'otp-verify': OtpVerify;
  }
}
