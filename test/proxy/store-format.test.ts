/**
 * The store's format (DESIGN: the store's checks): a marker written at first start and moved on from an older
 * format once (instances racing agree), a store of a newer format refused at start-up and in readiness with
 * nothing written, a fleet of this release and the one before across the marker's move, and an upgrade from
 * the records today's release keeps (format 1, no marker: `fixtures/store-format-1.json`, made by the release
 * before the marker, 19ef9df, with two payments in flight) read by this one with nothing lost.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { StoreUnavailableError } from '../../src/proxy/store/store-error.js';
import {
  claimStoreFormat,
  FormatGate,
  gatedStore,
  SHARDED_FORMAT,
  SHARDS_KEY,
  STORE_FORMAT,
  STORE_FORMAT_KEY,
  StoreFormatError,
  type StoreFormat,
} from '../../src/proxy/store/store-format.js';
import type { PaymentRecord } from '../../src/sandbox/state.js';
import { numberKeys } from '../../src/proxy/number-keys.js';
import { sandboxProvider, startHarness, startRedis, TEST_SECRET, type Harness, type TestRedis } from './helpers.js';

/**
 * The release before this one differs from it in its format only: it reads 1 and 2 and writes 1. A proxy
 * started while `release.format` is set claims the store with that format, as an instance of that release.
 */
const release = vi.hoisted(() => ({ format: undefined as StoreFormat | undefined }));
vi.mock('../../src/proxy/store/store-format.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/proxy/store/store-format.js')>();
  class FormatGate extends real.FormatGate {
    constructor(...[store, options = {}]: ConstructorParameters<typeof real.FormatGate>) {
      super(store, { ...(release.format ? { format: release.format } : {}), ...options });
    }
  }
  return { ...real, FormatGate };
});
const PREVIOUS: StoreFormat = { writes: 1, reads: [1, 2] };
/** The release before that, the marker's first: it reads format 1 only. */
const BEFORE_LOCKS: StoreFormat = { writes: 1, reads: [1] };

