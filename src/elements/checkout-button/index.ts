import { CheckoutButton } from './checkout-button.js';

export * from './checkout-button.js';
export * from './checkout-button.events.js';
export { closeCheckoutPopup } from './checkout-return.js';
export { MerchantEvent } from '../shared/events.js';
export { ProxyClientError, type ClientErrorCode } from '../shared/proxy-client.js';
export type { CheckoutButtonStrings } from './checkout-button.strings.js';

if (!customElements.get('checkout-button')) customElements.define('checkout-button', CheckoutButton);
