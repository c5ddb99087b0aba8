import type { ProxyContext } from '../context.js';
import { emptyOrder, putAttempt, type OrderRecord } from '../payments/attempts.js';
import { updateJson } from '../payments/json-record.js';
import { KEYS, RECORD_TTL_MS, subject } from '../payments/keys.js';
import { isSettledPaymentStatus, type PaymentRecord } from '../payments/payment-record.js';

/**
 * Puts back what a store lost (a Redis flush, an eviction, a fresh Redis behind the same URL) of an attempt
 * this process still reconciles: the record itself, its callback id, its place in the pending set, its
 * order's entry and terms, and the order's method. Each write only fills a gap: a newer record written
 * meanwhile by another instance or request wins.
 */
export async function restorePayment(ctx: ProxyContext, copy: PaymentRecord): Promise<void> {
  const { store } = ctx;
  await store.setIfAbsent(KEYS.payment(copy.reference), JSON.stringify(copy), RECORD_TTL_MS);
  await store.setIfAbsent(KEYS.callback(copy.callbackId), copy.reference, RECORD_TTL_MS);
  await store.addToSet(KEYS.pending, subject.payment(copy.reference));
  if (!isSettledPaymentStatus(copy.status)) await store.addToSet(KEYS.inFlight(copy.msisdn), copy.reference);
  const entry = { n: copy.attempt, reference: copy.reference, jti: copy.jti, phase: copy.phase === 'void' ? 'void' : 'sent', startedAt: copy.createdAt, msisdn: copy.msisdn } as const;
  const orderKey = KEYS.order(copy.orderReference);
  const seed: OrderRecord = { ...emptyOrder(copy.orderReference), ...(copy.terms ? { terms: copy.terms } : {}) };
  await store.setIfAbsent(orderKey, JSON.stringify(seed), RECORD_TTL_MS);
  await updateJson<OrderRecord>(
    store,
    orderKey,
    (order) => {
      const known = order.attempts.find((a) => a.n === entry.n);
      if (known && known.reference === entry.reference && known.phase !== 'void') return null;
      if (known && known.phase === 'initiating') return null;
      const next = putAttempt(order, entry);
      return order.terms || !copy.terms ? next : { ...next, terms: copy.terms };
    },
    RECORD_TTL_MS,
  );
  if (copy.status !== 'FAILED' && copy.status !== 'CANCELLED' && copy.status !== 'VOID') {
    await store.setIfAbsent(KEYS.orderMethod(copy.orderReference), JSON.stringify({ method: 'mobile-money', at: ctx.now() }), RECORD_TTL_MS);
  }
}
