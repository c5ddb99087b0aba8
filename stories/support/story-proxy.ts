// One story's merchant proxy: the protocol's routes answered like the real proxy in front of the sandbox
// (test numbers, OTP codes and attempts, payments and checkouts that settle over server-sent events, where the
// order stands), with the story's own faults on top. Bodies come from the element tests' builders, typed by the
// protocol schemas.
import { SseStream, checkout, checkoutCreated, fakeToken, hang, json, offline, payment, problem, type FakeRequest } from '../../test/elements/fake-proxy.js';
import type { CheckoutViewStatus, PaymentViewStatus, ProxyErrorCode } from '../../src/protocol/codes.js';
import type { PROXY_PATHS } from '../../src/protocol/paths.js';
import type { CheckoutSnapshot, OrderView, PaymentSnapshot } from '../../src/protocol/schemas.js';
import { priceOf } from '../../src/sandbox/money.js';
import { PROMPT_LIFETIME_SECONDS } from '../../src/sandbox/test-numbers.js';
import { StoryOtp, type OtpOptions } from './story-otp.js';
import { lookUp, maskName, maskPhone, normalise } from './test-numbers.js';

export { OTP_CODE } from './story-otp.js';

/** A route of the protocol, by its name in `PROXY_PATHS`. */
export type RouteName = keyof typeof PROXY_PATHS;

/** A protocol error a route answers with. */
export interface Refusal {
  error: ProxyErrorCode;
  details?: Record<string, unknown>;
}

/** How a story's proxy behaves: the story parameter `proxy`. */
export interface FakeProxyOptions {
  /** Claims of the element token the merchant's server mints (scope, amount, purpose…). */
  claims?: Record<string, unknown>;
  /** Routes that never answer: the element stays in its in-between state (`sending`, `looking-up`…). */
  hang?: RouteName[];
  /** Routes whose first call fails as if the device were offline; the next one gets through. */
  offline?: RouteName[];
  /** Routes answered with a protocol error, every time. */
  fail?: Partial<Record<RouteName, Refusal>>;
  /** The OTP the "SMS" carries, its lifetime and resend cooldown in seconds, and the wrong codes allowed. */
  otp?: OtpOptions;
  /**
   * Seconds a payment prompt stays open, as the proxy's configuration knows it; by default the sandbox's
   * lifetime of the number's network; `null`: unknown (the proxy says no expiry).
   */
  promptLifetime?: number | null;
  /** The configuration knows the network's charge (the sandbox's 1 %): it is estimated before Pay. */
  estimate?: boolean;
  /** A payment the order has as the story opens (another tab sent it, or this page before a reload). */
  waiting?: { msisdn: string; sentAgo: number; status?: PaymentViewStatus };
  /** Every attempt of the order was refused (insufficient funds) before the story opens. */
  spent?: boolean;
  /** Where the hosted checkout holds the order, as `GET /order` says it (`otherMethod`). */
  otherMethod?: OrderView['otherMethod'];
  /** Milliseconds before a payment (or a checkout with an `outcome`) reaches its final status. */
  settleAfter?: number;
  /** A checkout's final status; unset, it waits for the fake hosted page (popup and tab modes). */
  checkoutOutcome?: CheckoutViewStatus;
}

/** Milliseconds a payment or checkout stays pending by default: long enough to be seen. */
const SETTLE_AFTER = 1000;

const HTTP_STATUS: Partial<Record<ProxyErrorCode, number>> = {
  TOKEN_INVALID: 401, TOKEN_EXPIRED: 401, RATE_LIMITED: 429, OTP_EXPIRED: 410, OTP_LOCKED: 423, ACCOUNT_NOT_FOUND: 404,
  NOT_FOUND: 404, INSUFFICIENT_FUNDS: 402, ATTEMPTS_EXHAUSTED: 409, PAYMENT_UNCONFIRMED: 409, REFERENCE_CONFLICT: 409,
  UPSTREAM_UNAVAILABLE: 503, UPSTREAM_ERROR: 502,
};

/** A protocol error response, with `Retry-After` when it says when to retry. */
export function refuse({ error, details = {} }: Refusal): Response {
  const res = problem(HTTP_STATUS[error] ?? 400, error, details);
  if (typeof details['retryAfter'] == 'number') res.headers.set('retry-after', String(details['retryAfter']));
  return res;
}

let serial = 0;
const now = () => new Date().toISOString();

/**
 * The proxy one rendering of a story talks to: it mints the story's token, keeps the OTPs, payments and
 * checkouts made through it, and settles them over their event streams.
 */
