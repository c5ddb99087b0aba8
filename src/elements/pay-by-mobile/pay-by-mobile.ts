import type { PropertyDeclarations, PropertyValues } from 'lit';
import { PROXY_PATHS } from '../../protocol/paths.js';
import type { AccountLookupResponse, PaymentSnapshot } from '../../protocol/bodies.js';
import { CountdownController } from '../shared/countdown.js';
import { LocalizeController } from '../shared/localize.js';
import { MerchantElement } from '../shared/merchant-element.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { StatusStreamController } from '../shared/status-stream.js';
import { numberClaim, tokenClaims } from '../shared/token.js';
import { payByMobileEn, type PayByMobileStrings } from './pay-by-mobile.strings.js';
import { payByMobileStyles } from './pay-by-mobile.styles.js';
import { loadPending, savePending } from './pending-payment.js';
import { BLOCKING, isBlocked, localNumber, outcomeEvents, shown, type PayByMobileState } from './pay-by-mobile.outcome.js';
import { renderPayByMobile } from './pay-by-mobile.view.js';

/**
 * @summary Takes a mobile-money payment: number, account confirmation, approval on the phone, outcome.
 * @tagname pay-by-mobile
 *
 *
 * @event {MerchantEvent<PaymentRefDetail>} payment-pending - The request reached the phone: `detail` `{ reference }`.
 * @event {MerchantEvent<PaymentCompletedDetail>} payment-completed - Paid: `detail` `{ reference, orderReference, amount, currency }` (the attempt's and the order's).
 * @event {MerchantEvent<PaymentFailedDetail>} payment-failed - Failed: `detail` `{ reference, orderReference, code, message, canRetry }`.
 * @event {MerchantEvent<PaymentRefDetail>} payment-cancelled - Declined on the phone: `detail` `{ reference, orderReference }`.
 * @event {MerchantEvent<PaymentBlockedDetail>} payment-blocked - No payment of this order can be made here any more (attempts spent, order changed or paid another way): `detail` `{ code, message }`; offer a new order or another way to pay.
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
 * @csspart retry-button - Tries again (a new attempt while the order allows one), or checks the status again after the countdown.
 * @csspart check-button - While waiting: reads the payment's status now (the countdown goes on).
 * @csspart way-out - While waiting: the ways out (decline on the phone to use another number; leaving is safe).
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
 * @cssstate pending - Waiting for approval on the phone, with a countdown and "Check again" (which leaves the countdown alone). There is no cancel: the provider has none, and the proxy keeps one attempt in flight per order, so another number would be refused. The element says the ways out that exist: declining on the phone ends the attempt (then "Try again" and "Use another number", nothing charged), and leaving is safe (the proxy goes on reading the payment and tells the shop).
 * @cssstate completed - Paid.
 * @cssstate failed - The payment failed; a retry is offered while attempts remain.
 * @cssstate cancelled - Declined on the phone.
 * @cssstate timed-out - No answer before the countdown ended. The payment may still complete: its status is read now and then (a late completion is shown), and at once on "Check again".
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
    prompt: { state: true },
    still: { state: true },
  };

  /**
   * Amount shown when the token carries none. The token's amount is what is charged, so it is always the one
   * shown: an `amount` that disagrees is ignored, with a warning in the console.
   */
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
  /** The masked number a payment prompt of this order went to, when it is not the one confirmed here. */
  private prompt?: string | undefined;
  /** A check found the payment still waiting for the phone. */
  private still = false;
  /** Milliseconds between the quiet status reads after the countdown ended (a late outcome is still shown). */
  lateInterval = 15_000;

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
    const charged = numberClaim(this.token, 'amount');
    if ((changed.has('token') || changed.has('amount')) && this.amount != null && !isNaN(charged) && this.amount != charged) {
      console.warn(`<pay-by-mobile>: amount ${this.amount} ignored; the token charges ${charged}.`);
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
    this.account = this.payment = this.failure = this.retry = this.prompt = undefined;
    this.still = false;
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
    const failure = (this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e)));
    this.countdown.stop();
    this.setState('error');
    if (BLOCKING.includes(failure.code)) this.emit('payment-blocked', { code: failure.code, message: this.t.error(failure.code, failure.details) });
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
      const { code, details } = e as ProxyClientError;
      // The order waits on a prompt sent to another number (another tab, another device): follow that one.
      if (code == 'PAYMENT_IN_PROGRESS' && details.reference) {
        this.prompt = localNumber(String(details.msisdn ?? ''));
        return this.watch(String(details.reference));
      }
      // Refused by the provider (insufficient funds): a failed attempt of this order, read for its reason and what is left.
      if (!details?.reference) return this.fail(e);
      this.payment = { reference: String(details.reference) } as PaymentSnapshot;
      this.check();
    }
  }

  /** Reads the payment's status once, without touching the countdown; `quiet`, a failed read says nothing. */
  private async check(quiet?: boolean) {
    const reference = this.payment?.reference;
    if (!reference) return;
    try {
      const payment = await this.client.get<PaymentSnapshot>(PROXY_PATHS.payment(reference));
      // Still waiting: say so (a check asked for) and keep the countdown; the relay's TIMED_OUT ends a wait.
      if (payment.status == 'PENDING' || (payment.status == 'TIMED_OUT' && this.state == 'timed-out')) (this.payment = payment), (this.still = !quiet);
      else this.handleStatus(payment);
    } catch (e) {
      if (!quiet) this.fail(e);
    }
  }

  /** Waits for the payment's final status, until `until` (epoch ms) at most. */
  private watch(reference: string, until = Date.now() + this.timeout * 1000) {
    this.payment ??= { reference };
    savePending(this.token, { reference, until });
    this.retry = () => this.check();
    this.still = false;
    this.setState('pending');
    this.emit('payment-pending', { reference });
    this.countdown.start(until, () => this.timedOut());
    this.stream.start({
      events: PROXY_PATHS.paymentEvents(reference),
      snapshot: PROXY_PATHS.payment(reference),
      isFinal: (p) => p.status != 'PENDING',
      onStatus: (p) => this.handleStatus(p),
      onError: (e) => this.fail(e),
    });
  }

  /**
   * The page stops waiting (its countdown, or the relay's deadline); the payment may still complete, so its
   * status is read now and then while the element stays in the page.
   */
  private timedOut() {
    this.stream.stop();
    this.countdown.stop();
    this.setState('timed-out');
    const late = setInterval(() => (this.state == 'timed-out' && this.isConnected ? this.check(true) : clearInterval(late)), this.lateInterval);
  }

  private handleStatus(snapshot: PaymentSnapshot) {
    this.payment = snapshot;
    if (snapshot.status == 'PENDING') return;
    if (snapshot.status == 'TIMED_OUT') return this.timedOut();
    this.stream.stop();
    this.countdown.stop();
    savePending(this.token);
    this.retry = snapshot.attemptsLeft > 0 ? () => this.pay() : undefined;
    const payment = (this.payment = shown(snapshot));
    // COMPLETED, FAILED, CANCELLED: the states of the same names.
    this.setState(payment.status.toLowerCase() as PayByMobileState);
    outcomeEvents(payment, this.t, !!this.retry, (name, detail) => this.emit(name, detail as never));
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
    const { state, payment, failure, countdown, timeout, prompt, still, account, value } = this;
    const charged = numberClaim(this.token, 'amount');
    return renderPayByMobile(
      {
        t: this.t, state, account, payment, failure, prompt, still, value, timeout,
        left: countdown.left,
        busy: this.busy(),
        blocked: isBlocked(state, failure, payment),
        amount: isNaN(charged) ? (this.amount ?? NaN) : charged,
        currency: payment?.currency ?? this.currency,
        canRetry: !!this.retry,
      },
      {
        submit: (e) => this.handleSubmit(e),
        input: (e) => this.handleInput(e),
        check: () => this.check(),
        retry: () => this.retry!(),
        changeNumber: () => this.handleChangeNumber(),
      },
    );
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-by-mobile': PayByMobile;
  }
}
