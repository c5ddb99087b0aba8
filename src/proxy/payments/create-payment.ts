import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentSnapshot } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { ProxyError, toProxyError } from '../errors.js';
import { maskPhone } from '../phone.js';
import type { Relay } from '../relay/relay.js';
import type { PaymentClaims } from '../tokens/claims.js';
import {
  attemptsLeft,
  decideAttempt,
  emptyOrder,
  putAttempt,
  type AttemptEntry,
  type OrderRecord,
  type OrderTerms,
} from './attempts.js';
import { initiate } from './initiate.js';
import { assertSameTerms, failed, termsOf, unavailable } from './order-terms.js';
import { KEYS, RECORD_TTL_MS } from './keys.js';
import { claimMethod, methodProbe } from './order-method.js';
import { setAttemptPhase } from './orders.js';
import { adoptedRecord, isSettledPaymentStatus, toPaymentSnapshot } from './payment-record.js';
import { checkPromptLimits } from './prompt-limits.js';

/** How often a request waiting on another's initiation re-reads the order record. */
const WAIT_STEP_MS = 25;

/**
 * `POST /payments`: answers with the order's current payment, or starts the next attempt (DESIGN: payment
 * attempts and money safety).
 *
 * - The order record (`pay:order:<orderReference>`) holds every attempt and the terms the first payment
 *   fixed; a token with other terms is refused (`ORDER_CHANGED`), never answered with the other payment.
 * - Exactly one upstream `POST /v1/payment` per attempt, across requests and instances: the attempt is
 *   claimed by a compare-and-set on the order record before anything is sent; requests that lose the race
 *   wait for the winner's outcome and answer the same payment.
 * - A new attempt opens only when the current one is read FAILED or CANCELLED, and counts per order.
 * - Before sending a reference of an order whose history this store does not know (a new order, or the
 *   store lost it), its status is read: a payment found is adopted, never sent again.
 */
export async function createPayment(ctx: ProxyContext, relay: Relay, claims: PaymentClaims, msisdn: string): Promise<PaymentSnapshot> {
  const { store } = ctx;
  const tracker = relay.payments.tracker;
  const orderKey = KEYS.order(claims.referenceNo);
  const empty = JSON.stringify(emptyOrder(claims.referenceNo));
  await store.setIfAbsent(orderKey, empty, RECORD_TTL_MS);
  const waitUntil = ctx.now() + relay.options.initiationWaitMs;
  let waitedOn: AttemptEntry | undefined;

  for (;;) {
    const raw = await store.get(orderKey);
    if (raw === null) {
      await store.setIfAbsent(orderKey, empty, RECORD_TTL_MS);
      continue;
    }
    const order = JSON.parse(raw) as OrderRecord;
    assertSameTerms(order, claims);
    if (waitedOn) {
      // A request that waited on another's initiation answers with that attempt's outcome, whatever it
      // is: it never goes on to start the next attempt itself.
      const settled = order.attempts.find((a) => a.n === waitedOn!.n);
      if (settled && settled.phase !== 'initiating') return answerFor(relay, settled, msisdn);
    }
    const current = order.attempts.filter((a) => a.phase === 'sent' || a.phase === 'initiating').sort((a, b) => b.n - a.n)[0];
    const currentRecord = current ? await tracker.read(current.reference) : null;
    if (current?.phase === 'sent' && !currentRecord) {
      // The order knows the attempt but the store lost its record: read it upstream before anything else.
      await recover(ctx, relay, claims, current);
      continue;
    }
    const decision = decideAttempt(order, {
      maxAttempts: claims.maxAttempts,
      now: ctx.now(),
      leaseMs: relay.options.initiationLeaseMs,
      currentStatus: currentRecord?.status ?? null,
    });

    switch (decision.kind) {
      case 'existing':
        return answerFor(relay, decision.entry, msisdn);
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
        tracker.trackNow(decision.entry.reference);
        continue;
      }
      case 'exhausted':
        throw new ProxyError('ATTEMPTS_EXHAUSTED', 'No more payment attempts are allowed for this order.', { attemptsLeft: 0 });
      case 'new': {
        await claimMethod(ctx, claims.referenceNo, 'mobile-money', methodProbe(relay), relay.options.initiationLeaseMs);
        if (!order.probed) {
          await probe(ctx, relay, claims, raw, order, decision.n, decision.reference);
          continue;
        }
        await checkPromptLimits(ctx, relay, msisdn);
        const entry: AttemptEntry = { n: decision.n, reference: decision.reference, jti: claims.jti, phase: 'initiating', startedAt: ctx.now(), msisdn };
        const next: OrderRecord = { ...putAttempt(order, entry), terms: order.terms ?? termsOf(claims) };
        if (!(await store.compareAndSet(orderKey, raw, JSON.stringify(next), RECORD_TTL_MS))) continue;
        return initiate(ctx, relay, claims, msisdn, entry, attemptsLeft(next, claims.maxAttempts) - 1);
      }
    }
  }
}

