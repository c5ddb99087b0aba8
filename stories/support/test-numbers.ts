// The sandbox's test numbers (src/sandbox/test-numbers.ts, pure data), so that a designer playing with a story
// gets the outcomes documented for the local sandbox: type one of them and the fake proxy answers the same.
import {
  DEFAULT_PAYMENT_SECONDS,
  TEST_NUMBERS,
  derivedName,
  isGhanaianNumber,
  networkOf,
  type TestNumber,
} from '../../src/sandbox/test-numbers.js';

/**
 * A Ghanaian number as the proxy normalises it (`024 000 0001` → `233240000001`), or `undefined` when it is
 * not one (the proxy answers `INVALID_PHONE_NUMBER`).
 */
export function normalise(typed: string): string | undefined {
  const digits = typed.replace(/[\s().-]/g, '').replace(/^\+/, '');
  const full = digits.startsWith('0') ? `233${digits.slice(1)}` : digits;
  return isGhanaianNumber(full) ? full : undefined;
}

/** What the provider does with a valid number: its test entry, else a made-up holder whose payments complete. */
export function lookUp(msisdn: string): TestNumber {
  return (
    TEST_NUMBERS[msisdn] ?? {
      accountName: derivedName(msisdn),
      network: networkOf(msisdn)!,
      payment: 'COMPLETED',
      paymentAfterSeconds: DEFAULT_PAYMENT_SECONDS,
      sms: 'DELIVERED',
    }
  );
}

/** A number masked as the proxy shows it (`+233 24 *** **01`). */
export const maskPhone = (msisdn: string) => `+233 ${msisdn.slice(3, 5)} *** **${msisdn.slice(-2)}`;

/** The holder's name as the proxy shows it by default (`KWAME M.`). */
export function maskName(holder: string) {
  const words = holder.split(' ');
  return words.length > 1 ? `${words[0]} ${words.at(-1)!.charAt(0)}.` : holder;
}
