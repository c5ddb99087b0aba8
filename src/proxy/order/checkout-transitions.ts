import type { OrderEvent, Reply, Step, TransitionEnv, UpstreamSession } from './events.js';
import { found } from './found-session.js';
import { completedSession, liveSession, withSession, type CheckoutTry, type Order } from './order-record.js';
import { answeredUnknown, changedCheckoutTerms, heldByMobileMoney, notFoundAgain, providerUnread, refuse } from './order-rules.js';

type CheckoutEvent = Extract<OrderEvent, { type: 'checkout' }>;
type CreatedEvent = Extract<OrderEvent, { type: 'created' }>;
type SessionReadEvent = Extract<OrderEvent, { type: 'session-read' }>;
type ListedEvent = Extract<OrderEvent, { type: 'sessions-listed' }>;

const none: Reply = { kind: 'none' };

const unconfirmed = (status: string): Reply =>
  refuse('PAYMENT_UNCONFIRMED', 'The last checkout of this order is still being confirmed with the provider. Try again in a few minutes.', {
    method: 'checkout',
    status,
  });

/** True while a customer sent to this session can still pay it: open, with a URL, before its expiry. */
export function isPayable(s: CheckoutTry, now: number): boolean {
  return s.phase === 'open' && s.checkoutUrl !== null && s.expiresAt !== null && Date.parse(s.expiresAt) > now;
}

/**
 * `POST /checkouts`: one live session per order. A completed session answers; mobile money holding the order
 * refuses; a payable session is given again; a session whose money state is unknown (its creation's answer
 * lost, or open past its expiry and not read final) refuses until it is read; a creation under way is waited
 * for; then, what the provider has read by this request (`providerUnread`), a new session is claimed and created.
 */
export function checkout(order: Order, e: CheckoutEvent, env: TransitionEnv): Step<Order> {
  const changed = changedCheckoutTerms(order, e.terms);
  if (changed.length > 0) {
    return { order, reply: refuse('ORDER_CHANGED', 'This order was changed after its checkout started. Reload the page.', { changed }) };
  }
  const done = completedSession(order);
  if (done) return { order, reply: { kind: 'session', ordinal: done.ordinal } };
  const held = heldByMobileMoney(order, env);
  if (held) return { order, reply: held };

  // Time has passed first (`tickSessions`): a creation still `creating` is within its lease.
  const live = liveSession(order);
  if (live?.phase === 'creating') return { order, reply: { kind: 'wait' } };
  if (live?.phase === 'unknown') return { order, reply: unconfirmed('unknown') };
  if (live) return { order, reply: isPayable(live, env.now) ? { kind: 'session', ordinal: live.ordinal } : unconfirmed(live.status) };

  const unread = providerUnread(order, e.seen, env);
  if (unread) return { order, reply: unread };
  const fresh = newSession(order, env, { jti: e.jti, phase: 'creating', createId: e.createId, amount: e.terms.amount, currency: 'GHS' });
  return {
    order: { ...order, checkoutTerms: order.checkoutTerms ?? e.terms, sessions: [...order.sessions, fresh] },
    reply: { kind: 'create', ordinal: fresh.ordinal },
  };
}

/** What a creation's answer means; it counts only for its own creation. */
export function created(order: Order, e: CreatedEvent, env: TransitionEnv): Step<Order> {
  const s = order.sessions.find((x) => x.ordinal === e.ordinal);
  if (!s || s.createId !== e.createId) return { order, reply: none };
  if (s.phase !== 'creating' && s.phase !== 'unknown') return { order, reply: s.phase === 'open' ? { kind: 'session', ordinal: s.ordinal } : none };
  const r = e.result;
  switch (r.kind) {
    case 'created':
      return { order: withSession(order, s.ordinal, (x) => found(x, r.session)), reply: { kind: 'session', ordinal: s.ordinal } };
    case 'unusable':
      return {
        order: withSession(order, s.ordinal, (x) => ({ ...x, phase: 'void', voidReason: 'unusable-url', checkoutId: r.checkoutId })),
        reply: refuse('UPSTREAM_ERROR', 'The checkout could not be opened. Try again later.'),
      };
    case 'refused':
      return { order: withSession(order, s.ordinal, (x) => ({ ...x, phase: 'refused' })), reply: refuse('UPSTREAM_ERROR', 'The checkout could not be opened. Try again later.') };
    case 'unknown': {
      const { at, notFound } = answeredUnknown(s.startedAt, env.now);
      return {
        order: withSession(order, s.ordinal, (x) => ({ ...x, phase: 'unknown', startedAt: at, notFound })),
        reply: refuse('UPSTREAM_UNAVAILABLE', 'The checkout service did not answer. Try again in a moment.', { retryable: true }),
      };
    }
    case 'not-sent':
      if (s.phase !== 'creating') return { order, reply: none };
      return { order: withSession(order, s.ordinal, (x) => ({ ...x, phase: 'void', voidReason: 'not-sent' })), reply: none };
  }
}

