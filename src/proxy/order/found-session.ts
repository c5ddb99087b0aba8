import type { CheckoutViewStatus } from '../../protocol/index.js';
import type { UpstreamSession } from './events.js';
import type { CheckoutTry, SessionPhase } from './order-record.js';

/** A session after the provider described it: its status, amounts and expiry; a final state never goes back. */
export function found(s: CheckoutTry, u: UpstreamSession): CheckoutTry {
  const f = sessionFields(s, u);
  // Nearly every read of an open session says what the session says: answered without building one, and the
  // order left the same object (nothing written).
  return f === null || sessionAgrees(s, f) ? s : withSessionFields(s, f);
}

/** What a read that found the session sets on it (a found session has an id). */
export type SessionFields = Pick<CheckoutTry, 'phase' | 'checkoutUrl' | 'status' | 'amount' | 'currency' | 'expiresAt' | 'completedAt'> & { checkoutId: string };

/** What a read sets on a session; null when the session's final state keeps it as it is. */
export function sessionFields(s: CheckoutTry, u: UpstreamSession): SessionFields | null {
  const phase = phaseOf(u.status);
  if (s.phase === 'completed' || (isFinal(s.phase) && phase !== 'completed')) return null;
  return {
    phase,
    checkoutId: u.checkoutId,
    checkoutUrl: u.checkoutUrl ?? s.checkoutUrl,
    status: u.status,
    amount: u.amount,
    currency: u.currency,
    expiresAt: u.expiresAt ?? s.expiresAt,
    completedAt: phase === 'completed' ? u.completedAt ?? s.completedAt : null,
  };
}

/** True when `withSessionFields(s, f)` would say what `s` says, field by field (a field left out is one set to undefined). */
export function sessionAgrees(s: CheckoutTry, f: SessionFields): boolean {
  return (
    s.phase === f.phase &&
    s.checkoutId === f.checkoutId &&
    s.checkoutUrl === f.checkoutUrl &&
    s.status === f.status &&
    s.amount === f.amount &&
    s.currency === f.currency &&
    s.expiresAt === f.expiresAt &&
    s.completedAt === f.completedAt &&
    s.voidReason === undefined &&
    s.notFound === undefined
  );
}

/** The session with what a read found, and nothing of why it was void or not found. */
export function withSessionFields(s: CheckoutTry, f: SessionFields): CheckoutTry {
  const next: CheckoutTry = { ...s, ...f };
  delete next.voidReason;
  delete next.notFound;
  return next;
}

function phaseOf(status: CheckoutViewStatus): SessionPhase {
  return status === 'pending' || status === 'processing' ? 'open' : status;
}

function isFinal(phase: SessionPhase): boolean {
  return phase === 'completed' || phase === 'failed' || phase === 'cancelled' || phase === 'expired';
}
