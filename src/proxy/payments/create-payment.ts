import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentSnapshot } from '../../protocol/index.js';
import {
  isProviderError,
  ProviderMalformedResponseError,
  ProviderNotFoundError,
  ProviderUnavailableError,
  ProviderValidationError,
} from '../../provider/errors.js';
import type { ProxyContext } from '../context.js';
import { ProxyError, toProxyError } from '../errors.js';
import type { Relay } from '../relay/relay.js';
import type { PaymentClaims } from '../tokens/claims.js';
import { attemptsLeft, decideAttempt, type AttemptEntry, type OrderRecord } from './attempts.js';
import { KEYS, RECORD_TTL_MS } from './keys.js';
import { setAttemptPhase } from './orders.js';
import { isFinalPaymentStatus, toPaymentSnapshot, type PaymentRecord } from './payment-record.js';

/** How often a request waiting on another's initiation re-reads the order record. */
const WAIT_STEP_MS = 25;

/**
 * `POST /payments`: answers with the order's current payment, or starts the next attempt
 * (DESIGN: payment attempts and money safety).
 *
 * Exactly one upstream `POST /v1/payment` per attempt, across requests and instances: the attempt is
 * claimed by a compare-and-set on the order record (`pay:order:<orderReference>`) before anything is
 * sent; every request that loses the race waits for the winner's outcome by re-reading the record, and
 * answers the same payment. The order record is keyed by the order reference (not the jti) so that a
 * token minted again for the same order neither reuses `ORDER-1` upstream nor pays beside a pending
 * payment; `maxAttempts` is still counted per token.
 */
export async function createPayment(ctx: ProxyContext, relay: Relay, claims: PaymentClaims, msisdn: string): Promise<PaymentSnapshot> {
  const { store } = ctx;
  const tracker = relay.payments.tracker;
  const orderKey = KEYS.order(claims.referenceNo);
  const empty: OrderRecord = { orderReference: claims.referenceNo, attempts: [] };
  await store.setIfAbsent(orderKey, JSON.stringify(empty), RECORD_TTL_MS);
  const waitUntil = ctx.now() + relay.options.initiationWaitMs;
  let waitedOn: AttemptEntry | undefined;

  for (;;) {
    const raw = await store.get(orderKey);
    if (raw === null) {
      await store.setIfAbsent(orderKey, JSON.stringify(empty), RECORD_TTL_MS);
      continue;
    }
    const order = JSON.parse(raw) as OrderRecord;
    if (waitedOn) {
      // A request that waited on another's initiation answers with that attempt's outcome, whatever it
      // is: it never goes on to start the next attempt itself.
      const settled = order.attempts.find((a) => a.n === waitedOn!.n);
      if (settled && settled.phase !== 'initiating') return answerFor(relay, settled);
    }
    const current = order.attempts.filter((a) => a.phase !== 'void').at(-1);
    const currentRecord = current ? await tracker.read(current.reference) : null;
    const decision = decideAttempt(order, {
      jti: claims.jti,
      maxAttempts: claims.maxAttempts,
      now: ctx.now(),
      leaseMs: relay.options.initiationLeaseMs,
      currentStatus: currentRecord?.status ?? null,
    });

    switch (decision.kind) {
      case 'existing':
        return answerFor(relay, decision.entry);
      case 'wait': {
        waitedOn = decision.entry;
        if (ctx.now() > waitUntil) {
          // Still in flight past any client timeout: answer it as pending; the relay settles it.
          if (currentRecord) return toPaymentSnapshot(currentRecord);
          throw unavailable();
        }
        await sleep(WAIT_STEP_MS + Math.floor(Math.random() * WAIT_STEP_MS));
        continue;
      }
      case 'stale': {
        if (currentRecord) await tracker.markUnknown(currentRecord);
        else await setAttemptPhase(store, claims.referenceNo, decision.entry.n, 'void');
        tracker.track(decision.entry.reference);
        continue;
      }
      case 'exhausted':
        throw new ProxyError('ATTEMPTS_EXHAUSTED', 'No more payment attempts are allowed for this order.', { attemptsLeft: 0 });
      case 'new': {
        const entry: AttemptEntry = { n: decision.n, reference: decision.reference, jti: claims.jti, phase: 'initiating', startedAt: ctx.now() };
        const next: OrderRecord = { ...order, attempts: [...order.attempts, entry] };
        if (!(await store.compareAndSet(orderKey, raw, JSON.stringify(next), RECORD_TTL_MS))) continue;
        return initiate(ctx, relay, claims, msisdn, entry, attemptsLeft(next, claims.jti, claims.maxAttempts));
      }
    }
  }
}

/**
 * The answer for an attempt that is not in flight: its snapshot, or, when it never reached the provider
 * or the provider refused it outright, the error its own request answered.
 */
async function answerFor(relay: Relay, entry: AttemptEntry): Promise<PaymentSnapshot> {
  const tracker = relay.payments.tracker;
  const record = await tracker.read(entry.reference);
  if (!record || entry.phase === 'void' || record.phase === 'void') throw unavailable();
  if (record.refused) throw failed(record);
  if (!isFinalPaymentStatus(record.status)) tracker.track(record.reference);
  return toPaymentSnapshot(record);
}

function unavailable(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
}

