import { randomInt } from 'node:crypto';
import type { OtpGenerateRequest, PinType } from '../provider/schemas/index.js';
import { constantTimeEquals } from './messaging-auth.js';

const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Characters a code of each pinType is drawn from (letters upper-case). */
export const PIN_ALPHABETS: Readonly<Record<PinType, string>> = {
  NUMERIC: DIGITS,
  ALPHABETIC: LETTERS,
  ALPHANUMERIC: DIGITS + LETTERS,
};

/** Draws a code of `length` characters from the pinType's alphabet with the crypto RNG. */
export function generateCode(pinType: PinType, length: number): string {
  const alphabet = PIN_ALPHABETS[pinType];
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/**
 * True when `given` is the code. Letters compare case-insensitively (codes are issued upper-case; people
 * type them in either case), and the comparison takes the same time whatever the input.
 */
export function codeMatches(code: string, given: string): boolean {
  return constantTimeEquals(code.toUpperCase(), given.toUpperCase());
}

const DURATION_MS = { seconds: 1_000, minutes: 60_000, hours: 3_600_000 } as const;

/** The simulated lifetime of an OTP in milliseconds (before the time scale). */
export function expiryMs(expiry: OtpGenerateRequest['expiry']): number {
  return expiry.amount * DURATION_MS[expiry.duration];
}

/** The SMS text: the template with every `{code}`, `{amount}` and `{duration}` replaced. */
export function renderTemplate(template: string, code: string, expiry: OtpGenerateRequest['expiry']): string {
  return template
    .replaceAll('{code}', code)
    .replaceAll('{amount}', String(expiry.amount))
    .replaceAll('{duration}', expiry.duration);
}

/** The masked form of a code, one asterisk per character. */
export function maskCode(code: string): string {
  return '*'.repeat(code.length);
}
