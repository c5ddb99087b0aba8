import type { PropertyDeclarations, PropertyValues } from 'lit';
import { accountLookupPath, orderPath, paymentPath, paymentEventsPath, paymentsPath } from '../../protocol/payment-paths.js';
import type { AccountLookupResponse, ChargeEstimate, OrderView, PaymentSnapshot } from '../../protocol/bodies.js';
import { CountdownController } from '../shared/countdown.js';
import { LocalizeController } from '../shared/localize.js';
import { MerchantElement } from '../shared/merchant-element.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { sleep } from '../shared/sleep.js';
import { StatusStreamController } from '../shared/status-stream.js';
import { numberClaim, tokenClaims } from '../shared/token.js';
import type { PaymentFailedDetail } from './pay-by-mobile.events.js';
import { payByMobileEn, type PayByMobileStrings } from './pay-by-mobile.strings.js';
import { BLOCKING, isBlocked, live, type PayByMobileState } from './pay-by-mobile.outcome.js';

/**
 * What `<pay-by-mobile>` does, apart from what it shows (pay-by-mobile.ts, its contract and template): its
 * attributes, and the way from the order's state through the number, the account, the request and the wait
 * on the phone to the outcome.
 */
export class PayByMobileFlow extends MerchantElement<PayByMobileState> {
  static override properties: PropertyDeclarations = {
    amount: { type: Number },
    currency: {},
    timeout: { type: Number },
    value: {},
    strings: { attribute: false },
    account: { state: true },
    shownPayment: { state: true },
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

  /** Milliseconds between the quiet status reads after the countdown ended (a late outcome is still shown). */
  lateInterval = 15_000;

  protected account?: AccountLookupResponse;
  protected shownPayment?: Partial<PaymentSnapshot> & { reference: string };
  protected failure?: ProxyClientError;
  /** What the order's configuration says the network adds, before a number is looked up (`GET /order`). */
  protected orderEstimate?: ChargeEstimate | null;
  protected retryAction?: (() => void) | undefined;
  /** A check found the payment still waiting for the phone. */
  protected still = false;
  private refocus = false;
  /** Settles once the order's answer is known, or is not to be had. */
  private order: Promise<unknown> = Promise.resolve();

  protected readonly t = new LocalizeController(this, payByMobileEn);
  protected readonly countdown = new CountdownController(this);
  protected readonly statusStream = new StatusStreamController<PaymentSnapshot>(this, this.client);

  override connectedCallback() {
    super.connectedCallback();
    // The amount's digits, left out of the first render (see render): after the frame that shows it.
    if (!this.hasUpdated) requestAnimationFrame(() => setTimeout(() => this.requestUpdate()));
    // Moved in the page: the disconnect stopped the calls (the order's read too) and the watch; the order says where things stand.
    if (this.hasUpdated && (this.busy() || /^(idle|unknown)$/.test(this.state))) this.readOrder();
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('token')) {
      this.value ||= String(tokenClaims(this.token)['msisdn'] ?? '');
      this.readOrder();
    }
    const charged = numberClaim(this.token, 'amount');
    if ((changed.has('token') || changed.has('amount')) && this.amount != null && !isNaN(charged) && this.amount != charged) {
      console.warn(`<pay-by-mobile>: amount ${this.amount} ignored; the token charges ${charged}.`);
    }
  }

  /**
   * Starts over: the form at once, and where the token's order stands read meanwhile. Its answer switches to
   * what it says (a payment waiting on a phone, from a reload or another tab, is watched; a spent or otherwise
   * blocked order says so), what was typed kept; nothing is sent for the order before it is known (`lookup`
   * waits for it). A proxy that cannot say (unreachable now) leaves the form, whose answers say the rest: it
   * never charges twice.
   */
  private readOrder() {
    this.startOver();
    // No token yet (a page that fetches one): the form, until the token says which order.
    if (this.token)
      this.order = this.client
        .get<OrderView>(orderPath)
        .then(({ payment, next, otherMethod, chargeEstimate }) => {
          this.orderEstimate = chargeEstimate;
          if (next == 'other-method') throw new ProxyClientError('ORDER_IN_OTHER_PAYMENT', '', otherMethod ?? {});
          if (next == 'exhausted' && !payment) throw new ProxyClientError('ATTEMPTS_EXHAUSTED', '');
          if (next != 'open' && payment) live(payment) ? this.watch(payment) : this.handleStatus(payment);
        })
        .catch((e: ProxyClientError) => e.retryable || e.status == 404 || this.fail(e));
  }

