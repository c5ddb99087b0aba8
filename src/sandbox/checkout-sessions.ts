import {
  FINAL_CHECKOUT_STATUSES,
  type CheckoutInitializeRequest,
  type CheckoutStatus,
} from '../provider/schemas/index.js';
import type { CheckoutRecord, SandboxState } from './state.js';

/** Minutes (before time scale) a session stays payable. */
export const CHECKOUT_TTL_MINUTES = 30;
/** Seconds (before time scale) between Pay on the hosted page and the payment's outcome. */
export const CHECKOUT_PAYMENT_SECONDS = 2;
/** Payment method reported on a completed session. */
export const CHECKOUT_PAYMENT_METHOD = 'mobile_money';

/** Outcome of a hosted-page payment by the number entered (`processing`: never settles, then expires). */
const OUTCOMES: Readonly<Record<string, CheckoutStatus>> = {
  '233240000001': 'completed',
  '233240000002': 'failed',
  '233200000003': 'cancelled',
  '233260000004': 'processing',
};

/** True for completed, failed, expired and cancelled. */
export function isFinalCheckout(status: CheckoutStatus): boolean {
  return FINAL_CHECKOUT_STATUSES.includes(status);
}

/** Creates an unpaid session (`pending` to the status read) that expires after the time-scaled TTL. */
export function createCheckout(
  state: SandboxState,
  request: CheckoutInitializeRequest,
  origin: string,
): CheckoutRecord {
  const now = state.now();
  const checkoutId = state.uuid();
  const record: CheckoutRecord = {
    checkoutId,
    ...request,
    checkoutUrl: `${origin.replace(/\/+$/, '')}/checkout/${checkoutId}`,
    createdAt: now,
    expiresAt: now + state.scaled(CHECKOUT_TTL_MINUTES * 60_000),
    status: 'pending',
  };
  state.checkouts.set(checkoutId, record);
  return record;
}

/**
 * Brings a session up to date (evaluated lazily, on read): a processing payment settles at `settleAt`
 * unless the session expired first; a session not final by `expiresAt` is `expired`.
 */
export function refreshCheckout(state: SandboxState, record: CheckoutRecord): CheckoutRecord {
  if (isFinalCheckout(record.status)) return record;
  const now = state.now();
  const { settleAt, scheduledStatus } = record;
  if (
    record.status === 'processing' &&
    settleAt !== undefined &&
    scheduledStatus !== undefined &&
    isFinalCheckout(scheduledStatus) &&
    settleAt <= Math.min(now, record.expiresAt)
  ) {
    finish(state, record, scheduledStatus, settleAt);
  } else if (now >= record.expiresAt) {
    finish(state, record, 'expired', record.expiresAt);
  }
  return record;
}

/** Finds a session by id and brings it up to date. */
export function findCheckout(state: SandboxState, checkoutId: string): CheckoutRecord | undefined {
  const record = state.checkouts.get(checkoutId);
  return record && refreshCheckout(state, record);
}

/** Pay pressed with a valid number: `processing`, settling after the time-scaled delay. */
export function startPayment(state: SandboxState, record: CheckoutRecord, msisdn: string): void {
  record.status = 'processing';
  record.msisdn = msisdn;
  record.settleAt = state.now() + state.scaled(CHECKOUT_PAYMENT_SECONDS * 1000);
  record.scheduledStatus = OUTCOMES[msisdn] ?? 'completed';
}

/** Cancel pressed on the hosted page. */
export function cancelCheckout(state: SandboxState, record: CheckoutRecord): void {
  finish(state, record, 'cancelled', state.now());
}

/** `returnUrl` with `checkoutId` and `status` added to its query (its own parameters kept). */
export function returnUrlOf(record: CheckoutRecord): string {
  const url = new URL(record.returnUrl);
  url.searchParams.set('checkoutId', record.checkoutId);
  url.searchParams.set('status', record.status);
  return url.toString();
}

function finish(state: SandboxState, record: CheckoutRecord, status: CheckoutStatus, at: number): void {
  record.status = status;
  record.completedAt = at;
  if (status === 'completed') {
    record.paymentMethod = CHECKOUT_PAYMENT_METHOD;
    record.transactionId = state.ulid();
  }
}
