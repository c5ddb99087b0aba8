import type { CheckoutSnapshot, PaymentSnapshot, PaymentViewStatus } from '../../protocol/index.js';
import { maskPhone } from '../phone.js';
import { completedTry, liveTry, triesUsed, type CheckoutTry, type Order, type PaymentTry } from './order-record.js';

/** What the views need to know of the provider: whether a try without its referenceId can be read at all. */
export interface ViewEnv {
  /** True when the provider's status path takes our `referenceNo` (modes `either` and `referenceNo`). */
  readsByReferenceNo: boolean;
}

/** True when a status read can find this try (by its referenceNo, or by a referenceId the provider gave or a callback named). */
export function canRead(t: PaymentTry, env: ViewEnv): boolean {
  return env.readsByReferenceNo || t.referenceId !== null || t.hintedReferenceId !== undefined;
}

/**
 * The status a page (and the merchant's `payments.get`) sees. An unknown try shows PENDING while reads can
 * settle it, UNKNOWN when none can (the page says the provider is being asked, and nothing new starts).
 */
export function viewStatus(order: Order, t: PaymentTry, env: ViewEnv): PaymentViewStatus {
  switch (t.phase) {
    case 'sending':
      return 'PENDING';
    case 'unknown':
      if (order.conflict?.reference === t.reference || !canRead(t, env)) return 'UNKNOWN';
      return t.timedOut ? 'TIMED_OUT' : 'PENDING';
    case 'void':
      return 'VOID';
    default:
      return said(t.phase, t.timedOut);
  }
}

/**
 * The status the merchant is told of (hooks, webhooks): only what the provider said (PENDING, COMPLETED,
 * FAILED, CANCELLED), our own deadline (TIMED_OUT, not final) and a refusal in words (FAILED). A try being
 * sent, unknown or void is not reported: it is no charge the merchant could act on, and reporting it would
 * risk telling VOID or FAILED of a payment that later completes.
 */
export function reportedStatus(t: PaymentTry): PaymentViewStatus | null {
  if (t.phase === 'sending' || t.phase === 'unknown' || t.phase === 'void') return null;
  return said(t.phase, t.timedOut);
}

/** The status of a try the provider answered (or refused in words). */
function said(phase: 'pending' | 'completed' | 'failed' | 'refused' | 'cancelled', timedOut: boolean | undefined): PaymentViewStatus {
  if (phase === 'pending') return timedOut ? 'TIMED_OUT' : 'PENDING';
  if (phase === 'completed') return 'COMPLETED';
  return phase === 'cancelled' ? 'CANCELLED' : 'FAILED';
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The browser's (and the merchant's) view of one try. */
export function paymentSnapshot(order: Order, t: PaymentTry, env: ViewEnv): PaymentSnapshot {
  const snapshot: PaymentSnapshot = {
    reference: t.reference,
    orderReference: order.ref,
    status: viewStatus(order, t, env),
    amount: t.amount,
    charge: t.charge,
    totalAmount: t.totalAmount,
    currency: order.terms?.currency ?? 'GHS',
    // Which try this is, refusals included, void ones (nothing reached the provider) not.
    attempt: order.tries.filter((x) => x.ordinal < t.ordinal && x.phase !== 'void').length + 1,
    attemptsLeft: Math.max(0, t.maxAttempts - triesUsed(order)),
    msisdn: maskPhone(t.msisdn),
    sentAt: iso(t.sentAt),
    promptExpiresAt: iso(t.promptExpiresAt),
    updatedAt: new Date(t.updatedAt).toISOString(),
    completedAt: t.completedAt,
  };
  if (t.failureCode !== undefined) snapshot.failureCode = t.failureCode;
  return snapshot;
}

/** A session's snapshot; only a session the provider gave an id has one. */
export function checkoutSnapshot(order: Order, s: CheckoutTry): CheckoutSnapshot | null {
  if (s.checkoutId === null) return null;
  return {
    checkoutId: s.checkoutId,
    reference: order.ref,
    status: s.status,
    amount: s.amount,
    currency: s.currency,
    updatedAt: new Date(s.updatedAt).toISOString(),
    completedAt: s.completedAt,
  };
}

/**
 * The try a page or the merchant is shown for the order: the completed one, else the live one, else the
 * last. Null before any.
 */
export function shownTry(order: Order): PaymentTry | undefined {
  return completedTry(order) ?? liveTry(order) ?? order.tries.at(-1);
}

/** The session shown for the order: its completed one, else its latest with an id. */
export function shownSession(order: Order): CheckoutTry | undefined {
  return order.sessions.find((s) => s.phase === 'completed') ?? order.sessions.findLast((s) => s.checkoutId !== null);
}

/** What a watcher of the try sees, to decide whether its sequence moves (everything but the clock). */
export function tryFace(order: Order, t: PaymentTry, env: ViewEnv): string {
  const { updatedAt: _u, ...rest } = paymentSnapshot(order, t, env);
  return JSON.stringify(rest);
}

export function sessionFace(order: Order, s: CheckoutTry): string {
  const snapshot = checkoutSnapshot(order, s);
  if (!snapshot) return s.phase;
  const { updatedAt: _u, ...rest } = snapshot;
  return JSON.stringify(rest);
}
