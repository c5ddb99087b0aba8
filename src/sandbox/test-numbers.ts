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
  /** Final payment status; `PENDING` stays pending forever. */
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
  /** Final delivery status of an SMS to this number. */
  sms: DeliveryStatus;
}

/** The documented test numbers (DESIGN: "Test numbers"). */
export const TEST_NUMBERS: Readonly<Record<string, TestNumber>> = {
  '233240000001': { accountName: 'KWAME MENSAH', network: 'MTN', payment: 'COMPLETED', paymentAfterSeconds: 3, sms: 'DELIVERED' },
  '233240000002': { accountName: 'AMA SERWAA', network: 'MTN', payment: 'FAILED', paymentAfterSeconds: 0, failureCode: 'INSUFFICIENT_FUNDS', refusedAtInitiation: true, sms: 'UNDELIVERED' },
  '233200000003': { accountName: 'KOFI BOATENG', network: 'Telecel', payment: 'CANCELLED', paymentAfterSeconds: 3, sms: 'REJECTED' },
  '233260000004': { accountName: 'ESI OWUSU', network: 'AirtelTigo', payment: 'PENDING', paymentAfterSeconds: Infinity, sms: 'EXPIRED' },
  '233240000404': { accountName: null, network: 'MTN', payment: 'FAILED', paymentAfterSeconds: 3, failureCode: 'PAYMENT_FAILED', sms: 'DELIVERED' },
};

/** Seconds (before time scale) until an ordinary number's payment completes, unless the phone page acts first. */
export const DEFAULT_PAYMENT_SECONDS = 5;

/** True for 233 followed by 9 digits whose first two are a known network prefix. */
export function isGhanaianNumber(digits: string): boolean {
  return /^233\d{9}$/.test(digits) && digits.slice(3, 5) in NETWORK_PREFIXES;
}

/** Phone rule of the sandbox: Ghanaian unless `isGlobal`, then any 8 to 15 digits. */
export function isValidNumber(digits: string, isGlobal: boolean): boolean {
  return isGlobal ? /^\d{8,15}$/.test(digits) : isGhanaianNumber(digits);
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
