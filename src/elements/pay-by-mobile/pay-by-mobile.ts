import { html, type PropertyDeclarations, type PropertyValues } from 'lit';
import { PROXY_PATHS } from '../../protocol/paths.js';
import type { AccountLookupResponse, PaymentSnapshot } from '../../protocol/schemas.js';
import { CountdownController } from '../shared/countdown.js';
import { LocalizeController, clock, money } from '../shared/localize.js';
import { MerchantElement } from '../shared/merchant-element.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { StatusStreamController } from '../shared/status-stream.js';
import { tokenClaims } from '../shared/token.js';
import { payByMobileEn, type PayByMobileStrings } from './pay-by-mobile.strings.js';
import { payByMobileStyles } from './pay-by-mobile.styles.js';
import { loadPending, savePending } from './pending-payment.js';

export type PayByMobileState =
  | 'idle' | 'looking-up' | 'confirm' | 'paying' | 'pending' | 'completed'
  | 'failed' | 'cancelled' | 'timed-out' | 'error';

/**
 * @summary Takes a mobile-money payment: number, account confirmation, approval on the phone, outcome.
 * @tagname pay-by-mobile
 *
 *
 * @event {MerchantEvent<PaymentRefDetail>} payment-pending - The request reached the phone: `detail` `{ reference }`.
 * @event {MerchantEvent<PaymentCompletedDetail>} payment-completed - Paid: `detail` `{ reference, amount, currency }`.
 * @event {MerchantEvent<PaymentFailedDetail>} payment-failed - Failed: `detail` `{ reference, code, message, canRetry }`.
 * @event {MerchantEvent<PaymentRefDetail>} payment-cancelled - Declined on the phone: `detail` `{ reference }`.
 *
 * @csspart amount - The amount to pay.
 * @csspart phone-input - The mobile-money number input.
 * @csspart continue-button - Looks the number's account up.
 * @csspart account - The confirmation question with the account holder's name and network.
 * @csspart confirm-button - Sends the payment request to the phone.
 * @csspart change-button - Goes back to the number.
 * @csspart progress - The wait for approval (a progress bar counting down).
 * @csspart status - The polite live region (what is happening).
 * @csspart error-message - The assertive live region (what went wrong).
 * @csspart retry-button - Tries again (a new attempt while the token allows one, or a new check).
 *
 * @cssproperty --pay-by-mobile-accent - Buttons, progress, focus ring (default `--me-accent`).
 * @cssproperty --pay-by-mobile-radius - Corner radius (default `--me-radius`).
 * @cssproperty --pay-by-mobile-font - Font family (default `--me-font`, else inherited).
 * @cssproperty --pay-by-mobile-surface - Background (default `--me-surface`).
 * @cssproperty --pay-by-mobile-text - Text colour (default `--me-text`).
 * @cssproperty --pay-by-mobile-danger - Error colour (default `--me-danger`).
 * @cssproperty --pay-by-mobile-success - Success colour (default `--me-success`).
 *
 * @cssstate idle - Waiting for a number.
 * @cssstate looking-up - Looking the account up.
 * @cssstate confirm - Asking the customer to confirm the account and amount.
 * @cssstate paying - Sending the payment request.
 * @cssstate pending - Waiting for approval on the phone, with a countdown.
 * @cssstate completed - Paid.
 * @cssstate failed - The payment failed; a retry is offered while attempts remain.
 * @cssstate cancelled - Declined on the phone.
 * @cssstate timed-out - No answer before the countdown ended (the payment may still complete).
 * @cssstate error - A call failed (unknown account, invalid number, network, expired token…).
 */
export class PayByMobile extends MerchantElement<PayByMobileState> {
  static override styles = payByMobileStyles;
  static override properties: PropertyDeclarations = {
    amount: { type: Number },
    currency: {},
    timeout: { type: Number },
    value: {},
    strings: { attribute: false },
    account: { state: true },
    payment: { state: true },
    failure: { state: true },
  };

