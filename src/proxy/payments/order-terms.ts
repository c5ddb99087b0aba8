import { ProxyError } from '../errors.js';
import type { PaymentClaims } from '../tokens/claims.js';
import { changedTerms, type OrderRecord, type OrderTerms } from './attempts.js';

/** The terms a payment token fixes for its order. */
export function termsOf(claims: PaymentClaims): OrderTerms {
  return { amount: claims.amount, currency: 'GHS', payee: claims.payee, narration: claims.narration, msisdn: claims.msisdn ?? null };
}

/** Refuses a token whose terms differ from the ones the order's first payment fixed. */
export function assertSameTerms(order: OrderRecord | null, claims: PaymentClaims): void {
  const changed = changedTerms(order?.terms, termsOf(claims));
  if (changed.length > 0) {
    throw new ProxyError('ORDER_CHANGED', 'This order was changed after its payment started. Reload the page.', {
      orderReference: claims.referenceNo,
      changed,
    });
  }
}

export function unavailable(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
}

/** The error of an initiation the provider refused (`0400`). */
export function failed(failureCode: string | undefined, reference: string, left: number): ProxyError {
  const code = failureCode === 'INSUFFICIENT_FUNDS' ? 'INSUFFICIENT_FUNDS' : 'PAYMENT_FAILED';
  return new ProxyError(
    code,
    code === 'INSUFFICIENT_FUNDS' ? 'The account does not have enough funds for this payment.' : 'The payment could not be made.',
    { reference, attemptsLeft: left },
  );
}
