import type { DeliveryStatus, PaymentStatus } from '../provider/schemas/index.js';

/** Networks by the two digits after 233 (DESIGN: sandbox choices). */
export const NETWORK_PREFIXES: Readonly<Record<string, string>> = {
  '24': 'MTN', '25': 'MTN', '53': 'MTN', '54': 'MTN', '55': 'MTN', '59': 'MTN',
  '20': 'Telecel', '50': 'Telecel',
  '26': 'AirtelTigo', '27': 'AirtelTigo', '56': 'AirtelTigo', '57': 'AirtelTigo',
};

export interface TestNumber {
  /** Account holder name, or null: the lookup answers `0404`. */
  accountName: string | null;
  network: string;
  /**
   * Final payment status; `PENDING`: nothing answers by itself, the phone page does (Approve, Decline), and an
   * unanswered prompt expires after its network's {@link PROMPT_LIFETIME_SECONDS} (unless `neverEnds`).
   */
  payment: PaymentStatus;
  /** Seconds (before time scale) until the payment reaches its final status. */
  paymentAfterSeconds: number;
  /** Why a FAILED payment failed (provider error code), when it did. */
  failureCode?: string;
  /**
   * The gateway refuses the request at once (the error body the specification shows for insufficient
   * funds: `{ error: 'INSUFFICIENT_FUNDS' }`) instead of accepting it: no transaction, no prompt.
   */
  refusedAtInitiation?: boolean;
  /**
   * The provider never reports an end of this number's payments: no prompt expiry either, PENDING until the
   * phone page answers (the "never answers" case: a network that loses its prompts).
   */
  neverEnds?: boolean;
  /** Final delivery status of an SMS to this number. */
  sms: DeliveryStatus;
}

/** The documented test numbers (DESIGN: "Test numbers"). */
export const TEST_NUMBERS: Readonly<Record<string, TestNumber>> = {
  '233240000001': { accountName: 'KWAME MENSAH', network: 'MTN', payment: 'COMPLETED', paymentAfterSeconds: 3, sms: 'DELIVERED' },
  '233240000002': { accountName: 'AMA SERWAA', network: 'MTN', payment: 'FAILED', paymentAfterSeconds: 0, failureCode: 'INSUFFICIENT_FUNDS', refusedAtInitiation: true, sms: 'UNDELIVERED' },
  '233200000003': { accountName: 'KOFI BOATENG', network: 'Telecel', payment: 'CANCELLED', paymentAfterSeconds: 3, sms: 'REJECTED' },
  '233260000004': { accountName: 'ESI OWUSU', network: 'AirtelTigo', payment: 'PENDING', paymentAfterSeconds: Infinity, neverEnds: true, sms: 'EXPIRED' },
  '233240000005': { accountName: 'YAW ASANTE', network: 'MTN', payment: 'PENDING', paymentAfterSeconds: Infinity, sms: 'DELIVERED' },
  '233240000404': { accountName: null, network: 'MTN', payment: 'FAILED', paymentAfterSeconds: 3, failureCode: 'PAYMENT_FAILED', sms: 'DELIVERED' },
};

/** Seconds (before time scale) until an ordinary number's payment completes, unless the phone page acts first. */
export const DEFAULT_PAYMENT_SECONDS = 5;

/**
 * Seconds (before time scale) a payment prompt stays open on a phone of each network (a sandbox choice, DESIGN:
 * sandbox); unanswered by then, the payment ends `FAILED`, as a network reports a prompt that timed out. A shop
 * hands these to its proxy's configuration so that the page can say until when a prompt can be approved.
 */
export const PROMPT_LIFETIME_SECONDS: Readonly<Record<string, number>> = { MTN: 120, Telecel: 90, AirtelTigo: 150 };

/** True for 233 followed by 9 digits whose first two are a known network prefix. */
export function isGhanaianNumber(digits: string): boolean {
  return /^233\d{9}$/.test(digits) && digits.slice(3, 5) in NETWORK_PREFIXES;
}

/** Phone rule of the sandbox: Ghanaian unless `isGlobal`, then any 8 to 15 digits. */
export function isValidNumber(digits: string, isGlobal: boolean): boolean {
  return isGlobal ? /^\d{8,15}$/.test(digits) : isGhanaianNumber(digits);
}

/**
 * A Ghanaian mobile number as people type it, in the sandbox's digits (`233240000001`): local (`024 000 0001`,
 * `0240000001`), international (`+233 24 000 0001`, `00233…`) or already digits; spaces, dashes, dots and
 * brackets ignored. Undefined when it is not one (a known network prefix, 9 digits after 233).
 */
export function ghanaianDigits(typed: string): string | undefined {
  const digits = typed.trim().replace(/[\s().-]/g, '').replace(/^(\+|00)/, '');
  const full = /^0\d{9}$/.test(digits) ? `233${digits.slice(1)}` : digits;
  return isGhanaianNumber(full) ? full : undefined;
}

export function networkOf(digits: string): string | null {
  return NETWORK_PREFIXES[digits.slice(3, 5)] ?? null;
}

const FIRST = ['KWAME', 'AMA', 'KOFI', 'ESI', 'YAW', 'AKOSUA', 'KWESI', 'ABENA', 'KOJO', 'ADWOA'];
const LAST = ['MENSAH', 'ASANTE', 'BOATENG', 'OWUSU', 'OSEI', 'APPIAH', 'ADJEI', 'DARKO', 'ANSAH', 'FRIMPONG'];

/** A stable made-up name for any other valid number, derived from its digits. */
export function derivedName(digits: string): string {
  const n = Number(digits.slice(-4));
  return `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / 10) % LAST.length]}`;
}
