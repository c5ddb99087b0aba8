import { maskPhone } from '../phone.js';
import type { OrderEvent, Reply, SendResult, Step, TransitionEnv, UpstreamPayment } from './events.js';
import {
  completedTry,
  liveTry,
  mayLandLate,
  nextNumber,
  triesUsed,
  tryByReference,
  withTry,
  type Order,
  type PaymentTry,
  type TryPhase,
} from './order-record.js';
import { cleared, taken } from './found-payment.js';
import { answeredUnknown, changedPaymentTerms, conflictRefusal, heldByCheckout, isOurs, notFoundAgain, providerUnread, refuse } from './order-rules.js';
import { viewStatus } from './views.js';

type PayEvent = Extract<OrderEvent, { type: 'pay' }>;
type SentEvent = Extract<OrderEvent, { type: 'sent' }>;
type ReadEvent = Extract<OrderEvent, { type: 'payment-read' }>;
type ProbeEvent = Extract<OrderEvent, { type: 'payment-probed' }>;

const none: Reply = { kind: 'none' };

/**
 * `POST /payments` (DESIGN: the order's state machine). In order: the token's terms must be the order's;
 * a completed payment answers; the other method holding the order refuses; the live try answers (a double
 * click charges once; another number is told where the prompt waits); a send under way is waited for; then,
 * with tries left and what the provider has read by this request (`providerUnread`), the next try is claimed
 * and sent.
 */
export function pay(order: Order, e: PayEvent, env: TransitionEnv): Step<Order> {
  const changed = changedPaymentTerms(order, e.terms, env);
  if (changed.length > 0) {
    return { order, reply: refuse('ORDER_CHANGED', 'This order was changed after its payment started. Reload the page.', { orderReference: order.ref, changed }) };
  }
  const done = completedTry(order);
  if (done) return { order, reply: { kind: 'payment', ordinal: done.ordinal } };
  const held = heldByCheckout(order);
  if (held) return { order, reply: held };
  if (order.conflict) return { order, reply: conflictRefusal(order) };

  // Time has passed first (`tickTries`): a send still `sending` is within its lease.
  const next = order;
  const live = liveTry(next);
  if (live?.phase === 'sending') return { order, reply: { kind: 'wait' } };
  if (live) {
    if (live.msisdn !== e.msisdn) {
      const masked = maskPhone(live.msisdn);
      return {
        order: next,
        reply: refuse('PAYMENT_IN_PROGRESS', `A payment prompt for this order is waiting on ${masked}. Approve or decline it there first.`, {
          msisdn: masked,
          reference: live.reference,
          status: viewStatus(next, live, env),
        }),
      };
    }
    return { order: next, reply: { kind: 'payment', ordinal: live.ordinal } };
  }
  if (triesUsed(next) >= e.maxAttempts) {
    return { order: next, reply: refuse('ATTEMPTS_EXHAUSTED', 'No more payment attempts are allowed for this order.', { attemptsLeft: 0 }) };
  }
  const unread = providerUnread(next, e.seen, env);
  if (unread) return { order: next, reply: unread };
  const fresh = newTry(next, nextNumber(next), env, {
    jti: e.jti,
    maxAttempts: e.maxAttempts,
    msisdn: e.msisdn,
    phase: 'sending',
    sendId: e.sendId,
    sentAt: env.now,
    callbackId: e.callbackId,
    amount: e.terms.amount,
    promptExpiresAt: e.promptLifetimeMs === null ? null : env.now + e.promptLifetimeMs,
  });
  return { order: { ...next, terms: next.terms ?? e.terms, tries: [...next.tries, fresh] }, reply: { kind: 'send', ordinal: fresh.ordinal } };
}

