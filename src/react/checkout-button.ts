'use client';
// `merchant-elements/react/checkout-button`: the <checkout-button> wrapper alone (its element registers, the others do not).
import { CheckoutButton as CheckoutButtonElement, type CheckoutEndedEvent, type CheckoutOpenedEvent } from '../elements/checkout-button/index.js';
import { wrap, type WrapperProps } from './wrap.js';

/** The element class under its own name, for refs (`useRef<CheckoutButtonElement>(null)`). */
export type { CheckoutButtonElement };
export type * from '../elements/checkout-button/checkout-button.events.js';

/** The documented properties of `<checkout-button>` a React prop sets. */
type CheckoutButtonProperties = 'token' | 'proxy' | 'mode' | 'strings' | 'navigate';
type CheckoutButtonEvents = {
  onCheckoutOpened: CheckoutOpenedEvent;
  onCheckoutCompleted: CheckoutEndedEvent;
  onCheckoutFailed: CheckoutEndedEvent;
  onCheckoutCancelled: CheckoutEndedEvent;
  onCheckoutExpired: CheckoutEndedEvent;
};
/** The props of `<CheckoutButton>`. */
export type CheckoutButtonProps = WrapperProps<CheckoutButtonElement, CheckoutButtonProperties, CheckoutButtonEvents>;

/**
 * `<checkout-button>` for React: the element's properties as props (`token`, `proxy`, `mode`, `strings`…),
 * its events as callbacks; children are the button's label.
 */
export const CheckoutButton = wrap<CheckoutButtonElement, CheckoutButtonProperties, CheckoutButtonEvents>(
  'CheckoutButton',
  'checkout-button',
  CheckoutButtonElement,
  {
    onCheckoutOpened: 'checkout-opened',
    onCheckoutCompleted: 'checkout-completed',
    onCheckoutFailed: 'checkout-failed',
    onCheckoutCancelled: 'checkout-cancelled',
    onCheckoutExpired: 'checkout-expired',
  },
);
