import type { PaymentSnapshot } from '../../protocol/bodies.js';
import type { ClientErrorCode, ProxyClientError } from '../shared/proxy-client.js';

export type PayByMobileState =
  | 'idle' | 'looking-up' | 'confirm' | 'paying' | 'pending' | 'unknown' | 'completed'
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
