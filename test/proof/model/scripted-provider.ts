/**
 * The provider of the model test: its two money interfaces in memory, scripted. Every call crosses two points
 * the scheduler orders (the request on its way, the answer on its way back), so a request lands (or not) and
 * its answer arrives (or is lost) in whatever order fast-check picks, among every other instance's calls.
 * Faults are queued by the model's commands and taken by the next call of their kind.
 */
import { ProviderNotFoundError, ProviderUnavailableError, ProviderValidationError } from '../../../src/provider/errors.js';
import type { ProviderClient } from '../../../src/provider/types.js';

export type StatusReference = 'either' | 'referenceNo' | 'referenceId';

/** What can go wrong with the next call of a kind. */
export type Fault =
  /** It lands; its answer is lost (a timeout, a reset). */
  | 'lose-answer'
  /** Its answer is lost and it lands later (a `LandLate` command), if within the landing bound. */
  | 'land-late'
  /** A 503 answer; it lands later all the same (a gateway that passed it on), if within the bound. */
  | '503-late'
  /** Never sent (connection refused). */
  | 'down'
  /** A status read fails (a GET: nothing changes). */
  | 'read-error'
  /** A payment refused with `0400 Bad Request` and no words, which the gateway processes all the same: it lands later, within the bound. */
  | '0400-late';

export interface ProviderPayment {
  referenceNo: string;
  referenceId: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
  amount: number;
  payee: string;
  narration: string;
  msisdn: string;
  callbackId: string;
  /** True for a payment another shop made under one of our references (the foreign-terms command). */
  foreign?: boolean;
  /** When the request landed, and when the payment became final (the model's clock). */
  landedAt?: number;
  finalAt?: number;
  /** True once it completed after the provider had called it CANCELLED (`flip`): a charge the provider made. */
  flipped?: boolean;
}

export interface ProviderSession {
  checkoutId: string;
  reference: string;
  amount: number;
  status: 'pending' | 'completed' | 'failed' | 'cancelled' | 'expired';
  expiresAt: number;
  /** True once a customer was given its URL (only then can anyone pay it). */
  reachable: boolean;
  /** When it was created (the model's clock). */
  createdAt?: number;
  /** When it completed. */
  completedAt?: number;
  /** True once it completed after the provider had called it expired (`flipSession`). */
  flipped?: boolean;
  /** When it completes after its expiry (`flipSession`). */
  flipAt?: number;
}

/** A number the provider refuses in words (insufficient funds), as the sandbox's 233240000002. */
export const BROKE = '233240000002';
/** How long after its send a late request may still land: shorter than the proxy's grace (DESIGN). */
export const LANDING_BOUND_MS = 10_000;
export const SESSION_TTL_MS = 30_000;
/**
 * How long after the provider called a payment CANCELLED, or a session expired, it may still complete (the
 * `late` era's `flip`): the specification shows no transition after the first final status, so the proxy
 * designs for one; well within the reconcile window of the proxy's own reading (DESIGN: reads never regress).
 */
export const FLIP_BOUND_MS = 60_000;

export interface ScriptedProviderOptions {
  statusReference: StatusReference;
  lists: boolean;
  /**
   * A read's answer takes a trip of its own back, a scheduling point after the provider looked: time may pass
   * and requests land between what a read saw and when the proxy learns it (false: the runs found before
   * reads had that trip, which replay only without it).
   */
  readsInFlight: boolean;
  now(): number;
  /** A scheduling point: resolves when the scheduler lets this call go on. */
  step(label: string): Promise<void>;
  newId(): string;
}

export class ScriptedProvider {
  readonly payments = new Map<string, ProviderPayment>();
  readonly sessions = new Map<string, ProviderSession>();
  private readonly faults = new Map<'payment' | 'read' | 'checkout', Fault[]>();
  /** Requests whose answer was lost and that may still land: applied by `landLate`. */
  readonly late: Array<{ at: number; land: () => void }> = [];
  /** Callbacks of payments that reached a final state, not yet delivered. */
  readonly callbacks: Array<{ callbackId: string; referenceId: string }> = [];
  /** Payments declined that the provider will complete after all (`flip`), and when. */
  readonly flips: Array<{ payment: ProviderPayment; at: number; callback: boolean }> = [];
  /** Flips waiting for the order's next payment to land, by the prefix of its references. */
  private readonly intents = new Map<string, { callback: boolean; delayMs: number }>();
  /** Session flips waiting for the order's next session, by its reference. */
  private readonly sessionIntents = new Map<string, number>();
  /** Every initiation that reached the provider. */
  initiations = 0;

