import type { PropertyDeclarations, PropertyValues } from 'lit';
import { PROXY_PATHS } from '../../protocol/paths.js';
import type { AccountLookupResponse, ChargeEstimate, OrderView, PaymentSnapshot } from '../../protocol/bodies.js';
import { CountdownController } from '../shared/countdown.js';
import { LocalizeController } from '../shared/localize.js';
import { MerchantElement } from '../shared/merchant-element.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { StatusStreamController } from '../shared/status-stream.js';
import { numberClaim, tokenClaims } from '../shared/token.js';
import { payByMobileEn, type PayByMobileStrings } from './pay-by-mobile.strings.js';
import { payByMobileStyles } from './pay-by-mobile.styles.js';
import { BLOCKING, isBlocked, live, outcomeEvents, shown, type PayByMobileState } from './pay-by-mobile.outcome.js';
import { renderPayByMobile } from './pay-by-mobile.view.js';

/**
 * @summary Takes a mobile-money payment: number, account confirmation, approval on the phone, outcome.
 * @tagname pay-by-mobile
 *
 *
 * @event {MerchantEvent<PaymentRefDetail>} payment-pending - The request reached the phone (or a page found the order's payment waiting there): `detail` `{ reference }`.
 * @event {MerchantEvent<PaymentCompletedDetail>} payment-completed - Paid: `detail` `{ reference, orderReference, amount, currency }` (the attempt's and the order's).
 * @event {MerchantEvent<PaymentFailedDetail>} payment-failed - Failed: `detail` `{ reference, orderReference, code, message, canRetry }`.
 * @event {MerchantEvent<PaymentRefDetail>} payment-cancelled - Declined on the phone: `detail` `{ reference, orderReference }`.
 * @event {MerchantEvent<PaymentBlockedDetail>} payment-blocked - No payment of this order can be made here any more (attempts spent, order changed or paid another way), said as the page loads or after a try: `detail` `{ code, message }`; offer a new order or another way to pay.
 *
 * @csspart amount - The amount to pay; once the provider answered, what the phone asks (the charge included).
 * @csspart phone-input - The mobile-money number input.
 * @csspart continue-button - Looks the number's account up.
 * @csspart account - The confirmation question with the account holder's name and network, and the charge (estimated, or "may add a charge").
 * @csspart confirm-button - Sends the payment request to the phone.
 * @csspart change-button - Goes back to the number.
 * @csspart progress - The wait for approval: the prompt's age against its lifetime (indeterminate when the lifetime is unknown).
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
 * @cssstate loading - Reading where the order stands (`GET /order`), so that the first thing shown is true: the payment waiting on a phone (from another tab, or before a reload), a spent order's ways on, or the form.
 * @cssstate idle - Waiting for a number.
 * @cssstate looking-up - Looking the account up.
 * @cssstate confirm - Asking the customer to confirm the account and amount, and what the network adds (its estimate, or that it may add a charge).
 * @cssstate paying - Sending the payment request.
 * @cssstate pending - Waiting for approval on the phone: the number the prompt went to, how old it is and how long it stays open (the proxy's times, the same after a reload and in every tab; when the network's lifetime is unknown, no time is invented), and "Check again" (which leaves the countdown alone). There is no cancel: the provider has none, and the proxy keeps one attempt in flight per order, so another number would be refused. The element says the ways out that exist: declining on the phone ends the attempt (then "Try again" and "Use another number", nothing charged), and leaving is safe (the proxy goes on reading the payment and tells the shop). A prompt past its lifetime that the provider has not ended yet is said to have expired, still waiting for the network's word.
 * @cssstate unknown - The request went out but its answer was lost, and the provider cannot be read for it yet: the payment is being confirmed, the shop will tell how it ends, and nothing here starts another try.
 * @cssstate completed - Paid.
 * @cssstate failed - The payment failed; a retry is offered while attempts remain.
 * @cssstate cancelled - Declined on the phone.
 * @cssstate timed-out - No answer before the countdown ended (the prompt's lifetime unknown), or the proxy stopped waiting. The payment may still complete: its status is read now and then (a late completion is shown), and at once on "Check again".
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
    still: { state: true },
  };

  /**
   * Amount shown when the token carries none. The token's amount is what is charged, so it is always the one
   * shown: an `amount` that disagrees is ignored, with a warning in the console.
   */
  amount?: number;

  /** ISO currency code of the amount. */
  currency = 'GHS';

  /**
   * Seconds after the prompt was sent before showing `timed-out`, when the proxy does not know how long the
   * network keeps a prompt open (when it does, the prompt's own expiry decides).
   */
  timeout = 120;

  /** The mobile-money number, prefilled by the page (or by the token's locked number). */
  value = '';

  /** Overrides of some of the element's words. */
  strings?: Partial<PayByMobileStrings>;

  private account?: AccountLookupResponse;
  private payment?: Partial<PaymentSnapshot> & { reference: string };
  private failure?: ProxyClientError;
  /** What the order's configuration says the network adds, before a number is looked up (`GET /order`). */
  private estimate?: ChargeEstimate | null;
  private retry?: (() => void) | undefined;
  private refocus = false;
  /** A check found the payment still waiting for the phone. */
  private still = false;
  /** Milliseconds between the quiet status reads after the countdown ended (a late outcome is still shown). */
  lateInterval = 15_000;

  private readonly t = new LocalizeController(this, payByMobileEn);
  private readonly countdown = new CountdownController(this);
  private readonly stream = new StatusStreamController<PaymentSnapshot>(this, this.client);

  override connectedCallback() {
    super.connectedCallback();
    // Moved in the page: the disconnect stopped the calls and the watch; the order says where things stand.
    if (this.hasUpdated && (this.busy() || this.state == 'unknown')) this.load();
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('token')) {
      this.value ||= String(tokenClaims(this.token)['msisdn'] ?? '');
      this.load();
    }
    const charged = numberClaim(this.token, 'amount');
    if ((changed.has('token') || changed.has('amount')) && this.amount != null && !isNaN(charged) && this.amount != charged) {
      console.warn(`<pay-by-mobile>: amount ${this.amount} ignored; the token charges ${charged}.`);
    }
  }

  /**
   * Starts over from where the token's order stands: its payment waiting on a phone (a reload, another tab) is
   * watched, a spent or otherwise blocked order says so, else the form. A proxy that cannot say (unreachable
   * now) leaves the form, whose answers say the rest: it never charges twice.
   */
  private async load() {
    this.reset();
    this.setState('loading');
    try {
      const { payment, next, otherMethod, chargeEstimate } = await this.client.get<OrderView>(PROXY_PATHS.order);
      this.estimate = chargeEstimate;
      if (next == 'other-method') throw new ProxyClientError('ORDER_IN_OTHER_PAYMENT', '', otherMethod ?? {});
      if (next == 'exhausted' && !payment) throw new ProxyClientError('ATTEMPTS_EXHAUSTED', '');
      if (next != 'open' && payment) return live(payment) ? this.watch(payment) : this.handleStatus(payment);
      this.setState('idle');
    } catch (e) {
      if ((e as ProxyClientError).retryable || (e as ProxyClientError).status == 404) this.setState('idle');
      else this.fail(e);
    }
  }

  protected override updated() {
    if (!this.refocus) return;
    // The next thing to do, else the sentence that says how it ended (never the page's body: issue 20).
    const q = (s: string) => this.renderRoot.querySelector<HTMLElement>(s);
    const next = q('input:not([readonly]),button:not(:disabled)') ?? (this.busy() ? null : q('[tabindex]:not(:empty)'));
    if (next) (this.refocus = false), next.focus();
  }

  private reset() {
    this.stream.stop();
    this.countdown.stop();
    this.client.abort();
    this.account = this.payment = this.failure = this.retry = undefined;
    this.still = false;
    this.setState('idle');
  }

  private busy() {
    const { state } = this;
    return state == 'loading' || state == 'looking-up' || state == 'paying' || state == 'pending';
  }

  private begin(next: PayByMobileState) {
    this.refocus = this.matches(':focus-within');
    this.setState(next);
  }

  private fail(e: unknown) {
    if ((e as Error).name == 'AbortError') return;
    const failure = (this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e)));
    this.refocus ||= this.matches(':focus-within');
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
      this.watch(await this.client.post<PaymentSnapshot>(PROXY_PATHS.payments, { msisdn: this.account.msisdn }));
    } catch (e) {
      const { code, details, status } = e as ProxyClientError;
      const reference = details?.reference as string;
      // The order waits on a prompt sent to another number (another tab, another device): follow that one.
      if (code == 'PAYMENT_IN_PROGRESS' && reference) return this.watch({ reference, msisdn: details.msisdn as string });
      // Refused by the provider (insufficient funds): a failed attempt of this order, read for its reason and what is left.
      if (status != 402 || !reference) return this.fail(e);
      this.payment = { reference };
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

  /** Watches a payment waiting on the phone (or being confirmed) until it ends. */
  private watch(payment: Partial<PaymentSnapshot> & { reference: string }) {
    const { reference } = payment;
    this.payment = payment;
    this.retry = () => this.check();
    this.still = false;
    this.setState(payment.status == 'UNKNOWN' ? 'unknown' : 'pending');
    this.emit('payment-pending', { reference });
    this.time();
    this.stream.start({
      events: PROXY_PATHS.paymentEvents(reference),
      snapshot: PROXY_PATHS.payment(reference),
      isFinal: (p) => !live(p),
      onStatus: (p) => this.handleStatus(p),
      onError: (e) => this.fail(e),
    });
  }

  /**
   * Counts down to the prompt's expiry when the proxy knows it (past it, the element waits on for the provider's
   * word), else to `timeout` seconds after the prompt was sent, then stops waiting (`timed-out`). The proxy's
   * times, so a reload or another tab shows the same prompt's real age.
   */
  private time() {
    const { sentAt, promptExpiresAt, status } = this.payment!;
    if (status == 'UNKNOWN') return this.countdown.stop();
    const skew = this.client.skew;
    const until = promptExpiresAt ? Date.parse(promptExpiresAt) - skew : (sentAt ? Date.parse(sentAt) - skew : Date.now()) + this.timeout * 1e3;
    this.countdown.start(until, promptExpiresAt ? undefined : () => this.timedOut());
  }

  /**
   * The page stops waiting (its countdown, or the relay's deadline); the payment may still complete, so its
   * status is read now and then while the element stays in the page.
   */
  private timedOut() {
    this.refocus ||= this.matches(':focus-within');
    this.stream.stop();
    this.countdown.stop();
    this.setState('timed-out');
    const late = setInterval(() => (this.state == 'timed-out' && this.isConnected ? this.check(true) : clearInterval(late)), this.lateInterval);
  }

  private handleStatus(snapshot: PaymentSnapshot) {
    this.payment = snapshot;
    if (live(snapshot)) return this.setState(snapshot.status == 'UNKNOWN' ? 'unknown' : 'pending'), this.time();
    if (snapshot.status == 'TIMED_OUT') return this.timedOut();
    // The buttons of the wait go: the focus goes to what comes next, not to the page's body.
    this.refocus ||= this.matches(':focus-within');
    this.stream.stop();
    this.countdown.stop();
    // Found by a reload or another tab, no account was looked up here: "Try again" starts from the number.
    this.retry = snapshot.attemptsLeft > 0 ? (this.account ? () => this.pay() : () => ((this.refocus = true), this.reset())) : undefined;
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
    const { state, payment, failure, countdown, timeout, still, account, value } = this;
    const charged = numberClaim(this.token, 'amount');
    return renderPayByMobile(
      {
        t: this.t, state, account, payment, failure, still, value, timeout,
        left: countdown.left,
        skew: this.client.skew,
        estimate: account?.chargeEstimate ?? this.estimate,
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