/** A harness of the release before this one ({@link PREVIOUS}). */
async function startPrevious(options: Parameters<typeof startHarness>[0]): Promise<Harness> {
  release.format = PREVIOUS;
  try {
    return await startHarness(options);
  } finally {
    release.format = undefined;
  }
}

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
  it('is written at first start, and moved on from an older format this release reads', async () => {
    // This release is the second of the two of format 2 (the number a token locks kept as a lock): it writes 2,
    // and reads 1 still.
    expect(STORE_FORMAT).toEqual({ writes: 2, reads: [1, 2] });
    const store = new MemoryStore();
    expect(await claimStoreFormat(store)).toBe(2);
    expect(await store.get(STORE_FORMAT_KEY)).toBe('2');
    expect(await claimStoreFormat(store)).toBe(2);
    // The release before reads that store, and writes 2 there.
    expect(await claimStoreFormat(store, PREVIOUS)).toBe(2);
    expect(await store.get(STORE_FORMAT_KEY)).toBe('2');
    // The release before that reads only 1: refused, naming both formats and what to do.
    await expect(claimStoreFormat(store, BEFORE_LOCKS)).rejects.toThrow(new StoreFormatError(2, BEFORE_LOCKS).message);
    expect(new StoreFormatError(2, BEFORE_LOCKS).message).toBe(
      'the store holds records of format 2, written by a newer merchant-elements; this version reads format 1: run the newer version (a rolling upgrade never goes back past a format change: docs/operations.md, upgrading)',
    );

    // A store the release before marked 1: this release moves it to 2.
    const marked1 = new MemoryStore();
    expect(await claimStoreFormat(marked1, PREVIOUS)).toBe(1);
    expect(await marked1.get(STORE_FORMAT_KEY)).toBe('1');
    expect(await claimStoreFormat(marked1, PREVIOUS)).toBe(1);
    expect(await claimStoreFormat(marked1)).toBe(2);
    expect(await marked1.get(STORE_FORMAT_KEY)).toBe('2');

    await store.set(STORE_FORMAT_KEY, 'banana');
    await expect(claimStoreFormat(store)).rejects.toBeInstanceOf(StoreFormatError);
  });

  it('is moved once when instances race: each reads what the other wrote, and they agree', async () => {
    /** A store whose marker's first reads all wait for one another: every racer reads before any writes. */
    const racing = (racers: number) => {
      const inner = new MemoryStore();
      let waiting = racers;
      let go: () => void = () => undefined;
      const allRead = new Promise<void>((resolve) => (go = resolve));
      const cas = { won: 0, lost: 0 };
      const store = Object.assign(Object.create(inner) as MemoryStore, {
        get: async (key: string) => {
          const value = await inner.get(key);
          if (waiting > 0) {
            if (--waiting === 0) go();
            await allRead;
          }
          return value;
        },
        setIfAbsent: async (key: string, value: string) => {
          const set = await inner.setIfAbsent(key, value);
          cas[set ? 'won' : 'lost']++;
          return set;
        },
        compareAndSet: async (key: string, expected: string, value: string) => {
          const set = await inner.compareAndSet(key, expected, value);
          cas[set ? 'won' : 'lost']++;
          return set;
        },
      });
      return { inner, store, cas };
    };

    // Two instances of this release on a store marked 1.
    const one = racing(2);
    await one.inner.set(STORE_FORMAT_KEY, '1');
    expect(await Promise.all([claimStoreFormat(one.store), claimStoreFormat(one.store)])).toEqual([2, 2]);
    expect(one.cas).toEqual({ won: 1, lost: 1 });
    expect(await one.inner.get(STORE_FORMAT_KEY)).toBe('2');

    // One of the release before and one of this on a new store: whichever marks it first, it ends at 2, and
    // each writes a format every instance reads.
    for (const order of [[PREVIOUS, STORE_FORMAT], [STORE_FORMAT, PREVIOUS]]) {
      const two = racing(2);
      const claimed = await Promise.all(order.map((format) => claimStoreFormat(two.store, format)));
      expect(await two.inner.get(STORE_FORMAT_KEY)).toBe('2');
      expect(claimed[order.indexOf(STORE_FORMAT)]).toBe(2);
      expect(claimed.every((found) => PREVIOUS.reads.includes(found) && STORE_FORMAT.reads.includes(found))).toBe(true);
    }
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
    expect(await gate.format).toBe(2);
    await book.set('ord:X', '1');
    expect(await inner.get('ord:X')).toBe('1');
    expect(await inner.get(STORE_FORMAT_KEY)).toBe('2');
  });

  it('refuses to start on a store of a newer format, and the order book writes nothing there', async () => {
    const prefix = 'newer:';
    const newer = Math.max(...STORE_FORMAT.reads, SHARDED_FORMAT) + 1;
    await admin.set(`${prefix}${STORE_FORMAT_KEY}`, String(newer));
    const h = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix } });
    try {
      await expect(h.proxy.ready()).rejects.toThrow(new StoreFormatError(newer, STORE_FORMAT).message);
      expect(new StoreFormatError(newer, STORE_FORMAT).message).toMatch(new RegExp(`^the store holds records of format ${newer}, written by a newer merchant-elements; this version reads format 1 and 2:`));
      const ready = await h.get(READY_PATH);
      expect(ready.status).toBe(503);
      expect(ready.body.reasons).toContain(new StoreFormatError(newer, STORE_FORMAT).message);
      const token = await h.mintPayment({ referenceNo: 'NEWER-1' });
      const paid = await h.post('/payments', { msisdn: '233240000001' }, { token });
      expect(paid.status).toBe(503);
      expect(h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0).toBe(0);
      expect((await admin.keys(`${prefix}ord:*`)).sort()).toEqual([]);
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe(String(newer));
    } finally {
      await h.close();
    }
  });
});