  constructor(private readonly o: ScriptedProviderOptions) {}

  queue(kind: 'payment' | 'read' | 'checkout', fault: Fault): void {
    this.faults.set(kind, [...(this.faults.get(kind) ?? []), fault]);
  }

  private take(kind: 'payment' | 'read' | 'checkout'): Fault | undefined {
    return this.faults.get(kind)?.shift();
  }

  /** Lands the oldest late request, if it is still within the landing bound (else it never lands). */
  landLate(): void {
    const next = this.late.shift();
    if (next && this.o.now() - next.at <= LANDING_BOUND_MS) next.land();
  }

  /** A payment of another shop under `referenceNo`, with other terms (one provider account, no prefix). */
  foreignPayment(referenceNo: string, amount = 99): void {
    if (this.payments.has(referenceNo)) return;
    const referenceId = this.o.newId();
    this.payments.set(referenceNo, { referenceNo, referenceId, status: 'COMPLETED', amount, payee: 'Other Shop', narration: 'Theirs', msisdn: '233240000009', callbackId: 'x', foreign: true });
  }

  /** The customer answers the prompt of the order's payment waiting on the phone. */
  answer(prefix: string, status: 'COMPLETED' | 'CANCELLED'): void {
    for (const p of this.payments.values()) {
      if (p.referenceNo.startsWith(prefix) && p.status === 'PENDING' && !p.foreign) {
        p.status = status;
        p.finalAt = this.o.now();
        this.callbacks.push({ callbackId: p.callbackId, referenceId: p.referenceId });
        return;
      }
    }
  }

  /**
   * The customer declines the order's payment waiting on the phone (its callback sent, as `answer`), and the
   * provider completes it after all `delayMs` later (a late approval it took), calling back then or not; or, if
   * none waits, a payment of the order it called CANCELLED within `FLIP_BOUND_MS` completes now; if there is
   * none either, so does the next payment of the order to land. Due flips happen when time passes (`tick`)
   * and before any read.
   */
  flip(prefix: string, callback: boolean, delayMs: number): void {
    const mine = [...this.payments.values()].filter((p) => p.referenceNo.startsWith(prefix) && !p.foreign);
    const waiting = mine.find((p) => p.status === 'PENDING');
    if (waiting) {
      this.answer(prefix, 'CANCELLED');
      this.flips.push({ payment: waiting, at: this.o.now() + delayMs, callback });
      return;
    }
    const declined = mine.find((p) => p.status === 'CANCELLED' && this.o.now() - p.finalAt! <= FLIP_BOUND_MS);
    if (declined) this.flips.push({ payment: declined, at: this.o.now(), callback });
    // None yet: the next payment of the order to land is declined as it lands, and completes later.
    else this.intents.set(prefix, { callback, delayMs });
    this.tick();
  }

  /**
   * A session of the order is paid after all `delayMs` after it expired (if its customer had its URL); if the
   * order has none open or expired, so is its next session to be created.
   */
  flipSession(reference: string, delayMs: number): void {
    for (const s of this.sessions.values()) {
      if (s.reference === reference && s.flipAt === undefined && (this.statusOf(s) === 'pending' || this.statusOf(s) === 'expired')) {
        s.flipAt = Math.max(this.o.now(), s.expiresAt + delayMs);
        this.statusOf(s);
        return;
      }
    }
    this.sessionIntents.set(reference, delayMs);
  }

  /** Every due flip happened, and every session's status is its status now (before the rules are checked). */
  settle(): void {
    this.tick();
    for (const session of this.sessions.values()) this.statusOf(session);
  }

