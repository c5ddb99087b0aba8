'use client';
// `merchant-elements/react/otp-verify`: the <otp-verify> wrapper alone (its element registers, the others do not).
import { OtpVerify as OtpVerifyElement, type OtpFailedEvent, type OtpSentEvent, type OtpVerifiedEvent } from '../elements/otp-verify/index.js';
import { wrap, type WrapperProps } from './wrap.js';

/** The element class under its own name, for refs (`useRef<OtpVerifyElement>(null)`). */
export type { OtpVerifyElement };
export type * from '../elements/otp-verify/otp-verify.events.js';

/** The documented properties of `<otp-verify>` a React prop sets. */
type OtpVerifyProperties = 'token' | 'proxy' | 'value' | 'name' | 'required' | 'strings' | 'deliveryPoll';
type OtpVerifyEvents = { onOtpSent: OtpSentEvent; onOtpVerified: OtpVerifiedEvent; onOtpFailed: OtpFailedEvent };
/** The props of `<OtpVerify>`. */
export type OtpVerifyProps = WrapperProps<OtpVerifyElement, OtpVerifyProperties, OtpVerifyEvents>;

/**
 * `<otp-verify>` for React: the element's properties as props (`token`, `proxy`, `name`, `required`,
 * `value`, `strings`…), its events as callbacks. The `otp-verified` event's `detail.proof` is what the
 * merchant's server checks with `proxy.verifyOtpProof`.
 */
export const OtpVerify = wrap<OtpVerifyElement, OtpVerifyProperties, OtpVerifyEvents>('OtpVerify', 'otp-verify', OtpVerifyElement, {
  onOtpSent: 'otp-sent',
  onOtpVerified: 'otp-verified',
  onOtpFailed: 'otp-failed',
});
