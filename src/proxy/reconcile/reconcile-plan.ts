import {
  isLiveSession,
  isLiveTry,
  mayLandLate,
  nextNumber,
  tryByReference,
  type CheckoutTry,
  type Order,
  type PaymentTry,
} from '../order/order-record.js';
import { canRead, type ViewEnv } from '../order/views.js';

/** One read the reconciler owes an order. */
export type DueRead =
  | { kind: 'payment'; reference: string; referenceId: string | null }
  | { kind: 'session'; checkoutId: string }
  | { kind: 'list-sessions' }
  /** Try number `n` of the order, read before anything new is sent (its payments' history unread). */
  | { kind: 'probe-payment'; n: number };

export interface PlanEnv extends ViewEnv {
  now: number;
  /** True when the provider lists checkout sessions by reference. */
  listsSessions: boolean;
  /** How long after a try or session started it is still read (24 h by default). */
  reconcileWindowMs: number;
}

/**
 * A void that may land late (found by nobody, or absent in the operator's word) is read on slowly until the
 * window ends, where a read can see it: a request that lands late is still found.
 */
function readsLate(order: Order, t: PaymentTry, env: PlanEnv): boolean {
  return mayLandLate(t) && env.now - (t.sentAt ?? t.updatedAt) < env.reconcileWindowMs && tryByReference(order, t.reference) === t && canRead(t, env);
}

/**
 * A try read FAILED or CANCELLED, or a session read failed, cancelled or expired, is read again now and then
 * within the reconcile window of that reading: the specification shows no transition after the first, so a
 * late completion is possible, and nothing else would read it unless the provider called back. Not live: it
 * blocks nothing, and its reads space out with its age (`recheckDelay`).
 */
function rechecked(order: Order, t: PaymentTry, env: PlanEnv): boolean {
  return (t.phase === 'failed' || t.phase === 'cancelled') && env.now - t.updatedAt < env.reconcileWindowMs && tryByReference(order, t.reference) === t && canRead(t, env);
}

function sessionRechecked(s: CheckoutTry, env: PlanEnv): boolean {
  return (s.phase === 'failed' || s.phase === 'cancelled' || s.phase === 'expired') && s.checkoutId !== null && env.now - s.updatedAt < env.reconcileWindowMs;
}

/** The longest a final-unpaid try or session waits between its reads again. */
export const RECHECK_CEILING_MS = 2 * 60 * 60_000;

/**
 * How long until a final-unpaid try or session is read again: half the time since it was read so (at least a
 * minute: the slow cadence), at most `RECHECK_CEILING_MS`: 23 reads over a day's window with the defaults,
 * not 1,440 (one a minute) for every declined payment of a flash sale. Null when the order has none.
 */
export function recheckDelay(order: Order, env: PlanEnv & { lateIntervalMs: number }): number | null {
  const ages = [...order.tries.filter((t) => rechecked(order, t, env)), ...order.sessions.filter((s) => sessionRechecked(s, env))].map((x) => env.now - x.updatedAt);
  if (ages.length === 0) return null;
  return Math.min(Math.max(env.lateIntervalMs, Math.min(...ages) / 2), RECHECK_CEILING_MS);
}

/**
 * The provider's histories of an order put back from a copy (DESIGN: when the store loses records) that are
 * still to be read, within the reconcile window of its last change: the copy may be older than the record the
 * store lost, and a try or session made after it is known only to the provider. Read by the reconciler too,
 * not only before the next send or creation: with nobody coming back, a later try's completion would reach
 * the merchant never. An order with no try and no session yet (begun, nothing sent) waits for its first
 * request's own look.
 */
function historyDue(order: Order, env: PlanEnv): { payments: boolean; sessions: boolean } {
  const begun = (order.tries.length > 0 || order.sessions.length > 0) && env.now - order.updatedAt < env.reconcileWindowMs;
  return {
    payments: begun && order.history.payments === 'unread' && order.terms !== undefined && order.tries.length > 0,
    sessions: begun && order.history.sessions === 'unread' && env.listsSessions,
  };
}

/**
 * What the reconciler reads for an order now (pure): every try whose money state is not final and can be read
 * (by referenceNo, or by the referenceId the provider gave), every void found by nobody within the window,
 * every try and session read final unpaid within the window while no customer waits on the order, and with
 * them what the provider has beyond the record (the next number, the sessions), the provider's history of an
 * order put back, every open session, and the order's sessions upstream while one of ours is unknown and the
 * provider lists them. A try that no read can see waits for a callback or the
 * operator.
 */