  /** The flips that are due happen. */
  tick(): void {
    const now = this.o.now();
    for (const f of this.flips.filter((x) => x.at <= now)) {
      this.flips.splice(this.flips.indexOf(f), 1);
      const p = f.payment;
      if (p.status !== 'CANCELLED') continue;
      Object.assign(p, { status: 'COMPLETED', flipped: true, finalAt: f.at });
      if (f.callback) this.callbacks.push({ callbackId: p.callbackId, referenceId: p.referenceId });
    }
  }

  /** The customer pays a session they were sent to, before it expires. */
  paySession(reference: string): void {
    for (const s of this.sessions.values()) {
      if (s.reference === reference && s.reachable && this.statusOf(s) === 'pending') {
        s.status = 'completed';
        s.completedAt = this.o.now();
        return;
      }
    }
  }

  private statusOf(s: ProviderSession): ProviderSession['status'] {
    if (s.status === 'pending' && this.o.now() > s.expiresAt) s.status = 'expired';
    if (s.status === 'expired' && s.reachable && s.flipAt !== undefined && this.o.now() >= s.flipAt) Object.assign(s, { status: 'completed', flipped: true, completedAt: s.flipAt });
    return s.status;
  }

  private land(body: { amount: number; referenceNo: string; payee: string; narration: string; msisdn: string; callbackId: string }): ProviderPayment | Error {
    this.initiations++;
    if (this.payments.has(body.referenceNo)) return refusal('0400', 'Bad Request');
    if (body.msisdn === BROKE) return refusal('INSUFFICIENT_FUNDS', 'Customer has insufficient funds');
    const p: ProviderPayment = { ...body, referenceId: this.o.newId(), status: 'PENDING', landedAt: this.o.now() };
    this.payments.set(body.referenceNo, p);
    // At most one intent is the order's (one prefix per order); the flip finds this payment waiting.
    const prefix = [...this.intents.keys()].find((x) => body.referenceNo.startsWith(x));
    const intent = prefix === undefined ? undefined : this.intents.get(prefix);
    if (prefix !== undefined && intent) {
      this.intents.delete(prefix);
      this.flip(prefix, intent.callback, intent.delayMs);
    }
    return p;
  }

