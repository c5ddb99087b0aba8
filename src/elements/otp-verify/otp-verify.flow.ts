import type { PropertyDeclarations, PropertyValues } from 'lit';
import type { OtpDeliveryStatus } from '../../protocol/codes.js';
import { otpSendPath, otpVerifyPath } from '../../protocol/otp-paths.js';
import type { OtpSendResponse, OtpVerifyResponse } from '../../protocol/bodies.js';
import { CountdownController } from '../shared/countdown.js';
import { LocalizeController } from '../shared/localize.js';
import { FormAssociatedElement } from '../shared/form-associated.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { numberClaim, tokenClaims } from '../shared/token.js';
import { codeFrom, pollDelivery, readSmsCode } from './otp-code.js';
import { failureState, failureText, numberKey } from './otp-failure.js';
import { otpVerifyEn, type OtpVerifyStrings } from './otp-verify.strings.js';

export type OtpVerifyState =
  | 'idle' | 'sending' | 'sent' | 'verifying' | 'verified' | 'wrong-code'
  | 'expired' | 'locked' | 'rate-limited' | 'network-error' | 'error';

/**
 * What `<otp-verify>` does, apart from what it shows (otp-verify.ts, its contract and template): its
 * attributes and form value, and the way from the number through the code sent by SMS to the proof.
 */
export class OtpVerifyFlow extends FormAssociatedElement<OtpVerifyState> {
  static override properties: PropertyDeclarations = {
    value: {},
    strings: { attribute: false },
    deliveryPoll: { attribute: false },
    lastSend: { state: true },
    delivery: { state: true },
    proofToken: { state: true },
    failure: { state: true },
  };

  /** The phone number, prefilled by the page (or by the token's locked recipient). */
  value = '';

  /** Overrides of some of the element's words. */
  strings?: Partial<OtpVerifyStrings>;

  /** Milliseconds between the first reads of the SMS delivery receipt (growing: 1×, 2×, 3×…). */
  deliveryPoll = 3_000;

  protected lastSend?: OtpSendResponse;
  protected delivery?: OtpDeliveryStatus;
  private proofToken: string | null = null;
  protected failure?: ProxyClientError;

  protected stage: 'phone' | 'code' = 'phone';
  protected sentTo = '';
  protected typedCode = '';
  protected retryAction?: () => void;
  private otpAbort?: AbortController;
  /** A number locked by too many wrong codes (its last 9 digits) and until when: kept across "use another number". */
  private numberLock?: { key: string; until: number };
  /** The code on screen came from "Send a new code". */
  protected wasResent = false;
  private refocus = false;

  protected readonly t = new LocalizeController(this, otpVerifyEn);
  protected readonly resendCountdown = new CountdownController(this);
  protected readonly waitCountdown = new CountdownController(this);

  override connectedCallback() {
    super.connectedCallback();
    // Moved in the page: calls in flight were aborted with the disconnect.
    if (this.busy()) this.setState(this.stage == 'code' ? 'sent' : 'idle');
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.otpAbort?.abort();
  }

  formResetCallback() {
    this.startOver();
    this.value = this.getAttribute('value') ?? '';
  }

