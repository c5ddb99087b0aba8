import type { MerchantEvent } from '../shared/events.js';

export interface PaymentRefDetail {
  /** This attempt's reference (the order reference plus `-N`). */
  reference: string;
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

/** `payment-pending`: the request reached the customer's phone; the element waits for approval. */
export type PaymentPendingEvent = MerchantEvent<PaymentRefDetail>;
/** `payment-completed`: paid (the merchant's server confirms it through the proxy, never this event). */
export type PaymentCompletedEvent = MerchantEvent<PaymentCompletedDetail>;
/** `payment-failed`: the payment failed. */
export type PaymentFailedEvent = MerchantEvent<PaymentFailedDetail>;
/** `payment-cancelled`: the customer declined on the phone. */
export type PaymentCancelledEvent = MerchantEvent<PaymentRefDetail>;

declare global {
  interface GlobalEventHandlersEventMap {
    'payment-pending': PaymentPendingEvent;
    'payment-completed': PaymentCompletedEvent;
    'payment-failed': PaymentFailedEvent;
    'payment-cancelled': PaymentCancelledEvent;
  }
}