/** What a send's answer means; it counts only for its own send (a later send of the number has its own id). */
export function sent(order: Order, e: SentEvent, env: TransitionEnv): Step<Order> {
  const t = order.tries.find((x) => x.ordinal === e.ordinal);
  if (!t || t.sendId !== e.sendId) return { order, reply: none };
  const answer: Reply = { kind: 'payment', ordinal: t.ordinal };
  const r: SendResult = e.result;
  // Only a try still waiting on this answer learns from it (a read may already have settled it), and a try
  // found void whose request landed after all: an acceptance is the provider's word that the payment exists,
  // as a read finding it would be (a void number found revives), while no later try has taken its number.
  const landedAfterAll = r.kind === 'accepted' && mayLandLate(t) && tryByReference(order, t.reference) === t;
  if (t.phase !== 'sending' && t.phase !== 'unknown' && !landedAfterAll) return { order, reply: answerOf(t, answer) };
  switch (r.kind) {
    case 'accepted': {
      const next = withTry(order, t.ordinal, (x) => ({
        ...x,
        phase: 'pending',
        msisdn: e.msisdn,
        referenceId: r.referenceId,
        amount: r.amount,
        charge: r.charge,
        totalAmount: r.totalAmount,
        ...cleared,
      }));
      return { order: next, reply: answer };
    }
    case 'refused': {
      const next = withTry(order, t.ordinal, (x) => ({ ...x, phase: 'refused', failureCode: r.failureCode, ...cleared }));
      const left = Math.max(0, t.maxAttempts - triesUsed(next));
      return { order: next, reply: refusalOf(r.failureCode, t.reference, left) };
    }
    case 'refused-generic':
    case 'unknown': {
      // "Bad Request" may mean "this reference already exists": read before deciding anything. A try already
      // unknown (its lease ended) keeps its reason for "no answer"; either way its grace counts from now.
      const { at, notFound } = answeredUnknown(t.sentAt, env.now);
      const unknownReason = r.kind === 'refused-generic' ? 'refused' : t.phase === 'unknown' ? t.unknownReason : 'lost';
      return { order: withTry(order, t.ordinal, (x) => ({ ...x, phase: 'unknown', unknownReason, sentAt: at, notFound })), reply: answer };
    }
    case 'not-sent':
      if (t.phase !== 'sending') return { order, reply: answer };
      return { order: withTry(order, t.ordinal, (x) => ({ ...x, phase: 'void', voidReason: 'not-sent', ...cleared })), reply: none };
  }
}

/** The answer a try gives a request that waited on it. */
export function answerOf(t: PaymentTry, otherwise: Reply): Reply {
  if (t.phase === 'refused') return refusalOf(t.failureCode ?? 'PAYMENT_FAILED', t.reference, 0);
  return otherwise;
}

export function refusalOf(failureCode: string, reference: string, attemptsLeft: number): Reply {
  return failureCode === 'INSUFFICIENT_FUNDS'
    ? refuse('INSUFFICIENT_FUNDS', 'The account does not have enough funds for this payment.', { reference, attemptsLeft })
    : refuse('PAYMENT_FAILED', 'The payment could not be made.', { reference, attemptsLeft });
}

/**
 * A status read. Found, and ours: the try takes what the provider says (its number too), whatever it was
 * (a void or refused number found after all revives: the provider's word wins), but a final state never
 * goes back. Found with other terms: the order is in conflict and the try stays unknown. Not found by a read
 * that can see it, after the latest send, twice in a row, the second time by a read started `graceMs` after
 * its send (`notFoundAgain`): a generic refusal is a refusal, any other unknown outcome void.
 */
export function paymentRead(order: Order, e: ReadEvent, env: TransitionEnv): Step<Order> {
  const t = tryByReference(order, e.reference);
  if (!t) return { order, reply: none };
  const r = e.result;
  if (r.kind === 'found') {
    const terms = order.terms;
    if (terms && !isOurs(terms, r.tx, env)) {
      if (order.conflict) return { order, reply: none };
      return { order: { ...order, conflict: { reference: t.reference, at: env.now } }, reply: { kind: 'conflict', reference: t.reference } };
    }
    // A read that says what the try already says changes nothing, so nothing is written: at ten thousand
    // payments pending, a write of the record a read was most of the proxy's store commands and garbage.
    const found = taken(t, r.tx, r.referenceId);
    return { order: found === t ? order : withTry(order, t.ordinal, () => found), reply: none };
  }
  if (!r.canSee || t.phase !== 'unknown' || (t.sentAt !== null && e.startedAt < t.sentAt)) return { order, reply: none };
  const seen = notFoundAgain(t.notFound, t.sentAt ?? t.updatedAt, e.startedAt, env);
  if (seen !== 'absent') return { order: withTry(order, t.ordinal, (x) => ({ ...x, notFound: seen })), reply: none };
  // Certain: nothing exists. A refusal without words was then a refusal (not "already exists"); any other
  // unknown outcome is void, its number free.
  const next = withTry(order, t.ordinal, (x) =>
    t.unknownReason === 'refused' ? { ...x, phase: 'refused', failureCode: 'PAYMENT_FAILED', ...cleared } : { ...x, phase: 'void', voidReason: 'not-found', ...cleared },
  );
  return { order: next, reply: none };
}