describe('a store whose orders are split into shards (format 3)', () => {
  it('is made so only when new, keeps its number of shards, and refuses an instance given another', async () => {
    const fresh = new MemoryStore();
    expect(await claimStoreFormat(fresh, STORE_FORMAT, 4)).toBe(SHARDED_FORMAT);
    expect(await fresh.get(STORE_FORMAT_KEY)).toBe('3');
    expect(await fresh.get(SHARDS_KEY)).toBe('4');
    // The fleet's other instances, given the same number, read it as it is.
    expect(await claimStoreFormat(fresh, STORE_FORMAT, 4)).toBe(SHARDED_FORMAT);
    await expect(claimStoreFormat(fresh, STORE_FORMAT, 8)).rejects.toThrow(
      'the store splits its orders into 4 shards (format 3) and this instance is given 8: set REDIS_CLUSTER_SHARDS=4 on every instance',
    );
    // An instance given none would look for orders where the store keeps none.
    await expect(claimStoreFormat(fresh)).rejects.toThrow('the store splits its orders into 4 shards (format 3) and this instance is given none (REDIS_CLUSTER_SHARDS unset): set REDIS_CLUSTER_SHARDS=4');
    expect(await fresh.get(STORE_FORMAT_KEY)).toBe('3');

    // A store that holds orders in one slot is never split: marked, or not yet (its orders began: an epoch).
    for (const setup of [
      async (s: MemoryStore) => void (await s.set(STORE_FORMAT_KEY, '2')),
      async (s: MemoryStore) => void (await s.set('ord:epoch', 'e1')),
    ]) {
      const used = new MemoryStore();
      await setup(used);
      const refused = claimStoreFormat(used, STORE_FORMAT, 4);
      await expect(refused).rejects.toBeInstanceOf(StoreFormatError);
      await expect(refused).rejects.toThrow(/keeps its orders in one slot \(format [12]\) and this instance is given REDIS_CLUSTER_SHARDS=4: shards are chosen when a store is made/);
      expect(await used.get(SHARDS_KEY)).toBeNull();
    }
  });

  it('is refused by an instance of this release given no shards, in readiness too, and it writes nothing', async () => {
    const prefix = 'split:';
    await admin.set(`${prefix}${STORE_FORMAT_KEY}`, '3');
    await admin.set(`${prefix}${SHARDS_KEY}`, '16');
    const h = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix } });
    try {
      const reason = /^the store splits its orders into 16 shards \(format 3\) and this instance is given none/;
      await expect(h.proxy.ready()).rejects.toThrow(reason);
      const ready = await h.get(READY_PATH);
      expect(ready.status).toBe(503);
      expect((ready.body.reasons as string[]).some((r) => reason.test(r))).toBe(true);
      const token = await h.mintPayment({ referenceNo: 'SPLIT-1' });
      expect((await h.post('/payments', { msisdn: '233240000001' }, { token })).status).toBe(503);
      expect((await admin.keys(`${prefix}ord:*`)).sort()).toEqual([]);
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
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe('2');

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
  it('is written from the marker\'s move on; a fleet half of whose instances started before reads and compares both, and charges once', async () => {
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
    // An instance of the release before marks a new store 1 and keeps the number in full.
    const before = await startPrevious({ config: { redisUrl: redis.url, redisPrefix: prefix } });
    let after: Harness | undefined;
    try {
      await before.proxy.ready();
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe('1');
      await paid(before, 'LOCK-FULL');
      expect((await record('LOCK-FULL')).terms.msisdn).toBe(number);

      // The first instance of this release moves the marker to 2, and writes locks.
      after = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix }, provider: () => sandboxProvider(before.sandbox) });
      await after.proxy.ready();
      expect(await admin.get(`${prefix}${STORE_FORMAT_KEY}`)).toBe('2');
      await paid(after, 'LOCK-HASHED');
      const kept = (await record('LOCK-HASHED')).terms.msisdn;
      expect(kept).toBe(keys.lock(number));
      expect(await admin.get(`${prefix}ord:LOCK-HASHED`)).not.toContain(number.slice(3));
      // The instance started before the move goes on writing full numbers, which this release reads.
      await paid(before, 'LOCK-FULL-LATER');
      expect((await record('LOCK-FULL-LATER')).terms.msisdn).toBe(number);

      // Each instance tells each record's number: the same number is answered, another refused.
      for (const h of [before, after]) {
        for (const ref of ['LOCK-FULL', 'LOCK-FULL-LATER', 'LOCK-HASHED']) {
          const { same, other } = await answers(h, ref);
          expect(same, ref).toMatchObject({ status: 'COMPLETED', reference: `${ref}-1` });
          expect(other, ref).toMatchObject({ error: 'ORDER_CHANGED', details: { changed: ['msisdn'] } });
        }
      }
      // A charge per order, nothing more.
      expect(before.sandbox.app.sandbox.requestCounts.get('payment.initiate')).toBe(3);
      expect((await record('LOCK-HASHED')).terms.msisdn).toBe(kept);
    } finally {
      await after?.close();
      await before.close();
    }
  });
});
