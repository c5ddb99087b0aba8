/**
 * The order book's writes: the record as the store keeps it (a final try's number masked), its indexes, and
 * the settling of an order whose money is final (out of the reconciler's set, conditioned on the record as
 * stored). Losses of the store: order-book-loss.test.ts.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Outbox } from '../../../src/proxy/notify/outbox.js';
import { ORDER_KEYS } from '../../../src/proxy/order/keys.js';
import { OrderBook } from '../../../src/proxy/order/order-book.js';
import { MemoryStore } from '../../../src/proxy/store/memory.js';
import { ENV, TERMS, tx } from './fixtures.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

function book() {
  const store = new MemoryStore();
  const logger = pino({ level: 'silent' });
  const outbox = new Outbox(store, [], logger, () => ENV.now);
  cleanup.push(() => outbox.close());
  const env = () => ({ ...ENV, listsSessions: false, reconcileWindowMs: 86_400_000 });
  let ids = 0;
  const orders = new OrderBook({ store, outbox, logger, env, readable: { payments: true, sessions: false }, newId: () => `id${++ids}`, numberKey: (digits) => `k${digits.length}`, changed: () => undefined, recoveryMs: 300 });
  return { store, orders };
}

describe('the order book', () => {
  it('stores a final try with its number masked, indexes a live one under the number key, and settles the order once it is final', async () => {
    const { store, orders } = book();
    await orders.guard();
    const pay = { type: 'pay' as const, jti: 'j', msisdn: '233240000001', maxAttempts: 3, terms: TERMS, sendId: 's', callbackId: 'cb', promptLifetimeMs: null, seen: { freeNumber: 1, sessionsListed: true } };
    await orders.apply('O', pay, { create: true });
    expect(await store.members(ORDER_KEYS.inFlight('k12'))).toEqual(['O-1']);
    expect(await store.members(ORDER_KEYS.inFlight('233240000001'))).toEqual([]);

    const done = await orders.apply('O', { type: 'payment-read', reference: 'O-1', startedAt: ENV.now, result: { kind: 'found', tx: tx('COMPLETED', { msisdn: '233240000001' }) } });
    // The caller has the step's order (the number the receipt went to); the store has it masked.
    expect(done.order?.tries[0]).toMatchObject({ phase: 'completed', msisdn: '233240000001' });
    expect(JSON.parse((await store.get(ORDER_KEYS.order('O')))!)).toMatchObject({ tries: [{ phase: 'completed', msisdn: '+233 24 *** **01' }] });
    expect(await store.members(ORDER_KEYS.inFlight('k12'))).toEqual([]);

    // Settled from the order the caller holds: the commit's condition is the record as stored.
    expect(await store.members(ORDER_KEYS.pending)).toEqual(['O']);
    expect(await orders.settle(done.order!, false)).toBe(true);
    expect(await store.members(ORDER_KEYS.pending)).toEqual([]);
  });
});
