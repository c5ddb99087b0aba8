import type { CheckoutViewStatus } from '../../protocol/index.js';
import type { UpstreamSession } from './events.js';
import { overlay, type CheckoutTry, type SessionPhase } from './order-record.js';

/**
 * A session after the provider described it: its status, amounts and expiry, and nothing of why it was void or
 * not found (the same session when it says all that already); a final state never goes back.
 */
export function found(s: CheckoutTry, u: UpstreamSession): CheckoutTry {
  const f = sessionFields(s, u);
  return f === null ? s : overlay(s, f);
}

/** What a read sets on a session (a found session has an id); null when the session's final state keeps it as it is. */
export function sessionFields(s: CheckoutTry, u: UpstreamSession): Partial<CheckoutTry> | null {
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
    voidReason: undefined,
    notFound: undefined,
  };
}

function phaseOf(status: CheckoutViewStatus): SessionPhase {
  return status === 'pending' || status === 'processing' ? 'open' : status;
}

function isFinal(phase: SessionPhase): boolean {
  return phase === 'completed' || phase === 'failed' || phase === 'cancelled' || phase === 'expired';
}
