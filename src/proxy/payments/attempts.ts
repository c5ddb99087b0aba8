import type { PaymentViewStatus } from '../../protocol/index.js';

/**
 * Where one attempt's `POST /v1/payment` stands:
 * - `initiating`: the call is in flight (other requests wait for it);
 * - `sent`: the provider has the payment, or may have it (outcome unknown, reconciled by the relay);
 * - `void`: the provider certainly never processed it (refused before processing, or reconciled as not
 *   found); it does not count against the token's `maxAttempts`.
 */
export type AttemptPhase = 'initiating' | 'sent' | 'void';

/** One attempt of an order, as the order record lists it. */
export interface AttemptEntry {
  /** 1-based attempt number; the upstream `referenceNo` is `${orderReference}-${n}`. */
  n: number;
  reference: string;
  /** jti of the token that made it (maxAttempts is counted per token). */
  jti: string;
  phase: AttemptPhase;
  /** Epoch ms when the initiation started (the lease of an `initiating` entry runs from here). */
  startedAt: number;
}

/**
 * Every attempt made for one order reference, whichever token made it. Keyed by order reference, not
 * by token, so a token minted again for the same order (a page reload) neither reuses `ORDER-1`
 * upstream nor starts a second payment beside a pending one.
 */
export interface OrderRecord {
  orderReference: string;
  attempts: AttemptEntry[];
}

/** What `POST /payments` must do, decided from the order record alone (plus the current payment's status). */
export type AttemptDecision =
  /** The current attempt is pending or completed: answer with it (a double click never charges twice). */
  | { kind: 'existing'; entry: AttemptEntry }
  /** The current attempt's initiation is in flight elsewhere: wait for its outcome. */
  | { kind: 'wait'; entry: AttemptEntry }
  /** An initiation whose process vanished (lease passed): its outcome is unknown; reconcile it. */
  | { kind: 'stale'; entry: AttemptEntry }
  /** Start attempt `n`. */
  | { kind: 'new'; n: number; reference: string }
  /** The token has used all its attempts. */
  | { kind: 'exhausted' };

/** The upstream `referenceNo` of attempt `n` of an order. */
export function attemptReference(orderReference: string, n: number): string {
  return `${orderReference}-${n}`;
}

/** The attempt that decides what happens next: the last one that reached (or may have reached) the provider. */
export function currentAttempt(order: OrderRecord | null): AttemptEntry | undefined {
  if (!order) return undefined;
  for (let i = order.attempts.length - 1; i >= 0; i--) {
    const entry = order.attempts[i]!;
    if (entry.phase !== 'void') return entry;
  }
  return undefined;
}

/** Attempts of `jti` that count against its `maxAttempts` (every one but the void). */
export function attemptsUsed(order: OrderRecord | null, jti: string): number {
  return order ? order.attempts.filter((a) => a.jti === jti && a.phase !== 'void').length : 0;
}

export interface DecideInput {
  jti: string;
  maxAttempts: number;
  now: number;
  /** How long an `initiating` entry is trusted to belong to a live request. */
  leaseMs: number;
  /** Status of the current attempt's payment; null when its record is missing. */
  currentStatus: PaymentViewStatus | null;
}

/** The attempt state machine of `POST /payments` (DESIGN: payment attempts and money safety). */
export function decideAttempt(order: OrderRecord, input: DecideInput): AttemptDecision {
  const current = currentAttempt(order);
  if (current?.phase === 'initiating') {
    return input.now - current.startedAt > input.leaseMs ? { kind: 'stale', entry: current } : { kind: 'wait', entry: current };
  }
  if (current && (input.currentStatus === null || input.currentStatus === 'PENDING' || input.currentStatus === 'COMPLETED')) {
    return { kind: 'existing', entry: current };
  }
  if (attemptsUsed(order, input.jti) >= input.maxAttempts) return { kind: 'exhausted' };
  const n = Math.max(0, ...order.attempts.map((a) => a.n)) + 1;
  return { kind: 'new', n, reference: attemptReference(order.orderReference, n) };
}

/** The order record with attempt `n` replaced by `change(entry)`. */
export function withAttempt(order: OrderRecord, n: number, change: (entry: AttemptEntry) => AttemptEntry): OrderRecord {
  return { ...order, attempts: order.attempts.map((a) => (a.n === n ? change(a) : a)) };
}

/** Attempts the token still allows after the ones it used. */
export function attemptsLeft(order: OrderRecord | null, jti: string, maxAttempts: number): number {
  return Math.max(0, maxAttempts - attemptsUsed(order, jti));
}
