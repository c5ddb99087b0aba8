// The OTP side of a story's merchant proxy (story-proxy.ts): codes sent to numbers, tries at them, receipts.
import { fakeToken, json, otpSent } from '../../test/elements/fake-proxy.js';
import type { OtpVerifyResponse } from '../../src/protocol/schemas.js';
import { lookUp, maskPhone, normalise } from './test-numbers.js';

/** The correct OTP unless a story says otherwise. */
export const OTP_CODE = '123456';

/** The OTP the "SMS" carries, its lifetime and resend cooldown in seconds, and the wrong codes allowed. */
export interface OtpOptions {
  code?: string;
  lifetime?: number;
  cooldown?: number;
  attempts?: number;
}

interface SentOtp {
  otpId: string;
  msisdn: string;
  code: string;
  expiresAt: number;
  attemptsLeft: number;
  receiptReads: number;
}

/** The codes sent through one story's proxy, by number. */
export class StoryOtp {
  private readonly otps = new Map<string, SentOtp>();
  private readonly lastSend = new Map<string, number>();
  private serial = 0;

  constructor(
    private readonly options: OtpOptions,
    private readonly purpose: unknown,
    private readonly refuse: (error: 'INVALID_PHONE_NUMBER' | 'RATE_LIMITED' | 'OTP_EXPIRED' | 'OTP_LOCKED' | 'OTP_INVALID' | 'NOT_FOUND', details?: Record<string, unknown>) => Response,
  ) {}

  send(recipient: string) {
    const msisdn = normalise(recipient);
    if (!msisdn) return this.refuse('INVALID_PHONE_NUMBER');
    const { code = OTP_CODE, lifetime = 300, cooldown = 60, attempts = 5 } = this.options;
    const wait = (this.lastSend.get(msisdn) ?? 0) + cooldown * 1000 - Date.now();
    if (wait > 0) return this.refuse('RATE_LIMITED', { retryAfter: Math.ceil(wait / 1000) });
    this.lastSend.set(msisdn, Date.now());
    const otp: SentOtp = { otpId: `otp_${++this.serial}`, msisdn, code, expiresAt: Date.now() + lifetime * 1000, attemptsLeft: attempts, receiptReads: 0 };
    this.otps.set(msisdn, otp);
    return json(
      otpSent({
        otpId: otp.otpId,
        recipient: maskPhone(msisdn),
        expiresAt: new Date(otp.expiresAt).toISOString(),
        resendAt: new Date(Date.now() + cooldown * 1000).toISOString(),
        attemptsLeft: attempts,
        pinLength: code.length,
      }),
    );
  }

  verify(recipient: string, code: string) {
    const msisdn = normalise(recipient);
    if (!msisdn) return this.refuse('INVALID_PHONE_NUMBER');
    const otp = this.otps.get(msisdn);
    if (!otp || Date.now() >= otp.expiresAt) return this.refuse('OTP_EXPIRED');
    if (otp.attemptsLeft == 0) return this.refuse('OTP_LOCKED', { reason: 'code' });
    if (code != otp.code) return this.refuse('OTP_INVALID', { attemptsLeft: --otp.attemptsLeft });
    this.otps.delete(msisdn);
    const proof = fakeToken({ scope: 'otp-proof', sub: msisdn, purpose: this.purpose, exp: Date.now() / 1000 + 600 });
    return json({ verified: true, proof } satisfies OtpVerifyResponse);
  }

  /** The first read finds no receipt yet (`ACCEPTED`); later ones the number's final status. */
  delivery(otpId: string) {
    const otp = [...this.otps.values()].find((o) => o.otpId == otpId);
    if (!otp) return this.refuse('NOT_FOUND');
    return json({ deliveryStatus: otp.receiptReads++ ? lookUp(otp.msisdn).sms : 'ACCEPTED' });
  }
}
