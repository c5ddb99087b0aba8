import type { PaymentSnapshot } from '../../protocol/bodies.js';
import type { LocalizeController } from '../shared/localize.js';
import type { ClientErrorCode, ProxyClientError } from '../shared/proxy-client.js';
import type { PaymentBlockedDetail, PaymentCompletedDetail, PaymentFailedDetail, PaymentRefDetail } from './pay-by-mobile.events.js';
import type { PayByMobileStrings } from './pay-by-mobile.strings.js';

/** An event a final status dispatches, with its detail. */
export type OutcomeEvent =
  | ['payment-completed', PaymentCompletedDetail]
  | ['payment-cancelled', PaymentRefDetail]
  | ['payment-failed', PaymentFailedDetail]
  | ['payment-blocked', PaymentBlockedDetail];

export type PayByMobileState =
  | 'loading' | 'idle' | 'looking-up' | 'confirm' | 'paying' | 'pending' | 'unknown' | 'completed'
  | 'failed' | 'cancelled' | 'timed-out' | 'error';

/** Refusals after which no payment of this order can be made here: the page offers a new order or another way. */
export const BLOCKING: ClientErrorCode[] = ['ATTEMPTS_EXHAUSTED', 'ORDER_CHANGED', 'ORDER_IN_OTHER_PAYMENT', 'REFERENCE_CONFLICT'];

/** Not final: PENDING (the prompt is on the phone) or UNKNOWN (its answer was lost; being confirmed). */
export const live = (p: Pick<PaymentSnapshot, 'status'>) => p.status == 'PENDING' || p.status == 'UNKNOWN';

/** A masked international number as a Ghanaian reads it: `233 26 *** **04` → `026 *** **04`, never wrapped. */
export const localNumber = (n: string) => n.replace(/^\+?233 ?(\d\d)/, '0$1').replace(/ /g, '\xa0');

/** Nothing more can be paid here: the order's attempts are spent, it changed, or it is paid another way. */
export function isBlocked(state: PayByMobileState, failure?: ProxyClientError, payment?: Partial<PaymentSnapshot>): boolean {
  return state == 'error'
    ? BLOCKING.includes(failure!.code)
    : (state == 'failed' || state == 'cancelled') && !payment?.attemptsLeft;
}

/** A final status as shown: VOID (never reached the provider, nothing charged) reads as a failure that may be retried. */
export const shown = (final: PaymentSnapshot): PaymentSnapshot =>
  final.status == 'VOID' ? { ...final, status: 'FAILED', failureCode: 'UPSTREAM_UNAVAILABLE' } : final;

/** The events a final payment (as shown) dispatches, in order, given to `emit`. */
export function outcomeEvents(payment: PaymentSnapshot, t: LocalizeController<PayByMobileStrings>, canRetry: boolean, emit: (...event: OutcomeEvent) => void) {
  const state = payment.status.toLowerCase() as PayByMobileState;
  const { reference, orderReference, amount, currency } = payment;
  if (state == 'completed') emit('payment-completed', { reference, orderReference, amount, currency });
  if (state == 'cancelled') emit('payment-cancelled', { reference, orderReference });
  if (state == 'failed') {
    const code = payment.failureCode ?? 'PAYMENT_FAILED';
    emit('payment-failed', { reference, orderReference, code, message: t.error(code), canRetry });
  }
  if (isBlocked(state, undefined, payment)) emit('payment-blocked', { code: 'ATTEMPTS_EXHAUSTED', message: t.error('ATTEMPTS_EXHAUSTED') });
}