/** The error of an initiation the provider refused (`0400`). */
function failed(record: PaymentRecord): ProxyError {
  const code = record.failureCode === 'INSUFFICIENT_FUNDS' ? 'INSUFFICIENT_FUNDS' : 'PAYMENT_FAILED';
  return new ProxyError(
    code,
    code === 'INSUFFICIENT_FUNDS' ? 'The account does not have enough funds for this payment.' : 'The payment could not be made.',
    { reference: record.reference, attemptsLeft: record.attemptsLeft },
  );
}

/** Sends the one `POST /v1/payment` of an attempt this request claimed, and records what came of it. */
async function initiate(
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
    attemptsLeft: left,
    referenceId: null,
    // An unguessable id per payment: the callback route trusts nothing but its existence.
    callbackId: randomBytes(16).toString('base64url'),
    msisdn,
    payee: claims.payee,
    narration: claims.narration,
    phase: 'initiating',
    status: 'PENDING',
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
  const result = await tracker.update(record.reference, (c) =>
    c.phase === 'initiating'
      ? { ...c, phase: 'known', referenceId: data.referenceId, amount: data.amount, charge: data.charge, totalAmount: data.totalAmount }
      : null,
  );
  await setAttemptPhase(ctx.store, claims.referenceNo, entry.n, 'sent');
  tracker.track(record.reference);
  return toPaymentSnapshot(result.outcome === 'missing' ? record : result.value);
}

/**
 * What a failed initiation means for the money:
 * - outcome unknown (timeout, reset, 500, an unreadable 200, anything not from the provider client's
 *   taxonomy): the payment may exist. Never re-sent; the attempt stays, marked unknown, and the relay
 *   reads status by its referenceNo until it knows. The browser gets 202 PENDING (the stream settles it).
 * - refused as invalid by the provider (`0400`): the attempt is spent and FAILED; the browser gets
 *   INSUFFICIENT_FUNDS when the provider said so, else PAYMENT_FAILED.
 * - certainly not processed (503 once a status read answered `0404`, circuit open, credentials refused,
 *   rate limited, refused before sending): the attempt is void and not counted; the browser gets the mapped
 *   error (retryable ones say so).
 */
async function settleFailedInitiation(ctx: ProxyContext, relay: Relay, record: PaymentRecord, err: unknown): Promise<PaymentSnapshot> {
  const tracker = relay.payments.tracker;
  const log = ctx.logger;
  const unknownOutcome =
    !isProviderError(err) ||
    (err instanceof ProviderUnavailableError && err.outcomeUnknown) ||
    err instanceof ProviderMalformedResponseError ||
    (await mayExistDespiteRefusal(ctx, record, err));

  if (unknownOutcome) {
    log.warn({ reference: record.reference, err: summary(err) }, 'payment initiation outcome unknown; reconciling by status reads');
    const result = await tracker.update(record.reference, (c) => (c.phase === 'initiating' ? { ...c, phase: 'unknown' } : null));
    await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'sent');
    tracker.track(record.reference);
    return toPaymentSnapshot(result.outcome === 'missing' ? record : result.value);
  }

  if (err instanceof ProviderValidationError && err.sent) {
    const failureCode = err.code === 'INSUFFICIENT_FUNDS' ? 'INSUFFICIENT_FUNDS' : 'PAYMENT_FAILED';
    log.warn({ reference: record.reference, err: summary(err) }, 'payment initiation refused by the provider');
    const result = await tracker.update(record.reference, (c) =>
      c.phase === 'initiating' ? { ...c, phase: 'known', status: 'FAILED', failureCode, refused: true } : null,
    );
    await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'sent');
    throw failed(result.outcome === 'missing' ? { ...record, failureCode } : result.value);
  }

  await tracker.update(record.reference, (c) =>
    c.phase === 'initiating'
      ? { ...c, phase: 'void', status: 'FAILED', failureCode: 'UPSTREAM_UNAVAILABLE', attemptsLeft: c.attemptsLeft + 1 }
      : null,
  );
  await setAttemptPhase(ctx.store, record.orderReference, record.attempt, 'void');
  throw toProxyError(err, log);
}

/**
 * A 503 answer says the provider did not process the request, but a gateway in front of it can lose the
 * answer of one it did (the sandbox's `503;after`; a 502 is already an unknown outcome in the client). Before such an attempt is written off (and the
 * next POST pays again under a new referenceNo), its status is read: only a `0404` confirms it was never
 * created; found, or unreadable, it is reconciled by the relay like any unknown outcome.
 */
async function mayExistDespiteRefusal(ctx: ProxyContext, record: PaymentRecord, err: unknown): Promise<boolean> {
  if (!(err instanceof ProviderUnavailableError) || err.reason !== 'http') return false;
  try {
    await ctx.client.payments.status(record.reference);
    return true;
  } catch (readErr) {
    return !(readErr instanceof ProviderNotFoundError);
  }
}

function summary(err: unknown): Record<string, unknown> {
  if (!isProviderError(err)) return { type: err instanceof Error ? err.name : typeof err };
  const reason = err instanceof ProviderUnavailableError ? err.reason : undefined;
  // `errorCode`, not `code`: the proxy's logger redacts every `code` (OTP codes).
  return { type: err.name, status: err.status, errorCode: err.code, operation: err.operation, reason };
}
