import type { ProxyErrorCode } from '../../protocol/index.js';
import type { Reply, Seen, TransitionEnv, UpstreamPayment } from './events.js';
import {
  completedSession,
  completedTry,
  liveSession,
  liveTry,
  nextNumber,
  type CheckoutTerms,
  type Order,
  type PaymentTerms,
} from './order-record.js';
import { viewStatus } from './views.js';

/** A refusal reply. */
export function refuse(code: ProxyErrorCode, message: string, details: Record<string, unknown> = {}): Reply {
  return { kind: 'refuse', code, message, details };
}

/**
 * The names of the payment terms in which a token differs from the order's (empty when none). A locked number
 * whose key is configured no more cannot be told the token's: it counts as changed (the token is refused, no
 * payment starts on a number the order may not have).
 */
export function changedPaymentTerms(order: Order, terms: PaymentTerms, env: Pick<TransitionEnv, 'numbers'>): string[] {
  if (order.terms) {
    const changed = differing(['amount', 'currency', 'payee', 'narration'], order.terms, terms);
    return sameLock(order.terms.msisdn, terms.msisdn, env) === true ? changed : [...changed, 'msisdn'];
  }
  return order.checkoutTerms && order.checkoutTerms.amount !== terms.amount ? ['amount'] : [];
}

/**
 * Whether a locked number as the order keeps it (a lock, or a full number) and a number given are one (both
 * none included); null when the lock's key is configured no more (docs/tokens.md: a retired secret is kept
 * for the record's life).
 */
function sameLock(kept: string | null, digits: string | null, env: Pick<TransitionEnv, 'numbers'>): boolean | null {
  if (kept === null || digits === null) return kept === digits;
  return env.numbers.holds(kept, digits);
}

/** The names of the checkout terms in which a token differs from the order's. */
export function changedCheckoutTerms(order: Order, terms: CheckoutTerms): string[] {
  if (order.checkoutTerms) return differing(['amount', 'title', 'description'], order.checkoutTerms, terms);
  return order.terms && order.terms.amount !== terms.amount ? ['amount'] : [];
}

const differing = <T>(names: readonly (keyof T & string)[], fixed: T, asked: T): string[] => names.filter((name) => fixed[name] !== asked[name]);

/**
 * True when an upstream payment is this order's (DESIGN: adopt only what is ours): its amount, payee and
 * narration are the order's, and so is its number when the token locked one. A payment under our reference
 * with other terms is another shop's (one provider account, no prefix) or another price's. A lock whose key
 * is configured no more compares nothing, as an order whose token locked no number: refusing the payment
 * would leave one the order made unreported (every final outcome reaches the merchant).
 */
export function isOurs(terms: PaymentTerms, tx: UpstreamPayment, env: Pick<TransitionEnv, 'numbers'>): boolean {
  return (
    tx.amount === terms.amount &&
    tx.payee === terms.payee &&
    tx.narration === terms.narration &&
    (terms.msisdn === null || sameLock(terms.msisdn, tx.msisdn, env) !== false)
  );
}

/**
 * What holds the order on the hosted checkout, seen from a mobile-money request: a completed session, or one
 * whose money state is not final (being created, unknown, open, or open past its expiry and not read final).
 */
export function heldByCheckout(order: Order): Reply | null {
  const done = completedSession(order);
  if (done) return otherMethod('checkout', 'completed');
  const live = liveSession(order);
  if (live) return otherMethod('checkout', live.phase === 'open' ? live.status : live.phase === 'creating' ? 'pending' : 'unknown');
  return null;
}

/** What holds the order on mobile money, seen from a checkout request. */
export function heldByMobileMoney(order: Order, env: TransitionEnv): Reply | null {
  const done = completedTry(order);
  if (done) return otherMethod('mobile-money', 'COMPLETED');
  const live = liveTry(order);
  if (live) return otherMethod('mobile-money', viewStatus(order, live, env));
  return null;
}

function otherMethod(method: 'checkout' | 'mobile-money', status: string): Reply {
  const how = method === 'checkout' ? 'on the hosted checkout page' : 'by mobile money';
  return refuse('ORDER_IN_OTHER_PAYMENT', `This order is already being paid ${how}.`, { method, status });
}

/** The order's reference is used upstream by a payment that is not ours. */
export function conflictRefusal(order: Order): Reply {
  return refuse(
    'REFERENCE_CONFLICT',
    'This order cannot be paid by mobile money: its reference is already used at the payment provider.',
    { orderReference: order.ref, reference: order.conflict?.reference },
  );
}

/**
 * The provider is the ledger (DESIGN): no store state starts a charge. Before a new try or session the
 * request reads what the provider has for the order, where it can be read: the reference number the next try
 * would take (found: adopted, and the number after it read; not found: free) and the order's sessions. The
 * record is only what this process can compare a read with: missing, stale, rolled back or restored, it costs
 * a read, never a second charge. Null once the request has read both.
 */
export function providerUnread(order: Order, seen: Seen, env: TransitionEnv): Reply | null {
  const n = nextNumber(order);
  if (env.readsByReferenceNo && seen.freeNumber !== n) return { kind: 'probe-payment', n, reference: env.references.attempt(order.ref, n) };
  if (env.listsSessions && !seen.sessionsListed) return { kind: 'probe-sessions', reference: env.references.checkout(order.ref) };
  return null;
}

/** Reads that could see a try or session and did not find it, in a row, since `since`. */
export interface NotFound {
  reads: number;
  since: number;
}

/**
 * One more read that could see it found nothing (DESIGN: unknown blocks everything). Certain (`'absent'`)
 * only the second time in a row, by a read started at least `graceMs` after the request was sent: the provider
 * may have looked as early as the read's start, and a request on its way can land until the grace after its
 * send. Otherwise the count goes on. `sentAt` is when the request was out at the latest: the claim's stamp,
 * until an answer leaving the outcome unknown is applied (`answeredUnknown`).
 */
export function notFoundAgain(notFound: NotFound | undefined, sentAt: number, readStartedAt: number, env: TransitionEnv): NotFound | 'absent' {
  const reads = (notFound?.reads ?? 0) + 1;
  if (reads >= 2 && readStartedAt - sentAt >= env.graceMs) return 'absent';
  return { reads, since: notFound?.since ?? env.now };
}

/**
 * A send's or creation's answer that leaves its outcome unknown (none, a 5xx, a 0400 without words): its
 * request was out by now, which may be long after the claim was stamped (the process stalled past its lease
 * in between). The grace counts from now, and reads made before count nothing: they may have looked before
 * the request left.
 */
export function answeredUnknown(stampedAt: number | null, now: number): { at: number; notFound: undefined } {
  return { at: Math.max(stampedAt ?? now, now), notFound: undefined };
}

/**
 * The terms a payment found under one of the order's references must have to be the order's (DESIGN: adopt
 * only what is ours): the order's or the asking token's payment terms; with none (an order paid, or being
 * paid, by checkout, which fixes no payee or narration), the order's price to this shop's payee, its
 * narration as found. Comparing the payee with the payment's own took another shop's payment at the same price
 * for ours (one provider account, no prefix).
 */
export function probeTerms(terms: PaymentTerms | undefined, amount: number, payeeName: string, found?: UpstreamPayment): PaymentTerms {
  return terms ?? { amount, currency: 'GHS', payee: found ? payeeName : '', narration: found ? found.narration : '', msisdn: null };
}
