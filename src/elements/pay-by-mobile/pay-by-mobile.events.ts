import type { MerchantEvent } from '../shared/events.js';

export interface PaymentRefDetail {
  /** This attempt's reference (the order reference plus `-N`). */
  reference: string;
  /** The merchant's order reference (the token's `referenceNo`); absent on `payment-pending` before the first answer. */
  orderReference?: string;
}

export interface PaymentCompletedDetail extends PaymentRefDetail {
  amount: number;
  currency: string;
}

export interface PaymentFailedDetail extends PaymentRefDetail {
  /** Why, as a protocol error code (`INSUFFICIENT_FUNDS`, `PAYMENT_FAILED`). */
  code: string;
  /** The sentence the element showed (localised; never the server's text). */
  message: string;
  /** True while the token allows another attempt (the element shows a retry button). */
  canRetry: boolean;
}

export interface PaymentBlockedDetail {
  /** Why: `ATTEMPTS_EXHAUSTED` (the order's attempts are spent), `ORDER_CHANGED`, `ORDER_IN_OTHER_PAYMENT`. */
  code: string;
  /** The sentence the element showed (localised). */
  message: string;
}

/** `payment-pending`: the request reached the customer's phone; the element waits for approval. */
export type PaymentPendingEvent = MerchantEvent<PaymentRefDetail>;
/** `payment-completed`: paid (the merchant's server confirms it through the proxy, never this event). */
export type PaymentCompletedEvent = MerchantEvent<PaymentCompletedDetail>;
/** `payment-failed`: the payment failed. */
export type PaymentFailedEvent = MerchantEvent<PaymentFailedDetail>;
/** `payment-cancelled`: the customer declined on the phone. */
export type PaymentCancelledEvent = MerchantEvent<PaymentRefDetail>;

/**
 * `payment-blocked`: no payment of this order can be made in this element any more; the page offers what
 * comes next (a new order, another way to pay, a reload).
 */
export type PaymentBlockedEvent = MerchantEvent<PaymentBlockedDetail>;

declare global {
  interface GlobalEventHandlersEventMap {
    'payment-blocked': PaymentBlockedEvent;
    'payment-pending': PaymentPendingEvent;
    'payment-completed': PaymentCompletedEvent;
    'payment-failed': PaymentFailedEvent;
    'payment-cancelled': PaymentCancelledEvent;
  }
}
