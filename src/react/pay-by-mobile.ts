'use client';
// `merchant-elements/react/pay-by-mobile`: the <pay-by-mobile> wrapper alone (its element registers, the others do not).
import {
  PayByMobile as PayByMobileElement,
  type PaymentBlockedEvent,
  type PaymentCancelledEvent,
  type PaymentCompletedEvent,
  type PaymentFailedEvent,
  type PaymentPendingEvent,
} from '../elements/pay-by-mobile/index.js';
import { wrap, type WrapperProps } from './wrap.js';

/** The element class under its own name, for refs (`useRef<PayByMobileElement>(null)`). */
export type { PayByMobileElement };
export type * from '../elements/pay-by-mobile/pay-by-mobile.events.js';

/** The documented properties of `<pay-by-mobile>` a React prop sets. */
type PayByMobileProperties = 'token' | 'proxy' | 'value' | 'amount' | 'currency' | 'timeout' | 'strings' | 'lateInterval';
type PayByMobileEvents = {
  onPaymentPending: PaymentPendingEvent;
  onPaymentCompleted: PaymentCompletedEvent;
  onPaymentFailed: PaymentFailedEvent;
  onPaymentCancelled: PaymentCancelledEvent;
  onPaymentBlocked: PaymentBlockedEvent;
};
/** The props of `<PayByMobile>`. */
export type PayByMobileProps = WrapperProps<PayByMobileElement, PayByMobileProperties, PayByMobileEvents>;

/**
 * `<pay-by-mobile>` for React: the element's properties as props (`token`, `proxy`, `amount`, `currency`,
 * `timeout`, `value`, `strings`…), its events as callbacks. A `payment-completed` callback is for the page;
 * the merchant's server confirms the payment through the proxy.
 */
export const PayByMobile = wrap<PayByMobileElement, PayByMobileProperties, PayByMobileEvents>('PayByMobile', 'pay-by-mobile', PayByMobileElement, {
  onPaymentPending: 'payment-pending',
  onPaymentCompleted: 'payment-completed',
  onPaymentFailed: 'payment-failed',
  onPaymentCancelled: 'payment-cancelled',
  onPaymentBlocked: 'payment-blocked',
});
