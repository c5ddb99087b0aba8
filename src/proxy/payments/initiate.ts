import { randomBytes } from 'node:crypto';
import type { PaymentSnapshot } from '../../protocol/index.js';
import {
  isProviderError,
  ProviderMalformedResponseError,
  ProviderUnavailableError,
  ProviderValidationError,
} from '../../provider/errors.js';
import type { ProxyContext } from '../context.js';
import { toProxyError } from '../errors.js';
import type { Relay } from '../relay/relay.js';
import type { PaymentClaims } from '../tokens/claims.js';
import type { AttemptEntry } from './attempts.js';
import { failed, termsOf } from './order-terms.js';
import { setAttemptPhase } from './orders.js';
import { applyTransaction, toPaymentSnapshot, type PaymentRecord } from './payment-record.js';

/**
 * Sends the one `POST /v1/payment` of an attempt this request claimed, and records what came of it. Once
 * the provider accepted it, the answer is 202 whatever the store does next: a store error after that is
 * made good by the reconciler (the record stays `initiating`, then `unknown`, then read by reference).
 */
export async function initiate(
  ctx: ProxyContext,
  relay: Relay,
  claims: PaymentClaims,
  msisdn: string,
  entry: AttemptEntry,
  left: number,
): Promise<PaymentSnapshot> {
  const tracker = relay.payments.tracker;
  const now = ctx.now();
  const record: PaymentRecord = {
    reference: entry.reference,
    orderReference: claims.referenceNo,
    jti: claims.jti,
    attempt: entry.n,
    // Tries used before this one (refusals among them) plus this one.
    ordinal: claims.maxAttempts - left,
    attemptsLeft: left,
    referenceId: null,
    // An unguessable id per payment: the callback route trusts nothing but its existence.
    callbackId: randomBytes(16).toString('base64url'),
    msisdn,
    payee: claims.payee,
    narration: claims.narration,
    phase: 'initiating',
    status: 'PENDING',
    terms: termsOf(claims),
    amount: claims.amount,
    charge: 0,
    totalAmount: claims.amount,
    currency: 'GHS',
    createdAt: now,
    updatedAt: now,
    deadlineAt: now + relay.options.deadlineMs,
    completedAt: null,
    notFoundReads: 0,
    seq: 1,
  };
  try {
    await tracker.create(record);
  } catch (err) {
    // Nothing was sent: give the attempt back.
    await setAttemptPhase(ctx.store, claims.referenceNo, entry.n, 'void').catch(() => undefined);
    throw err;
  }

  let initiation;
  try {
    initiation = await ctx.client.payments.initiate({
      amount: claims.amount,
      referenceNo: entry.reference,
      payee: claims.payee,
      narration: claims.narration,
      msisdn,
      callbackId: record.callbackId,
      payer: claims.payer ?? msisdn,
    });
  } catch (err) {
    return settleFailedInitiation(ctx, relay, record, err);
  }

  const data = initiation.data;
  const known: PaymentRecord = { ...record, phase: 'known', referenceId: data.referenceId, amount: data.amount, charge: data.charge, totalAmount: data.totalAmount };
  try {
    const result = await tracker.update(record.reference, (c) => (c.phase === 'initiating' ? { ...c, ...pick(known) } : null));
    await setAttemptPhase(ctx.store, claims.referenceNo, entry.n, 'sent');
    tracker.trackNow(record.reference);
    return toPaymentSnapshot(result.outcome === 'missing' ? known : result.value);
  } catch (err) {
    // The provider has the payment: the customer is told so. The reconciler finds the record in the
    // pending set once the store answers, and reads its status by reference.
    ctx.logger.error({ reference: record.reference, err: summary(err) }, 'payment accepted upstream but not recorded (store error); the reconciler will read it');
    tracker.sentButNotRecorded(record.reference);
    return toPaymentSnapshot(known);
  }
}

function pick(record: PaymentRecord): Partial<PaymentRecord> {
  const { phase, referenceId, amount, charge, totalAmount } = record;
  return { phase, referenceId, amount, charge, totalAmount };
}

