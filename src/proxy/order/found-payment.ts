import type { UpstreamPayment } from './events.js';
import type { PaymentTry, TryPhase } from './order-record.js';

/** What a try no longer says once its outcome is known (found, refused, void): why it was unknown, its not-found reads. */
export const cleared = { unknownReason: undefined, notFound: undefined };

/** A try after a read found its payment: the provider's status, amounts and number. */
export function taken(t: PaymentTry, tx: UpstreamPayment, referenceId: string | undefined): PaymentTry {
  const found = readFields(t, tx, referenceId);
  // Nearly every read of a pending payment says what the try says: answered without building a try.
  return found === null || agrees(t, found) ? t : withFields(t, found);
}

/** What a found payment sets on a try. */
export interface ReadFields {
  phase: TryPhase;
  msisdn: string;
  amount: number;
  charge: number;
  totalAmount: number;
  completedAt: string | null;
  referenceId: string | null;
  failureCode: string | undefined;
}

/** What a read that found the payment sets on a try; null when the try's final state keeps it as it is. */
export function readFields(t: PaymentTry, tx: UpstreamPayment, referenceId: string | undefined): ReadFields | null {
  const phase = phaseOf(tx.status);
  if (t.phase === 'completed' && phase !== 'completed') return null;
  // A final state never changes, but for the provider's word that it completed after all.
  if ((t.phase === 'failed' || t.phase === 'cancelled') && phase !== 'completed') return null;
  return {
    phase,
    msisdn: tx.msisdn,
    amount: tx.amount,
    charge: tx.charge,
    totalAmount: tx.totalAmount,
    completedAt: phase === 'completed' ? tx.completedAt ?? t.completedAt : null,
    referenceId: referenceId ?? t.referenceId,
    failureCode: phase === 'failed' ? (t.failureCode && t.phase !== 'refused' ? t.failureCode : 'PAYMENT_FAILED') : undefined,
  };
}

/** True when `withFields(t, f)` would say what `t` says, field by field (a field left out is one set to undefined). */
export function agrees(t: PaymentTry, f: ReadFields): boolean {
  return (
    t.phase === f.phase &&
    t.msisdn === f.msisdn &&
    t.amount === f.amount &&
    t.charge === f.charge &&
    t.totalAmount === f.totalAmount &&
    t.completedAt === f.completedAt &&
    t.referenceId === f.referenceId &&
    t.failureCode === f.failureCode &&
    t.unknownReason === undefined &&
    t.notFound === undefined &&
    t.voidReason === undefined &&
    t.hintedReferenceId === undefined
  );
}

/** The try with what a read found, and nothing of why it was unknown, void or hinted. */
export function withFields(t: PaymentTry, { failureCode, ...f }: ReadFields): PaymentTry {
  const next: PaymentTry = { ...t, ...f, ...cleared };
  delete next.voidReason;
  delete next.hintedReferenceId;
  if (failureCode === undefined) delete next.failureCode;
  else next.failureCode = failureCode;
  return next;
}

export function phaseOf(status: UpstreamPayment['status']): TryPhase {
  return status === 'PENDING' ? 'pending' : status === 'COMPLETED' ? 'completed' : status === 'FAILED' ? 'failed' : 'cancelled';
}