/**
 * Before a new try or session, reference `n` (the next number) was read: found and ours, it is adopted as a
 * try (never sent again; a void or refused try of that number takes it), and the probe goes on past it when
 * it ended unpaid; not found, the number is free. Found with other terms: a conflict, refused until the
 * operator acts.
 */
export function paymentProbed(order: Order, e: ProbeEvent, env: TransitionEnv): Step<Order> {
  if (e.n !== nextNumber(order)) return { order, reply: none };
  const r = e.result;
  if (r.kind === 'not-found') return { order: order.history.payments === 'unread' ? { ...order, history: { ...order.history, payments: 'read' } } : order, reply: none };
  const terms = order.terms ?? e.terms;
  const reference = env.references.attempt(order.ref, e.n);
  // A number the record has as void or refused, found after all: the try of that number takes what was found.
  if (tryByReference(order, reference)) return paymentRead(order, { type: 'payment-read', reference, startedAt: env.now, result: { kind: 'found', tx: r.tx } }, env);
  if (!isOurs(terms, r.tx, env)) {
    if (order.conflict?.reference === reference) return { order, reply: none };
    // Read, and not ours: mobile money is refused with REFERENCE_CONFLICT from now on (a checkout is not).
    const history = { ...order.history, payments: 'read' as const };
    return { order: { ...order, history, conflict: { reference, at: env.now } }, reply: { kind: 'conflict', reference } };
  }
  const base = newTry(order, e.n, env, {
    jti: e.jti,
    maxAttempts: e.maxAttempts,
    msisdn: r.tx.msisdn,
    phase: 'unknown',
    sendId: null,
    sentAt: null,
    callbackId: e.callbackId,
    amount: terms.amount,
    promptExpiresAt: null,
    adopted: true,
  });
  const found = taken(base, r.tx, undefined);
  const history = found.phase === 'failed' || found.phase === 'cancelled' ? order.history : { ...order.history, payments: 'read' as const };
  return { order: { ...order, terms, history, tries: [...order.tries, found] }, reply: none };
}

/** The order's next try, under reference number `n`: nothing read of it yet. */
function newTry(
  order: Order,
  n: number,
  env: TransitionEnv,
  t: Pick<PaymentTry, 'jti' | 'maxAttempts' | 'msisdn' | 'phase' | 'sendId' | 'sentAt' | 'callbackId' | 'amount' | 'promptExpiresAt' | 'adopted'>,
): PaymentTry {
  const reference = env.references.attempt(order.ref, n);
  const deadlineAt = env.now + env.deadlineMs;
  return { ordinal: order.tries.length + 1, n, reference, referenceId: null, charge: 0, totalAmount: t.amount, completedAt: null, deadlineAt, seq: 0, updatedAt: env.now, ...t };
}

/** Time passed: a send whose lease ended is unknown; a pending try past its deadline is shown TIMED_OUT. */
export function tickTries(order: Order, env: TransitionEnv): Order {
  let next = order;
  for (const t of order.tries) {
    if (t.phase === 'sending' && env.now - (t.sentAt ?? 0) > env.leaseMs) {
      next = withTry(next, t.ordinal, (x) => ({ ...x, phase: 'unknown', unknownReason: 'lease' }));
    }
    if ((t.phase === 'pending' || t.phase === 'unknown') && !t.timedOut && env.now > t.deadlineAt) {
      next = withTry(next, t.ordinal, (x) => ({ ...x, timedOut: true }));
    }
  }
  return next;
}
