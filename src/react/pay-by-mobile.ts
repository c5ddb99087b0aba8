// `merchant-elements/react/pay-by-mobile`: the <pay-by-mobile> wrapper alone (its element registers, the others do not).
import type { EventName } from '@lit/react';
import {
  PayByMobile as PayByMobileElement,
  type PaymentBlockedEvent,
  type PaymentCancelledEvent,
  type PaymentCompletedEvent,
  type PaymentFailedEvent,
  type PaymentPendingEvent,
} from '../elements/pay-by-mobile/index.js';
import { wrap } from './wrap.js';

/** The element class under its own name, for refs (`useRef<PayByMobileElement>(null)`). */
export type { PayByMobileElement };
export type * from '../elements/pay-by-mobile/pay-by-mobile.events.js';

/**
 * `<pay-by-mobile>` for React: the element's properties as props (`token`, `proxy`, `amount`, `currency`,
 * `timeout`, `value`, `strings`…), its events as callbacks. A `payment-completed` callback is for the page;
 * the merchant's server confirms the payment through the proxy.
 */
export const PayByMobile = wrap('PayByMobile', 'pay-by-mobile', PayByMobileElement, {
  onPaymentPending: 'payment-pending' as EventName<PaymentPendingEvent>,
  onPaymentCompleted: 'payment-completed' as EventName<PaymentCompletedEvent>,
  onPaymentFailed: 'payment-failed' as EventName<PaymentFailedEvent>,
  onPaymentCancelled: 'payment-cancelled' as EventName<PaymentCancelledEvent>,
  onPaymentBlocked: 'payment-blocked' as EventName<PaymentBlockedEvent>,
});
