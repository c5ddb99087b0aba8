import type { MerchantEvent } from '../shared/events.js';
import type { ClientErrorCode } from '../shared/proxy-client.js';

export interface OtpSentDetail {
  otpId: string;
  /** The number the code went to, masked (`233 24 *** **01`). */
  recipient: string;
  /** ISO instant after which the code is dead. */
  expiresAt: string;
}

export interface OtpVerifiedDetail {
  /** The proof to send to the merchant's server, which checks it with `proxy.verifyOtpProof`. */
  proof: string;
  /** The verified number, masked. */
  recipient: string;
}

export interface OtpFailedDetail {
  code: ClientErrorCode;
  /** The sentence the element showed (localised; never the server's text). */
  message: string;
}

/** `otp-sent`: a code was sent by SMS (also after a resend). */
export type OtpSentEvent = MerchantEvent<OtpSentDetail>;
/** `otp-verified`: the number is verified; `detail.proof` is also the element's form value. */
export type OtpVerifiedEvent = MerchantEvent<OtpVerifiedDetail>;
/** `otp-failed`: sending or checking a code failed (wrong code, expired, locked, rate limited, network…). */
export type OtpFailedEvent = MerchantEvent<OtpFailedDetail>;

declare global {
  interface GlobalEventHandlersEventMap {
    'otp-sent': OtpSentEvent;
    'otp-verified': OtpVerifiedEvent;
    'otp-failed': OtpFailedEvent;
  }
}
