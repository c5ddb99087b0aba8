import { PayByMobile } from './pay-by-mobile.js';

export * from './pay-by-mobile.js';
export * from './pay-by-mobile.events.js';
export type { PayByMobileState } from './pay-by-mobile.outcome.js';
export { MerchantEvent } from '../shared/events.js';
export { ProxyClientError, type ClientErrorCode } from '../shared/proxy-client.js';
export type { PayByMobileStrings } from './pay-by-mobile.strings.js';

if (!customElements.get('pay-by-mobile')) customElements.define('pay-by-mobile', PayByMobile);
