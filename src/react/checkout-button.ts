// `merchant-elements/react/checkout-button`: the <checkout-button> wrapper alone (its element registers, the others do not).
import type { EventName } from '@lit/react';
import { CheckoutButton as CheckoutButtonElement, type CheckoutEndedEvent, type CheckoutOpenedEvent } from '../elements/checkout-button/index.js';
import { wrap } from './wrap.js';

/** The element class under its own name, for refs (`useRef<CheckoutButtonElement>(null)`). */
export type { CheckoutButtonElement };
export type * from '../elements/checkout-button/checkout-button.events.js';

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
