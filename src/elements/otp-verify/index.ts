import { OtpVerify } from './otp-verify.js';

export * from './otp-verify.js';
export * from './otp-verify.events.js';
export { MerchantEvent } from '../shared/events.js';
export { ProxyClientError, type ClientErrorCode } from '../shared/proxy-client.js';
export type { OtpVerifyStrings } from './otp-verify.strings.js';

if (!customElements.get('otp-verify')) customElements.define('otp-verify', OtpVerify);
