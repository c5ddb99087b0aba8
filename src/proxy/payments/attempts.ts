import type { PaymentViewStatus } from '../../protocol/index.js';

/**
 * Where one attempt's `POST /v1/payment` stands:
 * - `initiating`: the call is in flight (other requests wait for it);
 * - `sent`: the provider has the payment, or may have it (outcome unknown, reconciled by the relay);
 * - `refused`: the provider refused it (`0400`) and a status read confirmed it has no such payment; it
 *   counts as an attempt, but its reference number is free again;
 * - `void`: the provider certainly never processed it; it does not count, and its number is free again.
 */
export type AttemptPhase = 'initiating' | 'sent' | 'refused' | 'void';

/** One attempt of an order, as the order record lists it: one entry per reference number. */
export interface AttemptEntry {
  /** 1-based reference number; the upstream `referenceNo` is `${orderReference}-${n}`. */
  n: number;
  reference: string;
  /** jti of the token that made it. */
  jti: string;
  phase: AttemptPhase;
  /** Epoch ms when the initiation started (the lease of an `initiating` entry runs from here). */
  startedAt: number;
  /** The paying number (digits), so a request naming another one is told which number the order waits on. */
  msisdn?: string;
}

/**
 * What the first payment of an order fixed (DESIGN: an order is paid at most once, at its token's price).
 * A token of the same order reference with other terms is refused with `ORDER_CHANGED`.
 */
export interface OrderTerms {
  amount: number;
  currency: string;
  payee: string;
  narration: string;
  /** The number the token locked, or null when the customer chooses it. */
  msisdn: string | null;
}

/**
 * Every attempt made for one order reference, whichever token made it: attempts are counted per order
 * (a page reload mints a new token, never a new allowance).
 *
 * Reference numbers are contiguous over the payments the provider has: attempt `n + 1` is sent only once
 * `n` is read FAILED or CANCELLED, and a number the provider never recorded (void or refused) is used
 * again by the next attempt. So after the proxy loses all its state it recovers the order by reading
 * `ORDER-1`, `ORDER-2`, ... until one is not found (`probed` false until then), and never sends a
 * reference the provider already has.
 */
export interface OrderRecord {
  orderReference: string;
  terms?: OrderTerms;
  attempts: AttemptEntry[];
  /** Attempts the provider refused outright (their numbers are reused, their count is not). */
  refusals: number;
  /** True once a status read showed the next reference unknown upstream (history recovered or new). */
  probed: boolean;
}

/** What `POST /payments` must do, decided from the order record alone (plus the current payment's status). */
export type AttemptDecision =
  /** The current attempt is pending, completed, or not yet read final: answer with it (never a second charge). */
  | { kind: 'existing'; entry: AttemptEntry }
  /** The current attempt's initiation is in flight elsewhere: wait for its outcome. */
  | { kind: 'wait'; entry: AttemptEntry }
  /** An initiation whose process vanished (lease passed): its outcome is unknown; reconcile it. */
  | { kind: 'stale'; entry: AttemptEntry }
  /** Start attempt `n` (after reading `reference` upstream first when the order is not `probed`). */
  | { kind: 'new'; n: number; reference: string }
  /** The order has used all its attempts. */
  | { kind: 'exhausted' };

/** The upstream `referenceNo` of attempt `n` of an order. */
export function attemptReference(orderReference: string, n: number): string {
  return `${orderReference}-${n}`;
}

/** A new, empty order record. */
export function emptyOrder(orderReference: string): OrderRecord {
  return { orderReference, attempts: [], refusals: 0, probed: false };
}

/** The attempt that decides what happens next: the highest-numbered one the provider has (or may have). */
export function currentAttempt(order: OrderRecord | null): AttemptEntry | undefined {
  if (!order) return undefined;
  let best: AttemptEntry | undefined;
  for (const entry of order.attempts) {
    if ((entry.phase === 'sent' || entry.phase === 'initiating') && (!best || entry.n > best.n)) best = entry;
  }
  return best;
}

/** Attempts of the order that count against `maxAttempts`: every one the provider has, plus its refusals. */
export function attemptsUsed(order: OrderRecord | null): number {
  return order ? order.attempts.filter((a) => a.phase === 'sent').length + order.refusals : 0;
}

export interface DecideInput {
  maxAttempts: number;
  now: number;
  /** How long an `initiating` entry is trusted to belong to a live request. */
  leaseMs: number;
  /** Status of the current attempt's payment; null when its record is missing. */
  currentStatus: PaymentViewStatus | null;
}

/**
 * The attempt state machine of `POST /payments` (DESIGN: payment attempts and money safety). A new attempt
 * opens only after the current one is read FAILED or CANCELLED: PENDING, COMPLETED, TIMED_OUT (our own
 * deadline, not a money state) and a missing record all answer with the current attempt.
 */
export function decideAttempt(order: OrderRecord, input: DecideInput): AttemptDecision {
  const current = currentAttempt(order);
  if (current?.phase === 'initiating') {
    return input.now - current.startedAt > input.leaseMs ? { kind: 'stale', entry: current } : { kind: 'wait', entry: current };
  }
  if (current && input.currentStatus !== 'FAILED' && input.currentStatus !== 'CANCELLED') {
    return { kind: 'existing', entry: current };
  }
  if (attemptsUsed(order) >= input.maxAttempts) return { kind: 'exhausted' };
  const n = (current?.n ?? 0) + 1;
  return { kind: 'new', n, reference: attemptReference(order.orderReference, n) };
}

/** The order record with attempt `n` replaced by `change(entry)`. */
export function withAttempt(order: OrderRecord, n: number, change: (entry: AttemptEntry) => AttemptEntry): OrderRecord {
  return { ...order, attempts: order.attempts.map((a) => (a.n === n ? change(a) : a)) };
}

/** The order record with `entry` in the place of number `entry.n` (a free number taken again, or a new one). */
export function putAttempt(order: OrderRecord, entry: AttemptEntry): OrderRecord {
  return { ...order, attempts: [...order.attempts.filter((a) => a.n !== entry.n), entry].sort((a, b) => a.n - b.n) };
}

/** Attempts the order still allows after the ones it used. */
export function attemptsLeft(order: OrderRecord | null, maxAttempts: number): number {
  return Math.max(0, maxAttempts - attemptsUsed(order));
}

/** The names of the terms in which a token differs from the order's fixed terms (empty when none). */
export function changedTerms(fixed: OrderTerms | undefined, token: OrderTerms): Array<keyof OrderTerms> {
  if (!fixed) return [];
  const names: Array<keyof OrderTerms> = ['amount', 'currency', 'payee', 'narration', 'msisdn'];
  return names.filter((name) => fixed[name] !== token[name]);
}
