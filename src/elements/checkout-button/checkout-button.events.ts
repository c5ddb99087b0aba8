import type { MerchantEvent } from '../shared/events.js';

/** How the checkout page was opened (`redirect` also when a popup or tab was blocked). */
export type CheckoutMode = 'redirect' | 'popup' | 'tab';

export interface CheckoutOpenedDetail {
  checkoutId: string;
  checkoutUrl: string;
  mode: CheckoutMode;
}

export interface CheckoutDetail {
  checkoutId: string;
}

/** `checkout-opened`: the session was created and its page opened. */
export type CheckoutOpenedEvent = MerchantEvent<CheckoutOpenedDetail>;
/**
 * `checkout-completed`, `checkout-failed`, `checkout-cancelled`, `checkout-expired`: the checkout reached a
 * final status (the merchant's server confirms a completion through the proxy, never this event).
 */
export type CheckoutEndedEvent = MerchantEvent<CheckoutDetail>;

declare global {
  interface GlobalEventHandlersEventMap {
    'checkout-opened': CheckoutOpenedEvent;
    'checkout-completed': CheckoutEndedEvent;
    'checkout-failed': CheckoutEndedEvent;
    'checkout-cancelled': CheckoutEndedEvent;
    'checkout-expired': CheckoutEndedEvent;
  }
}