/**
 * Reads reference `n` of an order whose history the store does not know, before anything is sent: found,
 * it is adopted as attempt `n` (and the order's terms become the ones it was paid at); not found, the
 * order's history is complete from here (`probed`). Unreadable: nothing is sent, the customer may retry.
 */
async function probe(ctx: ProxyContext, relay: Relay, claims: PaymentClaims, raw: string, order: OrderRecord, n: number, reference: string): Promise<void> {
  const tracker = relay.payments.tracker;
  const read = await tracker.upstream.readShared(reference);
  const orderKey = KEYS.order(claims.referenceNo);
  if (read.kind === 'error') {
    // Another request (of this instance or another) may have probed meanwhile: then go on from its result.
    if ((await ctx.store.get(orderKey)) !== raw) return;
    throw toProxyError(read.err, ctx.logger);
  }
  if (read.kind === 'not-found') {
    await ctx.store.compareAndSet(orderKey, raw, JSON.stringify({ ...order, probed: true }), RECORD_TTL_MS);
    return;
  }
  const tx = read.tx;
  const terms: OrderTerms = order.terms ?? { amount: tx.amount, currency: 'GHS', payee: tx.payee, narration: tx.narration, msisdn: claims.msisdn ?? null };
  const entry: AttemptEntry = { n, reference, jti: claims.jti, phase: 'sent', startedAt: ctx.now(), msisdn: tx.msisdn };
  const next: OrderRecord = { ...putAttempt(order, entry), terms };
  if (!(await ctx.store.compareAndSet(orderKey, raw, JSON.stringify(next), RECORD_TTL_MS))) return;
  ctx.logger.warn({ reference, status: tx.status }, 'payment found upstream for a reference this store did not know; adopted, not sent again');
  const record = adoptedRecord({ reference, orderReference: claims.referenceNo, attempt: n, jti: claims.jti, tx, terms, now: ctx.now(), deadlineMs: relay.options.deadlineMs });
  await tracker.adopt(record);
}

/** An attempt whose record is gone: adopted again when found upstream, else void (its number free again). */
async function recover(ctx: ProxyContext, relay: Relay, claims: PaymentClaims, entry: AttemptEntry): Promise<void> {
  const tracker = relay.payments.tracker;
  const read = await tracker.upstream.read({ reference: entry.reference, referenceId: null, phase: 'unknown' });
  if (read.kind === 'error') throw toProxyError(read.err, ctx.logger);
  if (read.kind === 'not-found') {
    await setAttemptPhase(ctx.store, claims.referenceNo, entry.n, 'void');
    return;
  }
  const terms = termsOf(claims);
  const record = adoptedRecord({ reference: entry.reference, orderReference: claims.referenceNo, attempt: entry.n, jti: entry.jti, tx: read.tx, terms, now: ctx.now(), deadlineMs: relay.options.deadlineMs });
  await tracker.adopt(record);
}

/**
 * The answer for an attempt that is not in flight: its snapshot; or, when it never reached the provider or
 * the provider refused it outright, the error its own request answered; or, when the request names another
 * number than the one the order's payment waits on, `PAYMENT_IN_PROGRESS` naming that number (masked).
 */
async function answerFor(relay: Relay, entry: AttemptEntry, msisdn: string): Promise<PaymentSnapshot> {
  const tracker = relay.payments.tracker;
  const record = await tracker.read(entry.reference);
  if (!record || entry.phase === 'void' || record.status === 'VOID') throw unavailable();
  if (record.refused) throw failed(record.failureCode, record.reference, record.attemptsLeft);
  if (!isSettledPaymentStatus(record.status)) {
    tracker.track(record.reference);
    if (record.msisdn !== msisdn) {
      throw new ProxyError('PAYMENT_IN_PROGRESS', `A payment prompt for this order is waiting on ${maskPhone(record.msisdn)}. Approve or decline it there first.`, {
        msisdn: maskPhone(record.msisdn),
        reference: record.reference,
        status: record.status,
      });
    }
  }
  return toPaymentSnapshot(record);
}
