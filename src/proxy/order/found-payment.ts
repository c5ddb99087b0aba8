import { isMasked } from '../phone.js';
import type { UpstreamPayment } from './events.js';
import { overlay, type PaymentTry, type TryPhase } from './order-record.js';

/** What a try no longer says once its outcome is known (found, refused, void): why it was unknown, its not-found reads. */
export const cleared = { unknownReason: undefined, notFound: undefined };

/**
 * A try after a read found its payment: the provider's status, amounts and number, and nothing of why it was
 * unknown, void or hinted (the same try when it says all that already).
 */
export function taken(t: PaymentTry, tx: UpstreamPayment, referenceId: string | undefined): PaymentTry {
  const found = readFields(t, tx, referenceId);
  return found === null ? t : overlay(t, found);
}

/** What a read that found the payment sets on a try; null when the try's final state keeps it as it is. */
export function readFields(t: PaymentTry, tx: UpstreamPayment, referenceId: string | undefined): Partial<PaymentTry> | null {
  const phase = phaseOf(tx.status);
  if (t.phase === 'completed' && phase !== 'completed') return null;
  // A final state never changes, but for the provider's word that it completed after all.
  if ((t.phase === 'failed' || t.phase === 'cancelled') && phase !== 'completed') return null;
  return {
    phase,
    // A final try's number is stored masked (`atRest`): the provider's comes back with a change of phase only.
    msisdn: phase === t.phase && isMasked(t.msisdn) ? t.msisdn : tx.msisdn,
    amount: tx.amount,
    charge: tx.charge,
    totalAmount: tx.totalAmount,
    completedAt: phase === 'completed' ? tx.completedAt ?? t.completedAt : null,
    referenceId: referenceId ?? t.referenceId,
    failureCode: phase === 'failed' ? (t.failureCode && t.phase !== 'refused' ? t.failureCode : 'PAYMENT_FAILED') : undefined,
    ...cleared,
    voidReason: undefined,
    hintedReferenceId: undefined,
  };
}

export function phaseOf(status: UpstreamPayment['status']): TryPhase {
  return status === 'PENDING' ? 'pending' : status === 'COMPLETED' ? 'completed' : status === 'FAILED' ? 'failed' : 'cancelled';
}
