// One story's merchant proxy: the protocol's routes answered like the real proxy in front of the sandbox
// (test numbers, OTP codes and attempts, payments and checkouts that settle over server-sent events), with the
// story's own faults on top. Bodies come from the element tests' builders, typed by the protocol schemas.
import {
  SseStream,
  checkout,
  checkoutCreated,
  fakeToken,
  hang,
  json,
  offline,
  otpSent,
  payment,
  problem,
  type FakeRequest,
} from '../../test/elements/fake-proxy.js';
import type { CheckoutViewStatus, PaymentViewStatus, ProxyErrorCode } from '../../src/protocol/codes.js';
import type { PROXY_PATHS } from '../../src/protocol/paths.js';
import type { CheckoutSnapshot, OtpVerifyResponse, PaymentSnapshot } from '../../src/protocol/schemas.js';
import { lookUp, maskName, maskPhone, normalise } from './test-numbers.js';

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
  otp?: { code?: string; lifetime?: number; cooldown?: number; attempts?: number };
  /** Milliseconds before a payment (or a checkout with an `outcome`) reaches its final status. */
  settleAfter?: number;
  /** A checkout's final status; unset, it waits for the fake hosted page (popup and tab modes). */
  checkoutOutcome?: CheckoutViewStatus;
}

/** Milliseconds a payment or checkout stays pending by default: long enough to be seen. */
const SETTLE_AFTER = 1000;

/** The correct OTP unless a story says otherwise. */
export const OTP_CODE = '123456';

const HTTP_STATUS: Partial<Record<ProxyErrorCode, number>> = {
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  RATE_LIMITED: 429,
  OTP_EXPIRED: 410,
  OTP_LOCKED: 423,
  ACCOUNT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  INSUFFICIENT_FUNDS: 402,
  ATTEMPTS_EXHAUSTED: 409,
  UPSTREAM_UNAVAILABLE: 503,
  UPSTREAM_ERROR: 502,
};

/** A protocol error response, with `Retry-After` when it says when to retry. */
export function refuse({ error, details = {} }: Refusal): Response {
  const res = problem(HTTP_STATUS[error] ?? 400, error, details);
  if (typeof details['retryAfter'] == 'number') res.headers.set('retry-after', String(details['retryAfter']));
  return res;
}

interface SentOtp {
  otpId: string;
  msisdn: string;
  code: string;
  expiresAt: number;
  attemptsLeft: number;
  receiptReads: number;
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
  private readonly otps = new Map<string, SentOtp>();
  private readonly lastSend = new Map<string, number>();
  private readonly payments = new Map<string, PaymentSnapshot>();
  /** Payments the provider refused at initiation; the reference of the last one while it is free. */
  private refusals = 0;
  private refused?: string | undefined;
  private readonly checkouts = new Map<string, CheckoutSnapshot>();
  /** Open event streams by payment reference or checkout id. */
  private readonly streams = new Map<string, SseStream[]>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(readonly options: FakeProxyOptions = {}) {
    // Unique per story visit: the token keys this proxy, and its order reference keys pay-by-mobile's
    // sessionStorage entry, so a payment left pending in another story (or an earlier visit) is not resumed.
    const key = `${Date.now().toString(36)}${++serial}`;
    this.claims = { aud: 'merchant-elements', ...options.claims, jti: key, referenceNo: `ORDER-${key.toUpperCase()}` };
    this.token = fakeToken(this.claims);
    this.offlineLeft = new Set(options.offline);
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
        return this.sendOtp(req.body.recipient);
      case 'otpVerify':
        return this.verifyOtp(req.body.recipient, req.body.code);
      case 'otpDelivery':
        return this.delivery(id);
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

  // ---- OTP ---------------------------------------------------------------------------------------

  private sendOtp(recipient: string) {
    const msisdn = normalise(recipient);
    if (!msisdn) return refuse({ error: 'INVALID_PHONE_NUMBER' });
    const { code = OTP_CODE, lifetime = 300, cooldown = 60, attempts = 5 } = this.options.otp ?? {};
    const wait = (this.lastSend.get(msisdn) ?? 0) + cooldown * 1000 - Date.now();
    if (wait > 0) return refuse({ error: 'RATE_LIMITED', details: { retryAfter: Math.ceil(wait / 1000) } });
    this.lastSend.set(msisdn, Date.now());
    const otp: SentOtp = { otpId: `otp_${++serial}`, msisdn, code, expiresAt: Date.now() + lifetime * 1000, attemptsLeft: attempts, receiptReads: 0 };
    this.otps.set(msisdn, otp);
    return json(
      otpSent({
        otpId: otp.otpId,
        recipient: maskPhone(msisdn),
        expiresAt: new Date(otp.expiresAt).toISOString(),
        resendAt: new Date(Date.now() + cooldown * 1000).toISOString(),
        attemptsLeft: attempts,
        pinLength: code.length,
      }),
    );
  }

  private verifyOtp(recipient: string, code: string) {
    const msisdn = normalise(recipient);
    if (!msisdn) return refuse({ error: 'INVALID_PHONE_NUMBER' });
    const otp = this.otps.get(msisdn);
    if (!otp || Date.now() >= otp.expiresAt) return refuse({ error: 'OTP_EXPIRED' });
    if (otp.attemptsLeft == 0) return refuse({ error: 'OTP_LOCKED', details: { reason: 'code' } });
    if (code != otp.code) return refuse({ error: 'OTP_INVALID', details: { attemptsLeft: --otp.attemptsLeft } });
    this.otps.delete(msisdn);
    const proof = fakeToken({ scope: 'otp-proof', sub: msisdn, purpose: this.claims['purpose'], exp: Date.now() / 1000 + 600 });
    return json({ verified: true, proof } satisfies OtpVerifyResponse);
  }

  /** The first read finds no receipt yet (`ACCEPTED`); later ones the number's final status. */
  private delivery(otpId: string) {
    const otp = [...this.otps.values()].find((o) => o.otpId == otpId);
    if (!otp) return refuse({ error: 'NOT_FOUND' });
    return json({ deliveryStatus: otp.receiptReads++ ? lookUp(otp.msisdn).sms : 'ACCEPTED' });
  }

  // ---- Payments ----------------------------------------------------------------------------------

  private lookUpAccount(typed: string) {
    const msisdn = normalise(typed);
    if (!msisdn) return refuse({ error: 'INVALID_PHONE_NUMBER' });
    const { accountName, network } = lookUp(msisdn);
    return accountName ? json({ accountName: maskName(accountName), network, msisdn }) : refuse({ error: 'ACCOUNT_NOT_FOUND' });
  }

  private createPayment(typed: string) {
    const msisdn = normalise(typed);
    if (!msisdn) return refuse({ error: 'INVALID_PHONE_NUMBER' });
    const pending = [...this.payments.values()].find((p) => p.status == 'PENDING');
    if (pending) return json(pending, 202); // a double click never charges twice
    const max = Number(this.claims['maxAttempts'] ?? 3);
    // As the real proxy: a refused attempt counts, but its reference is free and the next attempt takes it.
    const free = this.refused;
    const used = this.payments.size - (free ? 1 : 0) + this.refusals;
    if (used >= max) return refuse({ error: 'ATTEMPTS_EXHAUSTED' });
    const n = this.payments.size + (free ? 0 : 1);
    this.refused = undefined;
    const amount = Number(this.claims['amount']);
    const orderReference = String(this.claims['referenceNo']);
    const p = payment({ reference: `${orderReference}-${n}`, orderReference, amount, totalAmount: amount, attempt: used + 1, attemptsLeft: max - used - 1 });
    this.payments.set(p.reference, p);
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