export class StoryProxy {
  /** The element token the merchant's server would have minted for this story (unsigned: the fake trusts it). */
  readonly token: string;
  readonly claims: Record<string, unknown>;
  private readonly offlineLeft: Set<RouteName>;
  private readonly otp: StoryOtp;
  private readonly payments = new Map<string, PaymentSnapshot>();
  /** Payments the provider refused at initiation; the reference of the last one while it is free. */
  private refusals = 0;
  private refused?: string | undefined;
  private readonly checkouts = new Map<string, CheckoutSnapshot>();
  /** Open event streams by payment reference or checkout id. */
  private readonly streams = new Map<string, SseStream[]>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(readonly options: FakeProxyOptions = {}) {
    // Unique per story visit: the token keys this proxy, and its order is this visit's alone.
    const key = `${Date.now().toString(36)}${++serial}`;
    this.claims = { aud: 'merchant-elements', ...options.claims, jti: key, referenceNo: `ORDER-${key.toUpperCase()}` };
    this.token = fakeToken(this.claims);
    this.offlineLeft = new Set(options.offline);
    this.otp = new StoryOtp(options.otp ?? {}, this.claims['purpose'], (error, details) => refuse({ error, details: details ?? {} }));
    const { waiting, spent } = options;
    if (waiting) {
      const p = this.newPayment(waiting.msisdn, waiting.sentAgo);
      if (waiting.status) p.status = waiting.status;
    }
    if (spent) for (let i = Number(this.claims['maxAttempts'] ?? 3); i > 0; i--) this.createPayment('233240000002');
  }

  /** Answers a request to one of the protocol's routes (the token was checked). */
  answer(route: RouteName, req: FakeRequest): Response | Promise<Response> {
    const { hang: hung = [], fail = {} } = this.options;
    if (hung.includes(route)) return hang(req);
    if (this.offlineLeft.delete(route)) return offline();
    const refusal = fail[route];
    if (refusal) return refuse(refusal);
    const id = decodeURIComponent(req.path.split('/')[2] ?? '');
    switch (route) {
      case 'otpSend':
        return this.otp.send(req.body.recipient);
      case 'otpVerify':
        return this.otp.verify(req.body.recipient, req.body.code);
      case 'otpDelivery':
        return this.otp.delivery(id);
      case 'order':
        return json(this.order());
      case 'accountLookup':
        return this.lookUpAccount(req.body.msisdn);
      case 'payments':
        return this.createPayment(req.body.msisdn);
      case 'payment':
      case 'checkout':
        return this.snapshot(id);
      case 'paymentEvents':
      case 'checkoutEvents':
        return this.events(id, req);
      case 'checkouts':
        return this.createCheckout();
      default:
        return refuse({ error: 'NOT_FOUND' });
    }
  }

  /** Moves a payment (the latest if unnamed) to a final status, as the provider would; watchers see it at once. */
  settlePayment(status: PaymentViewStatus, reference = [...this.payments.keys()].at(-1), failureCode?: string) {
    const p = reference && this.payments.get(reference);
    if (p) this.publish(reference, Object.assign(p, { status, failureCode, updatedAt: now(), completedAt: status == 'COMPLETED' ? now() : null }));
  }

  /** Moves a checkout (the latest if unnamed) to a status, as its hosted page would. */
  settleCheckout(status: CheckoutViewStatus, checkoutId = [...this.checkouts.keys()].at(-1)) {
    const c = checkoutId && this.checkouts.get(checkoutId);
    if (c) this.publish(checkoutId, Object.assign(c, { status, updatedAt: now(), completedAt: status == 'completed' ? now() : null }));
  }

  /** True when this story's proxy created the checkout. */
  owns(checkoutId: string) {
    return this.checkouts.has(checkoutId);
  }

  /** Ends timers and streams (the story is gone). */
  dispose() {
    this.timers.forEach(clearTimeout);
    for (const list of this.streams.values()) list.forEach((s) => s.end());
  }

  private later(ms: number, fn: () => void) {
    const t = setTimeout(() => (this.timers.delete(t), fn()), ms);
    this.timers.add(t);
  }

  // ---- Payments ----------------------------------------------------------------------------------

  /** The charge the configuration knows (the sandbox's), when the story says it does. */
  private get estimate() {
    const { charge, totalAmount } = priceOf(Number(this.claims['amount']));
    return this.options.estimate ? { charge, totalAmount } : null;
  }

  private lookUpAccount(typed: string) {
    const msisdn = normalise(typed);
    if (!msisdn) return refuse({ error: 'INVALID_PHONE_NUMBER' });
    const { accountName, network } = lookUp(msisdn);
    if (!accountName) return refuse({ error: 'ACCOUNT_NOT_FOUND' });
    return json({ accountName: maskName(accountName), network, msisdn, chargeEstimate: this.estimate });
  }

  /** Tries the order has made (a refused one counts, its reference is free) and allows. */
  private get attempts() {
    return { used: this.payments.size - (this.refused ? 1 : 0) + this.refusals, max: Number(this.claims['maxAttempts'] ?? 3) };
  }