/**
 * What a failed initiation means for the money (never a guess):
 * - outcome unknown (timeout, reset, 500, an unreadable 200, anything not from the provider client's
 *   taxonomy): the payment may exist. Never re-sent; the attempt stays, marked unknown, and the relay
 *   reads status by its referenceNo until it knows. The browser gets 202 PENDING (the stream settles it).
 * - refused by the provider (`0400`): "reference already used" looks the same as "invalid", so the status
 *   is read by reference. Found, it is adopted; not found, the attempt is refused (it counts; its number is
 *   free again) and the browser gets INSUFFICIENT_FUNDS or PAYMENT_FAILED; unreadable, it is unknown.
 * - a 503 answer: read by reference too (a gateway can lose the answer of a request it passed on); found
 *   or unreadable, unknown; not found, void, read on slowly in case it lands late.
 * - certainly not processed (never sent, circuit open, credentials refused, rate limited): void, not
 *   counted; the browser gets the mapped error (retryable ones say so).
 */
async function settleFailedInitiation(ctx: ProxyContext, relay: Relay, record: PaymentRecord, err: unknown): Promise<PaymentSnapshot> {
  const tracker = relay.payments.tracker;
  const log = ctx.logger;
  const refusedAfterSending = err instanceof ProviderValidationError && err.sent;
  const maybeLost = err instanceof ProviderUnavailableError && err.reason === 'http' && !err.outcomeUnknown;
  let unknownOutcome =
    !isProviderError(err) || (err instanceof ProviderUnavailableError && err.outcomeUnknown) || err instanceof ProviderMalformedResponseError;

  if (!unknownOutcome && (refusedAfterSending || maybeLost)) {
    const read = await tracker.upstream.read({ reference: record.reference, referenceId: null, phase: 'unknown' });
    if (read.kind === 'found') {
      log.warn({ reference: record.reference, status: read.tx.status }, 'initiation refused, but the payment exists upstream; adopted');
      const tx = read.tx;
      const result = await tracker.update(record.reference, (c) =>
        c.phase === 'initiating' ? { ...(applyTransaction({ ...c, phase: 'unknown' }, tx, ctx.now()) ?? c), adopted: true } : null,
      );
      await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'sent');
      // Now: a poller may already sleep on this reference on a written-off attempt's slow schedule.
      tracker.trackNow(record.reference);
      return toPaymentSnapshot(result.outcome === 'missing' ? record : result.value);
    }
    if (read.kind === 'error') unknownOutcome = true;
  }

  if (unknownOutcome) {
    log.warn({ reference: record.reference, err: summary(err) }, 'payment initiation outcome unknown; reconciling by status reads');
    const result = await tracker.update(record.reference, (c) => (c.phase === 'initiating' ? { ...c, phase: 'unknown' } : null));
    await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'sent');
    tracker.trackNow(record.reference);
    return toPaymentSnapshot(result.outcome === 'missing' ? record : result.value);
  }

  if (refusedAfterSending) {
    const failureCode = err.code === 'INSUFFICIENT_FUNDS' ? 'INSUFFICIENT_FUNDS' : 'PAYMENT_FAILED';
    log.warn({ reference: record.reference, err: summary(err) }, 'payment initiation refused by the provider');
    const result = await tracker.update(record.reference, (c) =>
      c.phase === 'initiating' ? { ...c, phase: 'known', status: 'FAILED', failureCode, refused: true } : null,
    );
    await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'refused');
    const value = result.outcome === 'missing' ? record : result.value;
    throw failed(failureCode, value.reference, value.attemptsLeft);
  }

  // Never processed (or, after a 503, not found now: read on slowly in case it lands late).
  await tracker.update(record.reference, (c) =>
    c.phase === 'initiating'
      ? { ...c, phase: 'void', status: 'VOID', failureCode: 'UPSTREAM_UNAVAILABLE', voidCertain: !maybeLost, attemptsLeft: c.attemptsLeft + 1 }
      : null,
  );
  await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'void');
  if (maybeLost) tracker.track(record.reference);
  throw toProxyError(err, log);
}

function summary(err: unknown): Record<string, unknown> {
  if (!isProviderError(err)) return { type: err instanceof Error ? err.name : typeof err };
  const reason = err instanceof ProviderUnavailableError ? err.reason : undefined;
  // `errorCode`, not `code`: the proxy's logger redacts every `code` (OTP codes).
  return { type: err.name, status: err.status, errorCode: err.code, operation: err.operation, reason };
}