  formStateRestoreCallback(restored: unknown) {
    // A proof still alive is restored (back/forward navigation); a dead one would only fail on the server.
    if (typeof restored == 'string' && numberClaim(restored, 'exp') * 1000 > Date.now()) {
      this.proofToken = restored;
      this.setState('verified');
    }
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('token')) {
      if (this.hasUpdated && this.state != 'verified') this.startOver();
      this.value ||= String(tokenClaims(this.token)['recipient'] ?? '');
    }
  }

  protected formValue() {
    return { value: this.proofToken, missing: this.t.strings.required, anchor: this.renderRoot.querySelector('input') };
  }

  protected override updated(changed: PropertyValues<this>) {
    super.updated(changed);
    if (this.refocus && !this.busy()) {
      this.refocus = false;
      // Verified, the form is gone: the focus goes to the sentence saying so rather than to the page's body.
      const input = this.renderRoot.querySelector<HTMLInputElement>(this.state == 'verified' ? '[part=status]' : 'input');
      input?.focus();
      input?.select?.();
    }
  }

  /** Back to the phone number, dropping any code and proof. */
  private startOver() {
    this.otpAbort?.abort();
    this.resendCountdown.stop();
    this.waitCountdown.stop();
    this.client.abort();
    this.stage = 'phone';
    this.proofToken = null;
    this.failure = undefined;
    this.setState('idle');
  }

  protected busy() {
    return this.state == 'sending' || this.state == 'verifying';
  }

  private async sendCode(recipient = this.value.trim()) {
    if (this.busy() || this.waitCountdown.left) return;
    const { numberLock: lock } = this;
    if (lock && lock.until > Date.now() && numberKey(recipient) == lock.key) {
      // The proxy would send a code that could not be checked before the lock ends: say when, send nothing.
      return this.fail(new ProxyClientError('OTP_LOCKED', '', { retryAfter: Math.ceil((lock.until - Date.now()) / 1000) }));
    }
    const resent = this.stage == 'code';
    this.begin('sending', () => this.sendCode(recipient));
    this.otpAbort?.abort();
    try {
      const sent = await this.client.post<OtpSendResponse>(otpSendPath, { recipient });
      this.lastSend = sent;
      this.wasResent = resent;
      this.sentTo = recipient;
      this.stage = 'code';
      this.typedCode = '';
      this.delivery = undefined;
      // The proxy's clock decides: cheap phones often have the wrong time.
      this.resendCountdown.start(Date.parse(sent.resendAt) - this.client.skew);
      this.setState('sent');
      this.emit('otp-sent', { otpId: sent.otpId, recipient: sent.recipient, expiresAt: sent.expiresAt });
      const abort = (this.otpAbort = new AbortController());
      pollDelivery(this.client, sent.otpId, this.deliveryPoll, abort.signal, (d) => (this.delivery = d));
      readSmsCode(abort.signal).then((code) => {
        if (code) (this.typedCode = code), this.checkCode();
      });
    } catch (e) {
      this.fail(e);
    }
  }

  private async checkCode() {
    const { state, lastSend: sent } = this;
    if (this.busy() || !sent || !this.typedCode || state == 'verified' || state == 'expired' || state == 'locked' || this.waitCountdown.left) return;
    this.begin('verifying', () => this.checkCode());
    try {
      const { proof } = await this.client.post<OtpVerifyResponse>(otpVerifyPath, { recipient: this.sentTo, code: this.typedCode });
      this.otpAbort?.abort();
      this.resendCountdown.stop();
      this.proofToken = proof;
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
    this.retryAction = retry;
    this.refocus = this.matches(':focus-within');
    this.failure = undefined;
    this.setState(next);
  }

  private fail(e: unknown) {
    if ((e as Error).name == 'AbortError') return;
    const failure = (this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e)));
    const next = failureState(failure);
    const waitFor = Number(failure.details.retryAfter) * 1000;
    if (next == 'locked' && waitFor) this.numberLock = { key: numberKey(this.sentTo || this.value), until: Date.now() + waitFor };
    // A wait (a rate limit, or a number locked) blocks sending and checking, counted down in the sentence.
    if (next == 'rate-limited' || (next == 'locked' && waitFor && this.stage == 'code')) {
      const resume = this.stage == 'code' ? 'sent' : 'idle';
      this.waitCountdown.start(Date.now() + (waitFor || 30_000), () => {
        if (this.state == next) (this.failure = undefined), this.setState(resume);
      });
    }
    if (next == 'expired' || next == 'locked') this.otpAbort?.abort();
    this.setState(next);
    this.emit('otp-failed', { code: failure.code, message: failureText(this.t, failure, this.waitCountdown.left, this.resendCountdown.left) });
  }

  protected handleSubmit(e: SubmitEvent) {
    e.preventDefault();
    if (this.stage == 'phone') this.sendCode();
    else this.checkCode();
  }

  protected handlePhoneInput(e: InputEvent) {
    this.value = (e.target as HTMLInputElement).value;
  }

  /** Keeps the code in what was typed or pasted (the whole SMS may be) and checks it once complete. */
  protected handleCodeInput(e: Event) {
    const input = e.target as HTMLInputElement;
    const { pinType, pinLength } = this.lastSend!;
    const raw = e.type == 'paste' ? ((e.preventDefault(), (e as ClipboardEvent).clipboardData?.getData('text')) ?? '') : input.value;
    input.value = this.typedCode = codeFrom(raw, pinType, pinLength);
    if (this.typedCode.length == pinLength) this.checkCode();
  }

  protected handleResend() {
    this.sendCode(this.sentTo);
  }

  protected handleChangeNumber() {
    this.startOver();
    this.refocus = true;
  }
}