  /** `GET /order`: the latest payment, what a new try would meet, the estimate. */
  private order(): OrderView {
    const last = [...this.payments.values()].at(-1) ?? null;
    const { used, max } = this.attempts;
    const live = last && ['PENDING', 'UNKNOWN', 'TIMED_OUT', 'COMPLETED'].includes(last.status);
    const { otherMethod = null } = this.options;
    return {
      orderReference: String(this.claims['referenceNo']),
      payment: last,
      attemptsLeft: Math.max(0, max - used),
      next: otherMethod ? 'other-method' : live ? 'payment' : used >= max ? 'exhausted' : 'open',
      otherMethod,
      chargeEstimate: this.estimate,
    };
  }

  /** A payment request of the order to `msisdn`, sent `sentAgo` seconds ago: the prompt's number, age and lifetime. */
  private newPayment(msisdn: string, sentAgo = 0): PaymentSnapshot {
    const { used, max } = this.attempts;
    const n = this.payments.size + (this.refused ? 0 : 1);
    this.refused = undefined;
    const orderReference = String(this.claims['referenceNo']);
    const sent = Date.now() - sentAgo * 1000;
    const lifetime = this.options.promptLifetime === undefined ? PROMPT_LIFETIME_SECONDS[lookUp(msisdn).network] : this.options.promptLifetime;
    const p = payment({
      reference: `${orderReference}-${n}`,
      orderReference,
      ...priceOf(Number(this.claims['amount'])),
      attempt: used + 1,
      attemptsLeft: max - used - 1,
      msisdn: maskPhone(msisdn),
      sentAt: new Date(sent).toISOString(),
      promptExpiresAt: lifetime ? new Date(sent + lifetime * 1000).toISOString() : null,
    });
    this.payments.set(p.reference, p);
    return p;
  }

  private createPayment(typed: string) {
    const msisdn = normalise(typed);
    if (!msisdn) return refuse({ error: 'INVALID_PHONE_NUMBER' });
    const pending = [...this.payments.values()].find((p) => p.status == 'PENDING');
    if (pending) return json(pending, 202); // a double click never charges twice
    // As the real proxy: a refused attempt counts, but its reference is free and the next attempt takes it.
    if (this.attempts.used >= this.attempts.max) return refuse({ error: 'ATTEMPTS_EXHAUSTED' });
    const p = this.newPayment(msisdn);
    const outcome = lookUp(msisdn);
    if (outcome.refusedAtInitiation) {
      // Refused by the provider at once (not enough money): FAILED, no prompt, the reason in the answer.
      this.refusals++;
      this.refused = p.reference;
      Object.assign(p, { status: 'FAILED', failureCode: outcome.failureCode, updatedAt: now() });
      return refuse({ error: outcome.failureCode as ProxyErrorCode, details: { reference: p.reference, attemptsLeft: p.attemptsLeft } });
    }
    if (outcome.payment != 'PENDING') {
      this.later(this.options.settleAfter ?? SETTLE_AFTER, () => this.settlePayment(outcome.payment, p.reference, outcome.failureCode));
    } else if (p.promptExpiresAt && !outcome.neverEnds) {
      // Nobody answers: the network ends the prompt when it expires.
      this.later(Date.parse(p.promptExpiresAt) - Date.now(), () => this.settlePayment('FAILED', p.reference));
    }
    return json(p, 202);
  }

  // ---- Checkout ----------------------------------------------------------------------------------

  private createCheckout() {
    const checkoutId = `chk_${this.claims['jti']}_${this.checkouts.size + 1}`;
    const c = checkout({ checkoutId, reference: String(this.claims['reference']), amount: Number(this.claims['amount']) });
    this.checkouts.set(checkoutId, c);
    const page = new URLSearchParams({ checkoutId, title: String(this.claims['title']), amount: `${c.currency} ${c.amount.toFixed(2)}` });
    const { checkoutOutcome, settleAfter = SETTLE_AFTER } = this.options;
    if (checkoutOutcome) this.later(settleAfter, () => this.settleCheckout(checkoutOutcome, checkoutId));
    // Relative to iframe.html, so the static build works under any path.
    return json(checkoutCreated({ checkoutId, checkoutUrl: `hosted-checkout.html?${page}` }), 201);
  }

  // ---- Status of both ----------------------------------------------------------------------------

  private snapshot(id: string) {
    const found = this.payments.get(id) ?? this.checkouts.get(id);
    return found ? json(found) : refuse({ error: 'NOT_FOUND' });
  }

  /** The current status at once, then each change until a final one. */
  private events(id: string, req: FakeRequest) {
    const found = this.payments.get(id) ?? this.checkouts.get(id);
    if (!found) return refuse({ error: 'NOT_FOUND' });
    const stream = new SseStream(req);
    this.streams.set(id, [...(this.streams.get(id) ?? []), stream]);
    this.send(stream, found);
    return stream.response;
  }

  private publish(id: string, snapshot: PaymentSnapshot | CheckoutSnapshot) {
    for (const stream of this.streams.get(id) ?? []) this.send(stream, snapshot);
  }

  private send(stream: SseStream, snapshot: PaymentSnapshot | CheckoutSnapshot) {
    stream.status(snapshot, String(++serial));
    if (!['PENDING', 'pending', 'processing'].includes(snapshot.status)) stream.end();
  }
}
