import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { BoundedMap } from './bounded-map.js';
import { ProxyError } from './errors.js';

/** A number as the provider takes it, and what we know of it. */
export interface NormalisedPhone {
  /** E.164 digits without the `+` (`233240000001`). */
  digits: string;
  /** ISO country of the number (`GH`), when known. */
  country: string | undefined;
  /** The country calling code (`233`). */
  callingCode: string;
  /** The national significant number (`240000001`). */
  national: string;
}

const COUNTRY_NAMES: Record<string, string> = { GH: 'Ghanaian', NG: 'Nigerian', KE: 'Kenyan', CI: 'Ivorian' };

/**
 * Numbers already normalised, by country and input as typed. A page sends its number with every call (a
 * code sent, each try at it, a payment), and a libphonenumber parse with full metadata is a tenth of a
 * proxied OTP validation's CPU (measured by `npm run bench`). Only valid numbers are kept.
 */
const normalised = new BoundedMap<string, Readonly<NormalisedPhone>>(10_000);

/**
 * Normalises whatever a person typed: local (`024 000 0001`), international (`+233 24 000 0001`,
 * `00233…`) or digits with the country code (`233240000001`). Throws INVALID_PHONE_NUMBER when it is
 * not a valid number.
 */
export function normalisePhone(input: string, defaultCountry: string): Readonly<NormalisedPhone> {
  const key = `${defaultCountry}:${input}`;
  const known = normalised.get(key);
  if (known) return known;
  const phone = Object.freeze(parse(input, defaultCountry));
  normalised.set(key, phone);
  return phone;
}

function parse(input: string, defaultCountry: string): NormalisedPhone {
  const cleaned = input.trim().replace(/[\s\-().]/g, '');
  if (!/^\+?\d{4,17}$/.test(cleaned)) throw invalidNumber();
  const candidate = cleaned.startsWith('00') ? `+${cleaned.slice(2)}` : cleaned;
  let parsed = parsePhoneNumberFromString(candidate, defaultCountry as CountryCode);
  if ((!parsed || !parsed.isValid()) && !candidate.startsWith('+') && !candidate.startsWith('0')) {
    parsed = parsePhoneNumberFromString(`+${candidate}`);
  }
  if (!parsed || !parsed.isValid()) throw invalidNumber();
  const digits = parsed.number.slice(1);
  return { digits, country: parsed.country, callingCode: parsed.countryCallingCode, national: parsed.nationalNumber };
}

/**
 * Normalises a number and refuses one of another country than `country` (the OTP and mobile-money
 * country allowlist), with a sentence naming the country allowed.
 */
export function normaliseLocalPhone(input: string, country: string): Readonly<NormalisedPhone> {
  const phone = normalisePhone(input, country);
  if (phone.country !== country || phone.callingCode !== callingCodeOf(country)) {
    const name = COUNTRY_NAMES[country];
    throw new ProxyError(
      'INVALID_PHONE_NUMBER',
      name ? `Only ${name} numbers can be used here.` : `Only numbers of ${country} can be used here.`,
    );
  }
  return phone;
}

/**
 * Calling codes by country, looked up once: libphonenumber builds a metadata object on every
 * `getCountryCallingCode`, and every number a page sends is checked against its country's code.
 */
const callingCodes = new Map<string, string | undefined>();

function callingCodeOf(country: string): string | undefined {
  if (callingCodes.has(country)) return callingCodes.get(country);
  let code: string | undefined;
  try {
    code = getCountryCallingCode(country as CountryCode);
  } catch {
    code = undefined;
  }
  // Only the configured country reaches here (routes pass `defaultCountry`): the map holds one entry.
  callingCodes.set(country, code);
  return code;
}

function invalidNumber(): ProxyError {
  return new ProxyError('INVALID_PHONE_NUMBER', 'This phone number is not valid.');
}

/**
 * A number masked for display: the country code and the first two national digits, then stars, then
 * the last two (`+233 24 *** **01`). Takes E.164 digits without `+`; a number already masked (a record's
 * number at rest) is returned as it is.
 */
export function maskPhone(digits: string): string {
  if (isMasked(digits)) return digits;
  const parsed = parsePhoneNumberFromString(`+${digits}`);
  if (!parsed) return maskForLog(digits);
  const national = parsed.nationalNumber;
  const head = national.slice(0, 2);
  const tail = national.slice(-2);
  const hidden = '*'.repeat(Math.max(national.length - 4, 1));
  const middle = hidden.length > 3 ? `${hidden.slice(0, 3)} ${hidden.slice(3)}` : hidden;
  return `+${parsed.countryCallingCode} ${head} ${middle}${tail}`;
}

/** A number masked for logs: its first three and last three digits (`233******001`). */
export function maskForLog(digits: string): string {
  if (isMasked(digits)) return digits;
  if (digits.length <= 6) return '*'.repeat(digits.length);
  return `${digits.slice(0, 3)}${'*'.repeat(digits.length - 6)}${digits.slice(-3)}`;
}

/** The number less its last four digits: the unit of the SMS-pumping velocity cap. */
export function phonePrefix(digits: string): string {
  return digits.slice(0, Math.max(digits.length - 4, 1));
}

/** True for a number already masked (by {@link maskPhone} or {@link maskForLog}): nothing to send to or compare. */
export function isMasked(number: string): boolean {
  return number.includes('*');
}