/** A status read of one session by its id. */
export function sessionRead(order: Order, e: SessionReadEvent): Step<Order> {
  const s = order.sessions.find((x) => x.checkoutId === e.checkoutId);
  if (!s || e.result.kind === 'not-found') return { order, reply: none };
  const session = e.result.session;
  return { order: withSession(order, s.ordinal, (x) => found(x, session)), reply: none };
}

/**
 * The provider's sessions under the order's reference (a listing, or one the operator named). Each one of
 * ours (the order's amount) that we know is read; one we do not know fills a session whose creation's answer
 * was lost, or is adopted as a session of its own. A complete listing without a session being created or
 * unknown is its "not found" (`notFoundAgain`: certain twice in a row after the grace, and it is void).
 */
export function sessionsListed(order: Order, e: ListedEvent, env: TransitionEnv): Step<Order> {
  const terms = order.checkoutTerms ?? e.terms;
  // Only a session at the order's price can be ours (another shop's under a reference without a prefix, at
  // another price, was adopted by a new order's first look: completed, and reported to this merchant).
  const amount = terms?.amount ?? order.terms?.amount ?? e.amount;
  let next: Order = e.complete && order.history.sessions !== 'read' ? { ...order, history: { ...order.history, sessions: 'read' } } : order;
  for (const u of e.sessions) {
    if (amount !== undefined && u.amount !== amount) continue;
    const known = next.sessions.find((x) => x.checkoutId === u.checkoutId);
    if (known) {
      next = withSession(next, known.ordinal, (x) => found(x, u));
      continue;
    }
    const lost = next.sessions.find((x) => x.phase === 'unknown' || (x.phase === 'creating' && env.now - x.startedAt > env.leaseMs));
    if (lost) {
      next = withSession(next, lost.ordinal, (x) => found({ ...x, adopted: true }, u));
      continue;
    }
    const adopted = newSession(next, env, { jti: e.jti, phase: 'open', createId: e.createId, amount: u.amount, currency: u.currency, adopted: true });
    next = { ...next, checkoutTerms: next.checkoutTerms ?? terms, sessions: [...next.sessions, found(adopted, u)] };
  }
  if (!e.complete) return { order: next, reply: none };
  for (const s of next.sessions) {
    if (s.phase !== 'unknown' || e.startedAt < s.startedAt) continue;
    const seen = notFoundAgain(s.notFound, s.startedAt, e.startedAt, env);
    next = withSession(next, s.ordinal, (x) => (seen === 'absent' ? { ...x, phase: 'void', voidReason: 'not-found', notFound: undefined } : { ...x, notFound: seen }));
  }
  return { order: next, reply: none };
}

/** The order's next session: nothing of it known at the provider yet. */
function newSession(order: Order, env: TransitionEnv, s: Pick<CheckoutTry, 'jti' | 'phase' | 'createId' | 'amount' | 'currency' | 'adopted'>): CheckoutTry {
  const none = { checkoutId: null, checkoutUrl: null, expiresAt: null, completedAt: null };
  return { ordinal: order.sessions.length + 1, startedAt: env.now, status: 'pending', ...none, seq: 0, updatedAt: env.now, ...s };
}

/** Time passed: a creation whose lease ended is unknown. */
export function tickSessions(order: Order, env: TransitionEnv): Order {
  let next = order;
  for (const s of order.sessions) {
    if (s.phase === 'creating' && env.now - s.startedAt > env.leaseMs) next = withSession(next, s.ordinal, (x) => ({ ...x, phase: 'unknown' }));
  }
  return next;
}
