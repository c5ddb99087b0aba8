import { commonEn } from '../shared/strings.js';

/** English words of `<otp-verify>`; set some per instance with the `strings` property. */
export const otpVerifyEn = {
  ...commonEn,
  OTP_INVALID: 'That code is not right.',
  OTP_EXPIRED: 'This code has expired. Ask for a new one.',
  OTP_LOCKED: 'Too many wrong codes. Try again later.',
  HUMAN_CHECK_FAILED: 'We could not check that you are a person.',
  send: 'Send code',
  sending: 'Sending the code…',
  sent: (recipient: string) => `We sent a code by SMS to ${recipient}.`,
  delivered: 'Code delivered.',
  notDelivered: 'Not delivered. Check the number.',
  code: 'Code from the SMS',
  verify: 'Verify',
  verifying: 'Checking the code…',
  verified: 'Phone number verified.',
  resend: 'Send a new code',
  resendIn: (clock: string) => `New code in ${clock}`,
  attemptsLeft: (n: number) => (n == 1 ? '1 try left.' : `${n} tries left.`),
  required: 'Verify your phone number.',
};
export type OtpVerifyStrings = typeof otpVerifyEn;