export function readsDue(order: Order, env: PlanEnv): DueRead[] {
  const reads: DueRead[] = [];
  // A final-unpaid try or session waits while a customer waits on the order: read beside a customer's retry at
  // its fast cadence, it would double the reads of every retried payment. It does not wait for a live try or
  // session to end: one the provider leaves pending past its deadline may stay so past the window, and a late
  // completion waiting behind it would reach the merchant never. Past the deadline, nobody waits: it is read
  // at the slow cadence beside the live one.
  const recheck = !customerWaits(order, env);
  for (const t of order.tries) {
    if (tryByReference(order, t.reference) !== t) continue;
    const due = ((t.phase === 'unknown' || t.phase === 'pending') && canRead(t, env)) || readsLate(order, t, env) || (recheck && rechecked(order, t, env));
    if (due) reads.push({ kind: 'payment', reference: t.reference, referenceId: t.referenceId ?? t.hintedReferenceId ?? null });
  }
  for (const s of order.sessions) {
    if ((s.phase === 'open' || (recheck && sessionRechecked(s, env))) && s.checkoutId !== null) reads.push({ kind: 'session', checkoutId: s.checkoutId });
  }
  const history = historyDue(order, env);
  // The provider is the ledger: while an order's final-unpaid try or session is read again, so is what the
  // provider has beyond the record (the next number, the order's sessions). A record rolled back to before a
  // later try or session knew nothing of it, and that one's completion was never reported.
  const beyond = recheck && (order.tries.some((t) => rechecked(order, t, env)) || order.sessions.some((s) => sessionRechecked(s, env)));
  const listing = env.listsSessions && (beyond || order.sessions.some((s) => s.phase === 'unknown'));
  if (history.sessions || listing) reads.push({ kind: 'list-sessions' });
  if (history.payments || (beyond && env.readsByReferenceNo && (order.terms !== undefined || order.checkoutTerms !== undefined))) reads.push({ kind: 'probe-payment', n: nextNumber(order) });
  return reads;
}

/**
 * True while the order has money state that is not final, a void still read in case it lands late, a try or
 * session read final unpaid and still read again, or a history of the provider's still to be read after it
 * was put back.
 */
export function isUnsettled(order: Order, env: PlanEnv): boolean {
  return (
    order.tries.some((t) => isLiveTry(t) || readsLate(order, t, env) || rechecked(order, t, env)) ||
    order.sessions.some((s) => isLiveSession(s) || sessionRechecked(s, env)) ||
    unreadHistory(order, env)
  );
}

function unreadHistory(order: Order, env: PlanEnv): boolean {
  const due = historyDue(order, env);
  return due.payments || due.sessions;
}

/**
 * True while a customer waits on the order: a try being sent, or pending or unknown before its deadline; a
 * session being created, or open before its expiry.
 */
function customerWaits(order: Order, env: PlanEnv): boolean {
  return (
    order.tries.some((t) => t.phase === 'sending' || ((t.phase === 'pending' || t.phase === 'unknown') && env.now <= t.deadlineAt)) ||
    order.sessions.some((s) => s.phase === 'creating' || (s.phase === 'open' && s.expiresAt !== null && Date.parse(s.expiresAt) > env.now))
  );
}

/**
 * How soon the reconciler reads the order again: `fast` (its backoff) while a customer waits (a try pending
 * before its deadline, a send or creation under way, a session open before its expiry), `slow` (once a
 * minute) for what no page waits on anymore, `recheck` (`recheckDelay`) when only final-unpaid tries or
 * sessions are read again, `done` when nothing is left to read, and `unresolved` when
 * something is still not final at the end of the reconcile window (the operator's list).
 */
export function cadence(order: Order, env: PlanEnv): 'fast' | 'slow' | 'recheck' | 'done' | 'unresolved' {
  if (!isUnsettled(order, env)) return 'done';
  const startOf = (t: PaymentTry) => t.sentAt ?? t.updatedAt;
  if (unreadHistory(order, env) || customerWaits(order, env)) return 'fast';
  const stale =
    order.tries.some((t) => isLiveTry(t) && env.now - startOf(t) > env.reconcileWindowMs) ||
    order.sessions.some((s) => isLiveSession(s) && env.now - s.startedAt > env.reconcileWindowMs);
  if (stale) return 'unresolved';
  const rechecksOnly = !order.tries.some((t) => isLiveTry(t) || readsLate(order, t, env)) && !order.sessions.some(isLiveSession);
  return rechecksOnly ? 'recheck' : 'slow';
}
