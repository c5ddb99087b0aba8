/**
 * The store's format (DESIGN: the store's checks): a marker written at first start, a store of a newer format
 * refused at start-up and in readiness with nothing written, and an upgrade from the records today's release
 * keeps (format 1, no marker: `fixtures/store-format-1.json`, made by the release before the marker, 19ef9df, with two
 * payments in flight) read by this one with nothing lost.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { StoreUnavailableError } from '../../src/proxy/store/store-error.js';
import { claimStoreFormat, FormatGate, gatedStore, STORE_FORMAT, STORE_FORMAT_KEY, StoreFormatError } from '../../src/proxy/store/store-format.js';
import type { PaymentRecord } from '../../src/sandbox/state.js';
import { numberKeys } from '../../src/proxy/number-keys.js';
import { sandboxProvider, startHarness, startRedis, TEST_SECRET, type Harness, type TestRedis } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(check: () => Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not in time`);
    await sleep(50);
  }
}

let redis: TestRedis;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});

describe('the format marker', () => {
  it('is written at first start, kept by a release that reads it, and moved on only by one that writes a newer format', async () => {
    const store = new MemoryStore();
    // This release is the first of the two of format 2 (the number a token locks kept as a lock): it reads 2
    // and marks a store with 1.
    expect(STORE_FORMAT).toEqual({ writes: 1, reads: [1, 2] });
    const previous = { writes: 1, reads: [1] };
    const next = { writes: 2, reads: [1, 2] };
    expect(await claimStoreFormat(store)).toBe(1);
    expect(await store.get(STORE_FORMAT_KEY)).toBe('1');
    expect(await claimStoreFormat(store)).toBe(1);
    expect(await claimStoreFormat(store, previous)).toBe(1);
    // The second release writes 2 (moves the marker); this one still reads that store, and writes 2 there.
    expect(await claimStoreFormat(store, next)).toBe(2);
    expect(await store.get(STORE_FORMAT_KEY)).toBe('2');
    expect(await claimStoreFormat(store)).toBe(2);
    expect(await store.get(STORE_FORMAT_KEY)).toBe('2');
    // The release before this one reads only 1: refused, naming both formats and what to do.
    await expect(claimStoreFormat(store, previous)).rejects.toThrow(new StoreFormatError(2, previous).message);
    expect(new StoreFormatError(2, previous).message).toBe(
      'the store holds records of format 2, written by a newer merchant-elements; this version reads format 1: run the newer version (a rolling upgrade never goes back past a format change: docs/operations.md, upgrading)',
    );
    await store.set(STORE_FORMAT_KEY, 'banana');
    await expect(claimStoreFormat(store)).rejects.toBeInstanceOf(StoreFormatError);
  });

  it('holds the order book\'s calls until claimed: a store down fails them as an outage would, then they go through', async () => {
    const inner = new MemoryStore();
    let down = true;
    const store = Object.assign(Object.create(inner) as MemoryStore, {
      get: (key: string) => (down ? Promise.reject(new StoreUnavailableError('get', new Error('Connection is closed.'))) : inner.get(key)),
    });
    let wake: () => void = () => undefined;
    const gate = new FormatGate(store, { sleep: () => new Promise<void>((resolve) => (wake = resolve)) });
    const book = gatedStore(store, gate);
    await expect(book.set('ord:X', '1')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(gate.state).toBe('down');
    expect(await inner.get('ord:X')).toBeNull();
    down = false;
    wake();
    expect(await gate.format).toBe(1);
    await book.set('ord:X', '1');
    expect(await inner.get('ord:X')).toBe('1');
    expect(await inner.get(STORE_FORMAT_KEY)).toBe('1');
  });

  it('refuses to start on a store of a newer format, and the order book writes nothing there', async () => {
    const prefix = 'newer:';
    await admin.set(`${prefix}${STORE_FORMAT_KEY}`, '3');
    const h = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix } });
    try {
      await expect(h.proxy.ready()).rejects.toThrow(/^the store holds records of format 3, written by a newer merchant-elements; this version reads format 1 and 2/);
      const ready = await h.get(READY_PATH);
      expect(ready.status).toBe(503);
      expect(ready.body.reasons).toContain(new StoreFormatError(3, STORE_FORMAT).message);
      const token = await h.mintPayment({ referenceNo: 'NEWER-1' });
      const paid = await h.post('/payments', { msisdn: '233240000001' }, { token });
      expect(paid.status).toBe(503);
      expect(h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0).toBe(0);
      expect((await admin.keys(`${prefix}ord:*`)).sort()).toEqual([]);
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe('3');
    } finally {
      await h.close();
    }
  });
});

/** What `fixtures/store-format-1.json` holds: the records, and what the release that wrote them answered. */
interface Fixture {
  madeAt: number;
  views: Record<string, Record<string, unknown>>;
  checkout: Record<string, unknown>;
  keys: { key: string; type: 'string' | 'set'; pttl: number; value: string | string[] }[];
  sandboxPayments: (Omit<PaymentRecord, 'settleAt' | 'promptExpiresAt'> & { settleAt: number | 'Infinity'; promptExpiresAt: number | 'Infinity' })[];
}

