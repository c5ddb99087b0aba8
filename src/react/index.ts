import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import {
  CheckoutButton as CheckoutButtonElement,
  type CheckoutEndedEvent,
  type CheckoutOpenedEvent,
} from '../elements/checkout-button/index.js';
import {
  OtpVerify as OtpVerifyElement,
  type OtpFailedEvent,
  type OtpSentEvent,
  type OtpVerifiedEvent,
} from '../elements/otp-verify/index.js';
import {
  PayByMobile as PayByMobileElement,
  type PaymentBlockedEvent,
  type PaymentCancelledEvent,
  type PaymentCompletedEvent,
  type PaymentFailedEvent,
  type PaymentPendingEvent,
} from '../elements/pay-by-mobile/index.js';
// French is registered as by the main entry (`lang="fr"` on the component or the page); other languages
// with `registerTranslation`.
import '../elements/translations/fr.js';

export { fr } from '../elements/translations/fr.js';
export { registerTranslation } from '../elements/shared/localize.js';

// The element classes under their own names, for refs (`useRef<OtpVerifyElement>(null)`), and the events' types.
export type { CheckoutButtonElement, OtpVerifyElement, PayByMobileElement };
export type * from '../elements/otp-verify/otp-verify.events.js';
export type * from '../elements/pay-by-mobile/pay-by-mobile.events.js';
export type * from '../elements/checkout-button/checkout-button.events.js';

/** A React component for a registered element: its properties as props, its events (`events`) as callbacks. */
function wrap<I extends HTMLElement, E extends Record<string, EventName>>(displayName: string, tagName: string, elementClass: new () => I, events: E) {
  return createComponent({ react: React, tagName, elementClass, events, displayName });
}

/**
 * `<otp-verify>` for React: the element's properties as props (`token`, `proxy`, `name`, `required`,
 * `value`, `strings`…), its events as callbacks. The `otp-verified` event's `detail.proof` is what the
 * merchant's server checks with `proxy.verifyOtpProof`.
 */
export const OtpVerify = wrap('OtpVerify', 'otp-verify', OtpVerifyElement, {
  onOtpSent: 'otp-sent' as EventName<OtpSentEvent>,
  onOtpVerified: 'otp-verified' as EventName<OtpVerifiedEvent>,
  onOtpFailed: 'otp-failed' as EventName<OtpFailedEvent>,
});

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

/**
 * `<checkout-button>` for React: the element's properties as props (`token`, `proxy`, `mode`, `strings`…),
 * its events as callbacks; children are the button's label.
 */
export const CheckoutButton = wrap('CheckoutButton', 'checkout-button', CheckoutButtonElement, {
  onCheckoutOpened: 'checkout-opened' as EventName<CheckoutOpenedEvent>,
  onCheckoutCompleted: 'checkout-completed' as EventName<CheckoutEndedEvent>,
  onCheckoutFailed: 'checkout-failed' as EventName<CheckoutEndedEvent>,
  onCheckoutCancelled: 'checkout-cancelled' as EventName<CheckoutEndedEvent>,
  onCheckoutExpired: 'checkout-expired' as EventName<CheckoutEndedEvent>,
});