  /** Amount shown to the customer (display only: the token decides what is charged); default the token's. */
  amount?: number;

  /** ISO currency code of the amount. */
  currency = 'GHS';

  /** Seconds to wait for approval on the phone before showing `timed-out`. */
  timeout = 120;

  /** The mobile-money number, prefilled by the page (or by the token's locked number). */
  value = '';

  /** Overrides of some of the element's words. */
  strings?: Partial<PayByMobileStrings>;

  private account?: AccountLookupResponse;
  private payment?: Partial<PaymentSnapshot> & { reference: string };
  private failure?: ProxyClientError;
  private retry?: (() => void) | undefined;
  private refocus = false;

  private readonly t = new LocalizeController(this, payByMobileEn);
  private readonly countdown = new CountdownController(this);
  private readonly stream = new StatusStreamController<PaymentSnapshot>(this, this.client);

  override connectedCallback() {
    super.connectedCallback();
    // Moved in the page: the disconnect stopped the calls and the watch.
    if (this.hasUpdated && this.busy()) this.resume();
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('token')) {
      this.value ||= String(tokenClaims(this.token)['msisdn'] ?? '');
      this.resume();
    }
  }

  /** Starts over, watching again the payment of this order left pending (by a reload, say) if there is one. */
  private resume() {
    if (this.hasUpdated) this.reset();
    const saved = loadPending(this.token);
    if (saved) this.watch(saved.reference, saved.until > Date.now() ? saved.until : undefined);
  }

  protected override updated() {
    const next = this.refocus && this.renderRoot.querySelector<HTMLElement>('input:not([readonly]),button:not(:disabled)');
    if (next) (this.refocus = false), next.focus();
  }

  private reset() {
    this.stream.stop();
    this.countdown.stop();
    this.client.abort();
    this.account = this.payment = this.failure = this.retry = undefined;
    this.setState('idle');
  }

  private busy() {
    const { state } = this;
    return state == 'looking-up' || state == 'paying' || state == 'pending';
  }

  private begin(next: PayByMobileState) {
    this.refocus = this.matches(':focus-within');
    this.setState(next);
  }

  private fail(e: unknown) {
    if ((e as Error).name == 'AbortError') return;
    this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e));
    this.countdown.stop();
    this.setState('error');
  }

  private async lookup() {
    if (this.busy()) return;
    this.begin('looking-up');
    try {
      this.account = await this.client.post<AccountLookupResponse>(PROXY_PATHS.accountLookup, { msisdn: this.value.trim() });
      this.setState('confirm');
    } catch (e) {
      this.fail(e);
    }
  }

  private async pay() {
    if (this.busy() || !this.account) return;
    this.begin('paying');
    try {
      // A second request while one is pending gets that same payment from the proxy: never two charges.
      const payment = await this.client.post<PaymentSnapshot>(PROXY_PATHS.payments, { msisdn: this.account.msisdn });
      this.payment = payment;
      this.watch(payment.reference);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Waits for the payment's final status, until `until` (epoch ms) at most. */
  private watch(reference: string, until = Date.now() + this.timeout * 1000) {
    this.payment ??= { reference };
    savePending(this.token, { reference, until });
    this.retry = () => this.watch(reference);
    this.setState('pending');
    this.emit('payment-pending', { reference });
    this.countdown.start(until, () => {
      this.stream.stop();
      this.setState('timed-out');
    });
    this.stream.start({
      events: PROXY_PATHS.paymentEvents(reference),
      snapshot: PROXY_PATHS.payment(reference),
      isFinal: (p) => p.status != 'PENDING',
      onStatus: (p) => this.handleStatus(p),
      onError: (e) => this.fail(e),
    });
  }

  private handleStatus(payment: PaymentSnapshot) {
    this.payment = payment;
    if (payment.status == 'PENDING') return;
    // VOID (never reached the provider, nothing charged) reads as a failure that may be retried.
    if (payment.status == 'VOID') payment = this.payment = { ...payment, status: 'FAILED', failureCode: 'UPSTREAM_UNAVAILABLE' };
    // COMPLETED, FAILED, CANCELLED, TIMED_OUT: the states of the same names.
    const next = payment.status.toLowerCase().replace('_', '-') as PayByMobileState;
    const { reference, amount, currency, attemptsLeft } = payment;
    this.countdown.stop();
    if (next != 'timed-out') {
      savePending(this.token);
      this.retry = attemptsLeft > 0 ? () => this.pay() : undefined;
    }
    this.setState(next);
    if (next == 'completed') this.emit('payment-completed', { reference, amount, currency });
    if (next == 'cancelled') this.emit('payment-cancelled', { reference });
    if (next == 'failed') {
      const code = payment.failureCode ?? 'PAYMENT_FAILED';
      this.emit('payment-failed', { reference, code, message: this.t.error(code), canRetry: !!this.retry });
    }
  }

  private handleSubmit(e: SubmitEvent) {
    e.preventDefault();
    if (this.account) this.pay();
    else this.lookup();
  }

  private handleInput(e: InputEvent) {
    this.value = (e.target as HTMLInputElement).value;
  }

  private handleChangeNumber() {
    this.reset();
    this.refocus = true;
  }

  override render() {
    const s = this.t.strings;
    const { state, account, payment, failure, countdown, timeout } = this;
    const busy = this.busy();
    const amount = this.amount ?? Number(tokenClaims(this.token)['amount'] ?? NaN);
    const total = isNaN(amount) ? '' : money(this.t.lang, amount, payment?.currency ?? this.currency);
    const error = state == 'failed' ? (payment?.failureCode ?? 'PAYMENT_FAILED') : state == 'error' && failure!.code;
    const status: Partial<Record<PayByMobileState, string>> = {
      'looking-up': s.lookingUp,
      paying: s.paying,
      pending: s.approve,
      completed: s.completed,
      cancelled: s.declined,
      'timed-out': s.timedOut,
    };
    // One form: it asks for the number, then for the confirmation of the account found.
    return html`
      <p part="amount">${total}</p>
      <form @submit=${this.handleSubmit}>
        ${!account && (state == 'idle' || state == 'looking-up' || state == 'error')
          ? html`<div class="field">
                <label for="input">${s.phone}</label>
                <input id="input" part="phone-input" type="tel" autocomplete="tel" inputmode="tel" required
                  .value=${this.value} ?readonly=${busy} aria-invalid=${state == 'error'} aria-describedby="error"
                  @input=${this.handleInput} />
              </div>
              <button part="continue-button" ?disabled=${busy}>${s.next}</button>`
          : account && (state == 'confirm' || state == 'paying' || (state == 'error' && !payment))
            ? html`<p part="account">${s.confirm(total, account.accountName, account.network)}</p>
                <button part="confirm-button" ?disabled=${busy}>${s.pay(total)}</button>`
            : ''}
        ${state == 'pending'
          ? html`<progress part="progress" aria-label=${s.approve} max=${timeout} .value=${timeout - countdown.left}></progress>
              ${s.left(clock(countdown.left))}`
          : ''}
        ${this.retry && (state == 'failed' || state == 'cancelled' || state == 'timed-out')
          ? html`<button type="button" part="retry-button" @click=${() => this.retry!()}>
              ${state == 'timed-out' ? s.checkAgain : s.tryAgain}
            </button>`
          : ''}
        ${account && !busy && state != 'completed' && state != 'timed-out'
          ? html`<button type="button" class="link" part="change-button" @click=${this.handleChangeNumber}>${s.changeNumber}</button>`
          : ''}
      </form>
      <p part="status" aria-live="polite" class=${state == 'completed' ? 'ok' : ''}>${status[state]}</p>
      <p id="error" part="error-message" aria-live="assertive">${error ? this.t.error(error) : ''}</p>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-by-mobile': PayByMobile;
  }
}