  /** The client the proxy is given: the money interfaces the order uses, nothing else. */
  client(): ProviderClient {
    const { step } = this.o;
    const unusedGroup = new Proxy({}, { get: () => () => Promise.reject(new Error('not in the model')) });
    return {
      sms: unusedGroup as ProviderClient['sms'],
      otp: unusedGroup as ProviderClient['otp'],
      email: unusedGroup as ProviderClient['email'],
      account: unusedGroup as ProviderClient['account'],
      circuitState: () => 'closed',
      payments: {
        initiate: async (body) => {
          await step('payment request on its way');
          const fault = this.take('payment');
          if (fault === 'down') throw unavailable('payments.initiate', 'network', false);
          if (fault === 'land-late' || fault === '503-late' || fault === '0400-late') {
            this.late.push({ at: this.o.now(), land: () => void this.land(body) });
            if (fault === '0400-late') throw refusal('0400', 'Bad Request');
            throw fault === '503-late' ? unavailable('payments.initiate', 'http', false, 503) : unavailable('payments.initiate', 'timeout', true);
          }
          const landed = this.land(body);
          await step('payment answer on its way');
          if (fault === 'lose-answer') throw unavailable('payments.initiate', 'timeout', true);
          if (landed instanceof Error) throw landed;
          return { statusCode: '0001', statusMessage: 'PENDING', transactionId: 't', data: { amount: body.amount, charge: 0, totalAmount: body.amount, referenceId: landed.referenceId }, links: [] } as never;
        },
        status: async (reference) => {
          await step('status read');
          this.tick();
          if (this.take('read') === 'read-error') throw unavailable('payments.status', 'timeout', false);
          const mode = this.o.statusReference;
          const byNo = mode === 'referenceId' ? undefined : this.payments.get(reference);
          const byId = mode === 'referenceNo' ? undefined : [...this.payments.values()].find((p) => p.referenceId === reference);
          const p = byId ?? byNo;
          const data = p && { reference: p.referenceNo, status: p.status, amount: p.amount, charge: 0, totalAmount: p.amount, payee: p.payee, payer: p.msisdn, narration: p.narration, msisdn: p.msisdn, completedAt: p.status === 'COMPLETED' ? new Date(0).toISOString() : null };
          await this.answerTrip('status answer on its way');
          if (!data) throw new ProviderNotFoundError({ message: 'Transaction not found', operation: 'payments.status', status: 404, code: '0404' });
          return { statusCode: '0000', statusMessage: 'Successful', transactionId: 't', data, links: [] } as never;
        },
        accountHolder: () => Promise.reject(new Error('not in the model')),
      },
      checkout: {
        initialize: async (body) => {
          await step('checkout request on its way');
          const fault = this.take('checkout');
          if (fault === 'down') throw unavailable('checkout.initialize', 'network', false);
          const s: ProviderSession = { checkoutId: this.o.newId(), reference: body.reference, amount: body.amount, status: 'pending', expiresAt: this.o.now() + SESSION_TTL_MS, reachable: false };
          const create = () => {
            s.createdAt = this.o.now();
            this.sessions.set(s.checkoutId, s);
            const delayMs = this.sessionIntents.get(s.reference);
            if (delayMs === undefined) return;
            this.sessionIntents.delete(s.reference);
            this.flipSession(s.reference, delayMs);
          };
          if (fault === 'land-late' || fault === '503-late') {
            this.late.push({ at: this.o.now(), land: create });
            throw fault === '503-late' ? unavailable('checkout.initialize', 'http', false, 503) : unavailable('checkout.initialize', 'timeout', true);
          }
          create();
          await step('checkout answer on its way');
          if (fault === 'lose-answer') throw unavailable('checkout.initialize', 'timeout', true);
          const iso = (ms: number) => new Date(ms).toISOString();
          return { checkoutId: s.checkoutId, checkoutUrl: `https://pay.example/checkout/${s.checkoutId}`, status: 'active', title: body.title, reference: body.reference, amount: body.amount, description: body.description, returnUrl: body.returnUrl, createdAt: iso(0), expiresAt: iso(s.expiresAt) } as never;
        },
        status: async (checkoutId) => {
          await step('checkout status read');
          if (this.take('read') === 'read-error') throw unavailable('checkout.status', 'timeout', false);
          const s = this.sessions.get(checkoutId);
          const described = s && this.describe(s);
          await this.answerTrip('checkout status answer on its way');
          if (!described) throw new ProviderNotFoundError({ message: 'Checkout session not found', operation: 'checkout.status', status: 404, code: 'NOT_FOUND' });
          return described as never;
        },
        sessions: async (reference) => {
          await step('checkout listing');
          if (!this.o.lists) throw new ProviderNotFoundError({ message: 'Resource not found', operation: 'checkout.sessions', status: 404, code: 'NOT_FOUND' });
          if (this.take('read') === 'read-error') throw unavailable('checkout.sessions', 'timeout', false);
          const sessions = [...this.sessions.values()].filter((s) => s.reference === reference).map((s) => ({ ...this.describe(s), reference: s.reference }));
          await this.answerTrip('checkout listing answer on its way');
          return { sessions } as never;
        },
      },
    };
  }

  /** A read's answer on its way back (when reads are in flight): what it says was read before. */
  private async answerTrip(label: string): Promise<void> {
    if (this.o.readsInFlight) await this.o.step(label);
  }

  private describe(s: ProviderSession) {
    const iso = (ms: number) => new Date(ms).toISOString();
    const status = this.statusOf(s);
    return { checkoutId: s.checkoutId, status, amount: s.amount, currency: 'GHS', createdAt: iso(0), expiresAt: iso(s.expiresAt), ...(status === 'completed' ? { completedAt: iso(0) } : {}) };
  }
}

function refusal(code: string, message: string): ProviderValidationError {
  return new ProviderValidationError({ message, operation: 'payments.initiate', status: 400, code, sent: true });
}

function unavailable(operation: string, reason: 'http' | 'timeout' | 'network', outcomeUnknown: boolean, status = 0): ProviderUnavailableError {
  return new ProviderUnavailableError({ message: 'unavailable', operation, reason, outcomeUnknown, status });
}
