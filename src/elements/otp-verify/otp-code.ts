import type { OtpDeliveryStatus, OtpPinType } from '../../protocol/codes.js';
import { otpDeliveryPath } from '../../protocol/otp-paths.js';
import type { OtpDeliveryResponse } from '../../protocol/bodies.js';
import type { ProxyClient } from '../shared/proxy-client.js';
import { sleep } from '../shared/sleep.js';

/**
 * The code in what was typed or pasted: a run of exactly the code's length wins (`Your code is 123456`),
 * else every character a code can have (`123 456`), cut to the code's length.
 */
export function codeFrom(raw: string, pinType: OtpPinType, pinLength: number): string {
  const runs = raw.match(pinType == 'NUMERIC' ? /\d+/g : /[0-9a-z]+/gi) ?? [];
  return (runs.find((r) => r.length == pinLength) ?? runs.join('')).slice(0, pinLength);
}

/** True while a WebOTP request of this page is in flight (a page gets one at a time). */
let reading = false;

/**
 * WebOTP: the code of the SMS the browser offers (Android Chrome), or `undefined` if none comes. Only one
 * request per page: Chromium refuses a second one, and aborting several at once can crash its renderer.
 */
export async function readSmsCode(signal: AbortSignal): Promise<string | undefined> {
  if (!('OTPCredential' in window) || reading || signal.aborted) return;
  reading = true;
  try {
    const otp = await navigator.credentials.get({ otp: { transport: ['sms'] }, signal } as CredentialRequestOptions);
    return signal.aborted ? undefined : (otp as { code?: string } | null)?.code;
  } catch {
    // Aborted, refused or unsupported: the customer types the code.
  } finally {
    reading = false;
  }
}

/** Reads the SMS delivery receipt a few times (after `interval`, then 2×, 3×… later) until it is final. */
export async function pollDelivery(
  client: ProxyClient,
  otpId: string,
  interval: number,
  signal: AbortSignal,
  onStatus: (status: OtpDeliveryStatus) => void,
) {
  for (let i = 1; i < 6 && !signal.aborted; i++) {
    await sleep(interval * i, signal);
    try {
      const { deliveryStatus } = await client.get<OtpDeliveryResponse>(otpDeliveryPath(otpId), signal);
      onStatus(deliveryStatus);
      if (deliveryStatus != 'ACCEPTED') return;
    } catch {
      // No receipt yet, or none to be had: not worth a word to the customer.
    }
  }
}
