import { commonEn, wait } from '../shared/strings.js';
import { phoneEn } from '../shared/phone-strings.js';

/** English words of `<otp-verify>`; set some per instance with the `strings` property. */
export const otpVerifyEn = {
  ...commonEn,
  ...phoneEn,
  OTP_INVALID: 'That code is not right.',
  OTP_EXPIRED: 'This code has expired. Ask for a new one.',
  /** Locked for the number (a wait, in words) or for this code alone (no wait: {@link newCode} follows). */
  OTP_LOCKED: (d: { retryAfter?: number }) =>
    d.retryAfter ? `Too many wrong codes for this number. Try again in ${wait(d.retryAfter)}.` : 'Too many wrong codes.',
  HUMAN_CHECK_FAILED: 'We could not check that you are a person.',
  phone: 'Phone number',
  send: 'Send code',
  sending: 'Sending the code…',
  sent: (recipient: string) => `We sent a code by SMS to ${recipient}.`,
  delivered: 'Code delivered.',
  notDelivered: 'Not delivered. Check the number.',
  code: 'Code from the SMS',
  verify: 'Verify',
  verifying: 'Checking the code…',
  verified: (recipient: string) => `Number ${recipient} verified.`,
  resent: (recipient: string) => `New code sent to ${recipient}.`,
  resend: 'Send a new code',
  resendIn: (clock: string) => `New code in ${clock}`,
  attemptsLeft: (n: number) => (n == 1 ? '1 try left.' : n ? `${n} tries left.` : 'No tries left.'),
  /** After a dead code: the way on, and when (`m:ss`, '' when it can be sent now). */
  newCode: (clock: string) => (clock ? `Send a new code in ${clock}.` : 'Send a new code.'),
  required: 'Verify your phone number.',
};
export type OtpVerifyStrings = typeof otpVerifyEn;
