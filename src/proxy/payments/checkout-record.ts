import {
  FINAL_CHECKOUT_VIEW_STATUSES,
  type CheckoutSnapshot,
  type CheckoutViewStatus,
} from '../../protocol/index.js';
import type { CheckoutSession, CheckoutStatusResult } from '../../provider/schemas/index.js';

/** Everything the proxy keeps of one checkout session (JSON under `co:rec:<checkoutId>`). */
export interface CheckoutRecord {
  checkoutId: string;
  checkoutUrl: string;
  /** The merchant's reference bound in the token. */
  reference: string;
  /** jti of the token that created it. */
  jti: string;
  status: CheckoutViewStatus;
  amount: number;
  currency: string;
  /** ISO 8601, as the provider gave it at initialisation. */
  expiresAt: string;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** Epoch ms after which the relay stops polling a session that never reached a final state. */
  deadlineAt: number;
  completedAt: string | null;
  /** Monotonic per session; the SSE `id`. */
  seq: number;
}

/** The session currency when the provider has not said yet (initialisation does not; DESIGN: GHS). */
export const DEFAULT_CURRENCY = 'GHS';

export function isFinalCheckoutStatus(status: CheckoutViewStatus): boolean {
  return FINAL_CHECKOUT_VIEW_STATUSES.includes(status);
}

/**
 * The record of a new session. The initialise answer says `active` (its own vocabulary); the status
 * read says `pending` for the same thing, and the relay speaks the status read's words.
 */
export function newCheckoutRecord(
  session: CheckoutSession,
  jti: string,
  now: number,
  deadlineMs: number,
): CheckoutRecord {
  const expiresAt = isoOrNull(session.expiresAt) ?? new Date(now + deadlineMs).toISOString();
  const initial: CheckoutViewStatus = session.status === 'active' ? 'pending' : session.status;
  return {
    checkoutId: session.checkoutId,
    checkoutUrl: session.checkoutUrl,
    reference: session.reference,
    jti,
    status: initial,
    amount: session.amount,
    currency: DEFAULT_CURRENCY,
    expiresAt,
    createdAt: now,
    updatedAt: now,
    // Poll until the provider's own expiry has surely been reported, and at least the relay deadline.
    deadlineAt: Math.max(now + deadlineMs, Date.parse(expiresAt) + 60_000),
    completedAt: null,
    seq: 1,
  };
}

/** The record after a status read, or null when nothing a watcher sees changed. */
export function applyCheckoutStatus(record: CheckoutRecord, result: CheckoutStatusResult): CheckoutRecord | null {
  const next: CheckoutRecord = {
    ...record,
    status: result.status,
    amount: result.amount,
    currency: result.currency,
    completedAt: isoOrNull(result.completedAt ?? null),
  };
  const same =
    next.status === record.status &&
    next.amount === record.amount &&
    next.currency === record.currency &&
    next.completedAt === record.completedAt;
  return same ? null : next;
}

export function toCheckoutSnapshot(record: CheckoutRecord): CheckoutSnapshot {
  return {
    checkoutId: record.checkoutId,
    reference: record.reference,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    updatedAt: new Date(record.updatedAt).toISOString(),
    completedAt: record.completedAt,
  };
}

function isoOrNull(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