describe('an upgrade from the records of the release before the marker (format 1)', () => {
  it('reads every order as it was, reports the payments that completed while no instance ran, and marks the store', async () => {
    const fixture = JSON.parse(readFileSync(new URL('./fixtures/store-format-1.json', import.meta.url), 'utf8')) as Fixture;
    // The old release stopped a moment ago: its records' times move to now, as the epoch milliseconds they are.
    const shift = Date.now() - fixture.madeAt;
    const near = (n: number) => Math.abs(n - fixture.madeAt) < 86_400_000;
    const moved = (raw: string) => {
      try {
        return JSON.stringify(JSON.parse(raw, (_k, v: unknown) => (typeof v === 'number' && near(v) ? v + shift : v)));
      } catch {
        return raw;
      }
    };
    const prefix = 'fx:';
    for (const { key, type, pttl, value } of fixture.keys) {
      if (type === 'string') await admin.set(prefix + key, moved(value as string));
      else await admin.sadd(prefix + key, ...(value as string[]));
      if (pttl > 0) await admin.pexpire(prefix + key, pttl);
    }
    expect(await admin.exists(`${prefix}${STORE_FORMAT_KEY}`)).toBe(0);

    const completions: PaymentUpdate[] = [];
    const h = await startHarness({
      config: { redisUrl: redis.url, redisPrefix: prefix, relay: { minIntervalMs: 50, maxIntervalMs: 200 }, hooks: { onPaymentUpdate: (u) => void completions.push(u) } },
    });
    try {
      // The two payments in flight were approved at the provider while no instance ran.
      for (const p of fixture.sandboxPayments) {
        h.sandbox.app.sandbox.payments.set(p.referenceId, {
          ...p,
          createdAt: p.createdAt + shift,
          status: 'COMPLETED',
          completedAt: Date.now(),
          settleAt: Number.POSITIVE_INFINITY,
          promptExpiresAt: Number.POSITIVE_INFINITY,
        } as PaymentRecord);
      }
      await h.proxy.ready();
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe('1');

      const at = (iso: unknown) => (typeof iso === 'string' ? new Date(Date.parse(iso) + shift).toISOString() : iso);
      // The provider's completion time is kept as the provider said it; the proxy's own times moved.
      const asNow = (view: Record<string, unknown>) => ({ ...view, sentAt: at(view.sentAt), updatedAt: expect.any(String) });
      expect(await h.proxy.payments.get('FX-DONE')).toEqual(asNow(fixture.views['FX-DONE']!));
      expect(await h.proxy.payments.get('FX-DECLINED')).toEqual(asNow(fixture.views['FX-DECLINED']!));
      expect(await h.proxy.checkouts.get('FX-CHECKOUT')).toMatchObject({ reference: fixture.checkout.reference, checkoutId: fixture.checkout.checkoutId, status: fixture.checkout.status });
      for (const order of ['FX-FLIGHT-1', 'FX-FLIGHT-2']) {
        expect(fixture.views[order]).toMatchObject({ status: 'PENDING' });
        await waitFor(async () => (await h.proxy.payments.get(order))?.status === 'COMPLETED', `${order} completed`);
        await waitFor(async () => completions.some((u) => u.snapshot.orderReference === order && u.snapshot.status === 'COMPLETED'), `${order} reported`);
      }
      expect(h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0).toBe(0);
      expect((await h.get(READY_PATH)).body.checks.store).toMatchObject({ ok: true, writable: true });
    } finally {
      await h.close();
    }
  });
});

describe('format 2: the number a token locks kept as a lock', () => {
  it('is written once the store is marked 2; a fleet half of whose instances started before reads and compares both', async () => {
    const prefix = 'lock2:';
    const number = '233240000001';
    const keys = numberKeys(TEST_SECRET);
    const record = async (ref: string) => JSON.parse((await admin.get(`${prefix}ord:${ref}`))!) as { terms: { msisdn: string } };
    const paid = async (h: Harness, ref: string) => {
      const token = await h.mintPayment({ referenceNo: ref, msisdn: number });
      const res = await h.post('/payments', { msisdn: number }, { token });
      expect(res.status).toBe(202);
      await waitFor(async () => (await h.proxy.payments.get(ref))?.status === 'COMPLETED', `${ref} completed`);
    };
    /** What a later token of the order answers: the same number's, and another number's. */
    const answers = async (h: Harness, ref: string) => ({
      same: (await h.post('/payments', { msisdn: number }, { token: await h.mintPayment({ referenceNo: ref, msisdn: number }) })).body,
      other: (await h.post('/payments', { msisdn: '233240000002' }, { token: await h.mintPayment({ referenceNo: ref, msisdn: '233240000002' }) })).body,
    });
    const before = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix } });
    let after: Harness | undefined;
    try {
      await before.proxy.ready();
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe('1');
      await paid(before, 'LOCK-FULL');
      expect((await record('LOCK-FULL')).terms.msisdn).toBe(number);

      // The release that writes format 2 marks the store; an instance of it (or of this one) started now writes it.
      await admin.set(`${prefix}${STORE_FORMAT_KEY}`, '2');
      after = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix }, provider: () => sandboxProvider(before.sandbox) });
      await after.proxy.ready();
      await paid(after, 'LOCK-HASHED');
      const kept = (await record('LOCK-HASHED')).terms.msisdn;
      expect(kept).toBe(keys.lock(number));
      expect(await admin.get(`${prefix}ord:LOCK-HASHED`)).not.toContain(number.slice(3));

      // Each instance tells each record's number: the same number is answered, another refused.
      for (const h of [before, after]) {
        for (const ref of ['LOCK-FULL', 'LOCK-HASHED']) {
          const { same, other } = await answers(h, ref);
          expect(same, ref).toMatchObject({ status: 'COMPLETED', reference: `${ref}-1` });
          expect(other, ref).toMatchObject({ error: 'ORDER_CHANGED', details: { changed: ['msisdn'] } });
        }
      }
      // A charge per order, nothing more.
      expect(before.sandbox.app.sandbox.requestCounts.get('payment.initiate')).toBe(2);
      expect((await record('LOCK-HASHED')).terms.msisdn).toBe(kept);
    } finally {
      await after?.close();
      await before.close();
    }
  });
});
