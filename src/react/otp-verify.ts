// `merchant-elements/react/otp-verify`: the <otp-verify> wrapper alone (its element registers, the others do not).
import type { EventName } from '@lit/react';
import { OtpVerify as OtpVerifyElement, type OtpFailedEvent, type OtpSentEvent, type OtpVerifiedEvent } from '../elements/otp-verify/index.js';
import { wrap } from './wrap.js';

/** The element class under its own name, for refs (`useRef<OtpVerifyElement>(null)`). */
export type { OtpVerifyElement };
export type * from '../elements/otp-verify/otp-verify.events.js';

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
