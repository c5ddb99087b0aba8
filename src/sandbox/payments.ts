import {
  FINAL_PAYMENT_STATUSES,
  type PaymentInitiateRequest,
  type PaymentStatus,
} from '../provider/schemas/index.js';
import { priceOf } from './money.js';
import type { PaymentRecord, SandboxState } from './state.js';
import { DEFAULT_PAYMENT_SECONDS, PROMPT_LIFETIME_SECONDS, TEST_NUMBERS, networkOf } from './test-numbers.js';

/** `failureCode` of a payment whose prompt expired unanswered (the inspection view shows it). */
export const PROMPT_EXPIRED = 'PROMPT_EXPIRED';

/** Real milliseconds the status callback may take before it is abandoned (one try, best effort). */
export const CALLBACK_TIMEOUT_MS = 2_000;

/**
 * The status of a payment at `now`, without changing it: the recorded status once final (set by the
 * schedule or the phone page), else the scheduled outcome once `settleAt` has passed, else PENDING.
 */
export function currentStatus(record: PaymentRecord, now: number): PaymentStatus {
  if (record.status !== 'PENDING') return record.status;
  return now >= record.settleAt ? record.scheduledStatus : 'PENDING';
}

/** True for COMPLETED, FAILED and CANCELLED. */
export function isFinal(status: PaymentStatus): boolean {
  return FINAL_PAYMENT_STATUSES.includes(status);
}

/**
 * Applies the scheduled outcome when it is due (settlement is evaluated lazily, on read) and returns the
 * record. A COMPLETED payment's completedAt is the moment it settled, not the moment it was read.
 */
export function refreshPayment(record: PaymentRecord, now: number): PaymentRecord {
  const status = currentStatus(record, now);
  if (status !== record.status) settle(record, status, record.settleAt);
  return record;
}

/** Finds a payment by referenceId, then by referenceNo, and brings it up to date. */
export function findPayment(
  state: SandboxState,
  reference: string,
  by: 'either' | 'referenceNo' | 'referenceId' = 'either',
): PaymentRecord | undefined {
  const byNo = by === 'referenceId' ? undefined : state.paymentsByNo.get(reference);
  const byId = by === 'referenceNo' ? undefined : state.payments.get(reference);
  const record = byId ?? (byNo === undefined ? undefined : state.payments.get(byNo));
  return record && refreshPayment(record, state.now());
}

/** A payment record of `request` received at `now` (one reading of the clock: its schedule counts from it), with what the gateway decided of it. */
function received(
  state: SandboxState,
  request: PaymentInitiateRequest,
  now: number,
  outcome: Pick<PaymentRecord, 'status' | 'settleAt' | 'scheduledStatus' | 'promptExpiresAt' | 'failureCode'>,
): PaymentRecord {
  return {
    referenceId: state.uuid(),
    referenceNo: request.referenceNo,
    transactionId: state.ulid(),
    ...priceOf(request.amount),
    payee: request.payee,
    payer: request.payer,
    narration: request.narration,
    msisdn: request.msisdn,
    callbackId: request.callbackId,
    createdAt: now,
    completedAt: null,
    ...outcome,
  };
}

/**
 * Records a request the gateway refused at initiation (a test number's insufficient funds), FAILED, for the
 * inspection view only: no status read finds it and its referenceNo stays free.
 */
export function refusePayment(state: SandboxState, request: PaymentInitiateRequest, failureCode: string): PaymentRecord {
  const now = state.now();
  const record = received(state, request, now, { status: 'FAILED', settleAt: now, scheduledStatus: 'FAILED', promptExpiresAt: now, failureCode });
  state.refusedPayments.push(record);
  return record;
}

/**
 * Records an accepted payment request, PENDING, with its outcome scheduled by the payer's number: test
 * numbers by their table, any other number COMPLETED after DEFAULT_PAYMENT_SECONDS (time-scaled). A prompt
 * still unanswered when its network's lifetime ends fails then (PROMPT_EXPIRED), unless the number `neverEnds`.
 */
export function createPayment(state: SandboxState, request: PaymentInitiateRequest): PaymentRecord {
  const now = state.now();
  const test = TEST_NUMBERS[request.msisdn];
  const seconds = test ? test.paymentAfterSeconds : DEFAULT_PAYMENT_SECONDS;
  const lifetime = test?.neverEnds ? Infinity : (PROMPT_LIFETIME_SECONDS[test?.network ?? networkOf(request.msisdn) ?? ''] ?? Infinity);
  const outcomeAt = Number.isFinite(seconds) ? now + state.scaled(seconds * 1000) : Infinity;
  const promptExpiresAt = Number.isFinite(lifetime) ? now + state.scaled(lifetime * 1000) : Infinity;
  const expires = promptExpiresAt < outcomeAt;
  const record = received(state, request, now, {
    status: 'PENDING',
    settleAt: expires ? promptExpiresAt : outcomeAt,
    scheduledStatus: expires ? 'FAILED' : test ? test.payment : 'COMPLETED',
    promptExpiresAt,
  });
  state.payments.set(record.referenceId, record);
  state.paymentsByNo.set(record.referenceNo, record.referenceId);
  if (state.options.paymentCallbackUrl && Number.isFinite(record.settleAt)) {
    state.schedule(record.settleAt - now, () => {
      refreshPayment(record, Math.max(state.now(), record.settleAt));
      notifyIfFinal(state, record);
    });
  }
  return record;
}

/**
 * The customer's answer on the phone page: COMPLETED (approve) or CANCELLED (decline), only while the
 * payment is still PENDING. Returns false when it is not.
 */
export function answerPrompt(state: SandboxState, record: PaymentRecord, answer: 'COMPLETED' | 'CANCELLED'): boolean {
  const now = state.now();
  refreshPayment(record, now);
  if (record.status !== 'PENDING') return false;
  settle(record, answer, now);
  notifyIfFinal(state, record);
  return true;
}

/** Posts the status callback once, when the payment is final and a callback URL is configured. */
export function notifyIfFinal(state: SandboxState, record: PaymentRecord): void {
  const template = state.options.paymentCallbackUrl;
  if (!template || record.callbackSentAt !== undefined || !isFinal(record.status)) return;
  record.callbackSentAt = state.now();
  const url = template.replaceAll('{callbackId}', encodeURIComponent(record.callbackId));
  const body = {
    callbackId: record.callbackId,
    referenceId: record.referenceId,
    referenceNo: record.referenceNo,
    status: record.status,
  };
  // Best effort: one try, a short timeout, and no interest in the answer.
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
  }).then(
    (res) => res.body?.cancel(),
    () => undefined,
  );
}

function settle(record: PaymentRecord, status: PaymentStatus, at: number): void {
  record.status = status;
  if (status === 'COMPLETED') record.completedAt = at;
  if (status === 'FAILED') {
    record.failureCode = at >= record.promptExpiresAt ? PROMPT_EXPIRED : (TEST_NUMBERS[record.msisdn]?.failureCode ?? 'PAYMENT_FAILED');
  }
}
