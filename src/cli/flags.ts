// Checks of command-line values made here, before anything is sent, so that a mistake is a usage error
// (exit 2) that quotes what was typed, rather than `NaN` or the provider's "not found".
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';
import { UsageError } from './errors.js';

/** A port typed as a flag (or `PORT`): a whole number from 0 to 65535. */
export function portFlag(raw: string, flag = '--port'): number {
  const port = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`${flag} must be a whole number from 0 to 65535, got "${raw}"`);
  }
  return port;
}

/** A positive number typed as a flag (`--time-scale 0.1`). */
export function positiveNumberFlag(raw: string, flag: string): number {
  const value = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${flag} must be a positive number, got "${raw}"`);
  return value;
}

/** The country of local numbers: `DEFAULT_COUNTRY`, as the proxy reads it, else Ghana. */
export const defaultCountry = (env: NodeJS.ProcessEnv): string => env.DEFAULT_COUNTRY?.trim().toUpperCase() || 'GH';

/**
 * The provider's form of a number typed in its local form (`0240000001` → `233240000001`), or undefined
 * when it is not one: the provider takes digits with the country code, and reads a local form as another
 * number altogether.
 */
export function internationalFormOf(raw: string, country: string): string | undefined {
  const typed = raw.replace(/[\s\-().]/g, '');
  if (!/^0\d+$/.test(typed)) return undefined;
  const parsed = parsePhoneNumberFromString(typed, country as CountryCode);
  return parsed?.isValid() ? parsed.number.slice(1) : undefined;
}

/**
 * A number as the provider takes it, checked here: digits with the country code, no `+`, a valid number.
 * Otherwise a usage error; for a local form it names the digits to give instead.
 */
export function providerNumber(raw: string, what: string, country: string): string {
  const international = internationalFormOf(raw, country);
  if (international) {
    throw new UsageError(`${what} "${raw}" is not a valid number as the provider takes it: give it with its country code, ${international}`);
  }
  if (!/^\d{8,15}$/.test(raw) || !parsePhoneNumberFromString(`+${raw}`)?.isValid()) {
    throw new UsageError(`${what} "${raw}" is not a valid number: digits with the country code, without + (233240000001)`);
  }
  return raw;
}

/** Refuses a local-form number with the digits to give instead (other numbers are the provider's to judge). */
export function notLocalForm(raw: string, what: string, country: string): string {
  const international = internationalFormOf(raw, country);
  if (international) {
    throw new UsageError(`${what} "${raw}" is a local number: give it with its country code, ${international}`);
  }
  return raw;
}

/** An email address typed as a flag (the provider would refuse a bad one only after the call). */
export function emailFlag(raw: string, flag: string): string {
  if (!z.email().safeParse(raw).success) throw new UsageError(`${flag} must be an email address, got "${raw}"`);
  return raw;
}
