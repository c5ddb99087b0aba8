import type { ProxyClientError, ClientErrorCode } from '../shared/proxy-client.js';
import { clock } from '../shared/format.js';
import type { LocalizeController } from '../shared/localize.js';
import type { OtpVerifyStrings } from './otp-verify.strings.js';
import type { OtpVerifyState } from './otp-verify.flow.js';

const FAILURE_STATES: Partial<Record<ClientErrorCode, OtpVerifyState>> = {
  OTP_INVALID: 'wrong-code',
  OTP_EXPIRED: 'expired',
  OTP_LOCKED: 'locked',
  RATE_LIMITED: 'rate-limited',
  NETWORK: 'network-error',
};

/** The state a failed call leads `<otp-verify>` to. */
export function failureState({ code, details }: ProxyClientError): OtpVerifyState {
  // A wrong code with no try left is as good as locked: only a new code helps.
  return code == 'OTP_INVALID' && details.attemptsLeft === 0 ? 'locked' : (FAILURE_STATES[code] ?? 'error');
}

/**
 * The sentence of a failure: the error in the element's words, with the wait counted down and the tries left;
 * for a dead code (the number is not locked) the one way on, a new code, and when it can be sent (`resend`
 * seconds, 0: now). One sentence, one time: the resend link then shows none.
 */
export function failureText(t: LocalizeController<OtpVerifyStrings>, failure: ProxyClientError | undefined, wait: number, resend: number): string {
  if (!failure) return '';
  const { code, details } = failure;
  const left = details.attemptsLeft;
  return (
    t.error(code, wait ? { ...details, retryAfter: wait } : details) +
    (code == 'OTP_INVALID' && typeof left == 'number' ? ' ' + t.strings.attemptsLeft(left) : '') +
    (failureState(failure) == 'locked' && !details.retryAfter ? ' ' + t.strings.newCode(resend ? clock(resend) : '') : '')
  );
}

/** A number's key for the lock: its last 9 digits, whatever way it was typed (`024…`, `+233 24…`). */
export const numberKey = (n: string) => n.replace(/\D/g, '').slice(-9);
