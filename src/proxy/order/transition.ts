import { checkout, created, sessionRead, sessionsListed, tickSessions } from './checkout-transitions.js';
import type { OrderEvent, Reply, Step, TransitionEnv } from './events.js';
import { mergeCopy } from './merge-copy.js';
import { mayLandLate, tryByReference, type Order } from './order-record.js';
import { refuse } from './order-rules.js';
import { paymentProbed, paymentRead, pay, sent, tickTries } from './payment-transitions.js';
import { sessionFace, tryFace } from './views.js';

/**
 * The order's state machine (DESIGN: one order, one record, one transition): `(order, event) → (order',
 * reply)`, pure. Everything that changes an order's money state goes through here and is stored with one
 * compare-and-set, with the notifications `messagesOf(order, order')` decides. The caller carries out the
 * reply (send, create, probe, wait, answer) only after its commit succeeded.
 *
 * A step that changes nothing returns the same object (no write). A step that changes something bumps the
 * version, and the sequence of each try or session whose face changed (what a watcher sees: past any it saw,
 * for a try or session a restore brings back with the sequence it had).
 */
export function transition(order: Order, event: OrderEvent, env: TransitionEnv): Step<Order> {
  const step = dispatch(order, event, env);
  return { order: stamp(order, step.order, env), reply: step.reply };
}

function dispatch(order: Order, e: OrderEvent, env: TransitionEnv): Step<Order> {
  const none: Reply = { kind: 'none' };
  switch (e.type) {
    case 'pay':
      return pay(tick(order, env), e, env);
    case 'checkout':
      return checkout(tick(order, env), e, env);
    case 'sent':
      return sent(order, e, env);
    case 'created':
      return created(order, e, env);
    case 'payment-read':
      return paymentRead(order, e, env);
    case 'payment-probed':
      return paymentProbed(order, e, env);
    case 'session-read':
      return sessionRead(order, e);
    case 'sessions-listed':
      return sessionsListed(order, e, env);
    case 'sessions-unlisted':
      return { order: order.history.sessions === 'unread' ? { ...order, history: { ...order.history, sessions: 'unreadable' } } : order, reply: none };
    case 'tick':
      return { order: tick(order, env), reply: none };
    case 'hinted':
      return { order: hinted(order, e.reference, e.referenceId), reply: none };
    case 'resolve-absent':
      return resolveAbsent(order, e.target, e.checked, env);
    case 'restore':
      return { order: mergeCopy(order, e.copy), reply: none };
  }
}

function tick(order: Order, env: TransitionEnv): Order {
  return tickSessions(tickTries(order, env), env);
}

/** A referenceId a callback named, kept for the reconciler's reads of a try whose own it does not know. */
function hinted(order: Order, reference: string, referenceId: string): Order {
  const t = tryByReference(order, reference);
  if (!t || t.referenceId !== null || t.hintedReferenceId === referenceId) return order;
  if (t.phase !== 'sending' && t.phase !== 'unknown' && !mayLandLate(t)) return order;
  return { ...order, tries: order.tries.map((x) => (x === t ? { ...x, hintedReferenceId: referenceId } : x)) };
}

/**
 * The operator's "absent": the provider's records had nothing. For a try or a session whose request's outcome
 * is unknown, taken only once the grace after the send (or the creation's start) has passed: the request can
 * land until then, and no dashboard shows it before it lands (DESIGN: the operator).
 */
function resolveAbsent(order: Order, target: { reference: string } | { sessionOrdinal: number }, checked: string | null, env: TransitionEnv): Step<Order> {
  const none: Reply = { kind: 'none' };
  if ('reference' in target) {
    const t = order.tries.findLast((x) => x.reference === target.reference);
    if (!t || t.phase !== 'unknown') return { order, reply: none };
    if ((t.referenceId ?? t.hintedReferenceId ?? null) !== checked) return { order, reply: changedMeanwhile({ reference: t.reference }) };
    const early = tooSoon(t.sentAt ?? t.updatedAt, env, { reference: t.reference });
    if (early) return { order, reply: early };
    const next = { ...order, tries: order.tries.map((x) => (x === t ? { ...x, phase: 'void' as const, voidReason: 'operator' as const, unknownReason: undefined } : x)) };
    if (order.conflict?.reference === t.reference) delete next.conflict;
    return { order: next, reply: none };
  }
  const s = order.sessions.find((x) => x.ordinal === target.sessionOrdinal);
  if (!s || (s.phase !== 'unknown' && s.phase !== 'open')) return { order, reply: none };
  if (s.checkoutId !== checked) return { order, reply: changedMeanwhile({ session: s.ordinal }) };
  const early = s.phase === 'unknown' ? tooSoon(s.startedAt, env, { session: s.ordinal }) : null;
  if (early) return { order, reply: early };
  return { order: { ...order, sessions: order.sessions.map((x) => (x === s ? { ...x, phase: 'void' as const, voidReason: 'operator' as const } : x)) }, reply: none };
}

/**
 * The refusal of an "absent" checked by a read of an id the try or session no longer has (or by none, where it
 * now has one): its creation's or send's answer came meanwhile. Taken, a session just opened, its URL on the
 * way to the customer, would be void, and its completion never reported.
 */
function changedMeanwhile(subject: Record<string, unknown>): Reply {
  return refuse('PAYMENT_UNCONFIRMED', 'The provider answered for it while it was being checked; list the order again.', subject);
}

/** The refusal of an "absent" said before the grace after `since` ended; null once it has. */
function tooSoon(since: number, env: TransitionEnv, subject: Record<string, unknown>): Reply | null {
  if (env.now - since >= env.graceMs) return null;
  const notBefore = new Date(since + env.graceMs).toISOString();
  return refuse('PAYMENT_UNCONFIRMED', `Its request may still reach the provider until ${notBefore}; the provider's records cannot show it absent before then. Look again after that.`, { ...subject, notBefore });
}

/** Version and sequences after a step: only what changed moves. */
function stamp(before: Order, after: Order, env: TransitionEnv): Order {
  if (after === before) return before;
  const tries = after.tries.map((t) => {
    const old = before.tries.find((x) => x.ordinal === t.ordinal);
    const changed = !old || tryFace(before, old, env) !== tryFace(after, t, env);
    return changed ? { ...t, seq: Math.max(old?.seq ?? 0, t.seq) + 1, updatedAt: old ? env.now : t.updatedAt } : t;
  });
  const sessions = after.sessions.map((s) => {
    const old = before.sessions.find((x) => x.ordinal === s.ordinal);
    const changed = !old || sessionFace(before, old) !== sessionFace(after, s) || old.phase !== s.phase;
    return changed ? { ...s, seq: Math.max(old?.seq ?? 0, s.seq) + 1, updatedAt: old ? env.now : s.updatedAt } : s;
  });
  return { ...after, tries, sessions, v: before.v + 1, updatedAt: env.now };
}