  protected override updated() {
    if (!this.refocus) return;
    // The next thing to do, else the sentence that says how it ended: never the page's body.
    const q = (s: string) => this.renderRoot.querySelector<HTMLElement>(s);
    const next = q('input:not([readonly]),button:not(:disabled)') ?? (this.busy() ? null : q('[tabindex]:not(:empty)'));
    if (next) (this.refocus = false), next.focus();
  }

  private startOver() {
    this.statusStream.stop();
    this.countdown.stop();
    this.client.abort();
    this.account = this.shownPayment = this.failure = this.retryAction = undefined;
    this.still = false;
    this.setState('idle');
  }

  /** A call or the wait is under way. */
  protected busy() {
    return /^(looking-up|paying|pending)$/.test(this.state);
  }

  /** Moves to `next`, the focus following when it is in the element (what it shows goes). */
  private begin(next: PayByMobileState) {
    this.refocus ||= this.matches(':focus-within');
    this.setState(next);
  }

  private fail(e: unknown) {
    if ((e as Error).name == 'AbortError') return;
    const failure = (this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e)));
    this.statusStream.stop();
    this.countdown.stop();
    this.begin('error');
    if (BLOCKING.includes(failure.code)) this.emit('payment-blocked', { code: failure.code, message: this.t.error(failure.code, failure.details) });
  }

  private async lookup() {
    if (this.busy()) return;
    this.begin('looking-up');
    // Nothing goes for this order before its answer: it may hold a payment already (then shown instead).
    await this.order;
    if (this.state != 'looking-up') return;
    try {
      this.account = await this.client.post<AccountLookupResponse>(accountLookupPath, { msisdn: this.value.trim() });
      this.setState('confirm');
    } catch (e) {
      this.fail(e);
    }
  }

  private async requestPayment() {
    if (this.busy() || !this.account) return;
    const before = this.shownPayment?.reference;
    this.begin('paying');
    try {
      // A second request while one is pending gets that same payment from the proxy: never two charges.
      this.watch(await this.client.post<PaymentSnapshot>(paymentsPath, { msisdn: this.account.msisdn }));
    } catch (e) {
      const { code, details, status } = e as ProxyClientError;
      const reference = details?.reference as string;
      // No answer (lost, or past the deadline): the request may have reached the proxy. Only the order knows.
      if (code == 'NETWORK') return this.settle(e, before);
      // The order waits on a prompt sent to another number (another tab, another device): follow that one.
      if (code == 'PAYMENT_IN_PROGRESS' && reference) return this.watch({ reference, msisdn: details.msisdn as string });
      // Refused by the provider (insufficient funds): a failed attempt of this order, read for its reason and what is left.
      if (status != 402 || !reference) return this.fail(e);
      this.shownPayment = { reference };
      this.recheck();
    }
  }

  /**
   * The payment request's answer was lost: asks the proxy where the order stands until it answers (every
   * 2 s, each ask with its deadline; meanwhile the element says the connection is gone), and shows that. A
   * payment other than `before` (the try shown when Pay was pressed) is this request's, watched or shown as
   * it ended (watched while it may change); none, and nothing was sent: `lost` ("No connection"), and Pay again is safe.
   */
  private async settle(lost: unknown, before?: string) {
    for (; this.state == 'paying'; this.statusStream.say(true), await sleep(2e3)) {
      try {
        const { payment: p } = await this.client.get<OrderView>(orderPath);
        return p && p.reference != before ? (live(p) ? this.watch(p) : this.handleStatus(p)) : this.fail(lost);
      } catch (e) {
        if ((e as ProxyClientError).code != 'NETWORK') return this.fail(e);
      }
    }
  }

  /** Reads the payment's status once, without touching the countdown; `quiet`, a failed read says nothing. */
  protected async recheck(quiet?: boolean) {
    const reference = this.shownPayment?.reference;
    if (!reference) return;
    try {
      const payment = await this.client.get<PaymentSnapshot>(paymentPath(reference));
      // Still waiting: say so (a check asked for) and keep the countdown; the relay's TIMED_OUT ends a wait.
      if (payment.status == 'PENDING' || (payment.status == 'TIMED_OUT' && this.state == 'timed-out')) (this.shownPayment = payment), (this.still = !quiet);
      else this.handleStatus(payment);
    } catch (e) {
      if (!quiet) this.fail(e);
    }
  }

  /** Watches a payment waiting on the phone (or being confirmed) until it ends. */
  private watch(payment: Partial<PaymentSnapshot> & { reference: string }) {
    const { reference } = payment;
    this.still = false;
    this.handleStatus(payment as PaymentSnapshot);
    this.emit('payment-pending', { reference });
    this.statusStream.start({
      events: paymentEventsPath(reference),
      snapshot: paymentPath(reference),
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
  private startClock() {
    const { sentAt, promptExpiresAt } = this.shownPayment!;
    this.countdown.start(
      promptExpiresAt ? this.at(promptExpiresAt) : (this.at(sentAt) || Date.now()) + this.timeout * 1e3,
      promptExpiresAt ? undefined : () => this.stopWaiting(),
    );
  }

  /** A time of the proxy's (ISO) in epoch milliseconds on this device's clock; 0 when there is none. */
  protected at(iso?: string | null) {
    return iso ? Date.parse(iso) - this.client.skew : 0;
  }

  /**
   * The page stops waiting (its countdown, or the relay's deadline); the payment may still complete, so its
   * status is read now and then while the element stays in the page.
   */
  private stopWaiting() {
    this.statusStream.stop();
    this.countdown.stop();
    // "Check again" reads it at once (a reload, another tab or this page's own wait).
    this.retryAction = () => this.recheck();
    this.begin('timed-out');
    const late = setInterval(() => (this.state == 'timed-out' && this.isConnected ? this.recheck(true) : clearInterval(late)), this.lateInterval);
  }

  private handleStatus(snapshot: PaymentSnapshot) {
    const { status } = (this.shownPayment = snapshot);
    // PENDING (no status yet: a prompt followed by its reference alone) counts down; UNKNOWN has no countdown.
    if (status == 'UNKNOWN') return this.countdown.stop(), this.setState('unknown');
    // (The form may go, the order found waiting: the focus goes to what comes next, not to the page's body.)
    if (!status || status == 'PENDING') return this.begin('pending'), this.startClock();
    if (status == 'TIMED_OUT') return this.stopWaiting();
    this.statusStream.stop();
    this.countdown.stop();
    // Found by a reload or another tab, no account was looked up here: "Try again" starts from the number.
    this.retryAction = snapshot.attemptsLeft > 0 ? (this.account ? () => this.requestPayment() : () => ((this.refocus = true), this.startOver())) : undefined;
    // COMPLETED, FAILED, CANCELLED: the states of the same names (VOID, nothing charged, reads as FAILED).
    const { reference, orderReference, amount, currency } = snapshot;
    const code = status == 'VOID' ? 'UPSTREAM_UNAVAILABLE' : (snapshot.failureCode ?? 'PAYMENT_FAILED');
    const state = status == 'VOID' ? 'failed' : (status.toLowerCase() as PayByMobileState);
    this.shownPayment = { ...snapshot, failureCode: code };
    // The buttons of the wait go: the focus goes to what comes next, not to the page's body.
    this.begin(state);
    // payment-completed, payment-failed or payment-cancelled, each with its detail.
    const ref = { reference, orderReference };
    this.emit(
      `payment-${state as 'failed'}`,
      state == 'failed' ? { ...ref, code, message: this.t.error(code), canRetry: !!this.retryAction } : ((state == 'completed' ? { ...ref, amount, currency } : ref) as PaymentFailedDetail),
    );
    if (isBlocked(state, undefined, snapshot)) this.emit('payment-blocked', { code: 'ATTEMPTS_EXHAUSTED', message: this.t.error('ATTEMPTS_EXHAUSTED') });
  }

  protected handleSubmit(e: SubmitEvent) {
    e.preventDefault();
    this.account ? this.requestPayment() : this.lookup();
  }

  protected handleInput(e: InputEvent) {
    this.value = (e.target as HTMLInputElement).value;
  }

  protected handleChangeNumber() {
    this.startOver();
    this.refocus = true;
  }
}
