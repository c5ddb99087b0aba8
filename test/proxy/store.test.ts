import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { RedisStore } from '../../src/proxy/store/redis.js';
import type { ProxyStore } from '../../src/proxy/store/types.js';
import { createLimiterFactory } from '../../src/proxy/limits.js';
import { startRedis, type TestRedis } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds or a generous deadline passes (no timing assertion). */
async function eventually(check: () => boolean, deadlineMs = 5_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let seq = 0;
const key = (name: string) => `${name}:${process.pid}:${++seq}`;

const backends: [string, () => ProxyStore][] = [
  ['memory', () => new MemoryStore()],
  ['redis', () => new RedisStore({ url: redis.url, prefix: `t${Date.now()}:` })],
];

describe.each(backends)('ProxyStore contract on %s', (kind, make) => {
  let store: ProxyStore;
  beforeAll(() => {
    store = make();
  });
  afterAll(async () => {
    await store.close();
  });

  it('reports its kind and answers ping', async () => {
    expect(store.kind).toBe(kind);
    expect(await store.ping()).toBe(true);
  });

  it('counts the subscribers of a channel (a process new to the store tells whether others run on it)', async () => {
    const channel = key('presence');
    expect(await store.subscribers!(channel)).toBe(0);
    const unsubscribe = await store.subscribe(channel, () => undefined);
    expect(await store.subscribers!(channel)).toBe(1);
    await unsubscribe();
    expect(await store.subscribers!(channel)).toBe(0);
  });

  it("tells its clock's time (this host's, for a store on this host), in epoch milliseconds", async () => {
    const before = Date.now();
    const time = await store.time!();
    const after = Date.now();
    expect(Number.isInteger(time)).toBe(true);
    // Redis's TIME counts in microseconds; cut to milliseconds it may read up to 1 ms before `before`.
    expect(time).toBeGreaterThanOrEqual(before - 1);
    expect(time).toBeLessThanOrEqual(after);
  });

  it('commits a record with its side writes only when the record and every condition hold, all at once', async () => {
    const record = key('commit');
    const [flag, epoch, message, index, gone] = [key('flag'), key('epoch'), key('msg'), key('idx'), key('gone')];
    await store.set(epoch, 'E1');
    await store.addToSet(gone, 'x');
    const also = [
      { op: 'setIfAbsent' as const, key: message, value: 'm1', ttlMs: 60_000 },
      { op: 'addToSet' as const, key: index, member: 'a', ttlMs: 60_000 },
      { op: 'removeFromSet' as const, key: gone, member: 'x' },
    ];
    const when = [
      { key: epoch, equals: 'E1' },
      { key: flag, equals: null },
    ];
    // Absent record: created, with every side write.
    expect(await store.commit({ key: record, expected: null, value: 'v1', ttlMs: 60_000, also, when })).toBe(true);
    expect(await store.get(record)).toBe('v1');
    expect(await store.get(message)).toBe('m1');
    expect(await store.members(index)).toEqual(['a']);
    expect(await store.members(gone)).toEqual([]);
    // A stale expectation, a condition that does not hold: nothing at all is written.
    expect(await store.commit({ key: record, expected: null, value: 'v2', also: [{ op: 'set', key: message, value: 'no' }] })).toBe(false);
    expect(await store.commit({ key: record, expected: 'v0', value: 'v2', also: [{ op: 'set', key: message, value: 'no' }] })).toBe(false);
    await store.set(flag, 'recovering');
    expect(await store.commit({ key: record, expected: 'v1', value: 'v2', also: [{ op: 'set', key: message, value: 'no' }], when })).toBe(false);
    await store.del(flag);
    await store.set(epoch, 'E2');
    expect(await store.commit({ key: record, expected: 'v1', value: 'v2', also: [{ op: 'set', key: message, value: 'no' }], when })).toBe(false);
    expect(await store.get(record)).toBe('v1');
    expect(await store.get(message)).toBe('m1');
    // The right expectation and conditions: replaced; setIfAbsent keeps what is there, set replaces.
    const now = [{ key: epoch, equals: 'E2' }, { key: flag, equals: null }];
    expect(await store.commit({ key: record, expected: 'v1', value: 'v2', also: [{ op: 'setIfAbsent', key: message, value: 'm2' }, { op: 'set', key: index + ':s', value: 's' }], when: now })).toBe(true);
    expect(await store.get(record)).toBe('v2');
    expect(await store.get(message)).toBe('m1');
    expect(await store.get(index + ':s')).toBe('s');
  });

  it('gets what was set and null for a missing key', async () => {
    const k = key('get');
    expect(await store.get(k)).toBeNull();
    await store.set(k, 'one');
    expect(await store.get(k)).toBe('one');
    await store.set(k, 'two');
    expect(await store.get(k)).toBe('two');
    await store.del(k);
    expect(await store.get(k)).toBeNull();
  });

  it('expires a key after its TTL', async () => {
    const k = key('ttl');
    await store.set(k, 'v', 50);
    expect(await store.get(k)).toBe('v');
    await sleep(120);
    expect(await store.get(k)).toBeNull();
  });

  it('setIfAbsent sets once, and again after expiry', async () => {
    const k = key('nx');
    expect(await store.setIfAbsent(k, 'a', 60)).toBe(true);
    expect(await store.setIfAbsent(k, 'b', 60)).toBe(false);
    expect(await store.get(k)).toBe('a');
    await sleep(120);
    expect(await store.setIfAbsent(k, 'c')).toBe(true);
    expect(await store.get(k)).toBe('c');
  });

  it('setIfAbsent lets exactly one of many concurrent callers win', async () => {
    const k = key('race');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.setIfAbsent(k, String(i), 10_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('compareAndSet replaces only the expected value', async () => {
    const k = key('cas');
    expect(await store.compareAndSet(k, 'x', 'y')).toBe(false);
    await store.set(k, 'v1');
    expect(await store.compareAndSet(k, 'wrong', 'v2')).toBe(false);
    expect(await store.get(k)).toBe('v1');
    expect(await store.compareAndSet(k, 'v1', 'v2')).toBe(true);
    expect(await store.get(k)).toBe('v2');
    const racers = await Promise.all([store.compareAndSet(k, 'v2', 'a'), store.compareAndSet(k, 'v2', 'b')]);
    expect(racers.filter(Boolean)).toHaveLength(1);
  });

  it('compareAndSet keeps the TTL unless given a new one', async () => {
    const k = key('cas-ttl');
    await store.set(k, 'v1', 80);
    expect(await store.compareAndSet(k, 'v1', 'v2')).toBe(true);
    await sleep(160);
    expect(await store.get(k)).toBeNull();
    await store.set(k, 'v1', 80);
    expect(await store.compareAndSet(k, 'v1', 'v2', 10_000)).toBe(true);
    await sleep(160);
    expect(await store.get(k)).toBe('v2');
  });

  it('incr counts from 1 and sets the TTL when it creates the key', async () => {
    const k = key('incr');
    // A TTL no busy machine outlasts between three calls, then one that surely passes before the next.
    expect(await store.incr(k, 10_000)).toBe(1);
    expect(await store.incr(k, 10_000)).toBe(2);
    expect(await store.incr(k, 10_000)).toBe(3);
    const short = `${k}:short`;
    expect(await store.incr(short, 50)).toBe(1);
    await sleep(200);
    expect(await store.incr(short, 50)).toBe(1);
    const counts = await Promise.all(Array.from({ length: 10 }, () => store.incr(`${k}:c`, 10_000)));
    expect([...counts].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('keeps set members', async () => {
    const k = key('set');
    expect(await store.members(k)).toEqual([]);
    await store.addToSet(k, 'a');
    await store.addToSet(k, 'b');
    await store.addToSet(k, 'a');
    expect((await store.members(k)).sort()).toEqual(['a', 'b']);
    await store.removeFromSet(k, 'a');
    expect(await store.members(k)).toEqual(['b']);
    await store.removeFromSet(k, 'b');
    expect(await store.members(k)).toEqual([]);
  });

  it('delivers published messages to subscribers until they unsubscribe', async () => {
    const channel = key('chan');
    const got: string[] = [];
    const other: string[] = [];
    const unsubscribe = await store.subscribe(channel, (m) => got.push(m));
    const unsubscribeOther = await store.subscribe(channel, (m) => other.push(m));
    await store.publish(channel, 'one');
    await eventually(() => got.length === 1 && other.length === 1);
    await unsubscribe();
    await store.publish(channel, 'two');
    await eventually(() => other.length === 2);
    expect(got).toEqual(['one']);
    expect(other).toEqual(['one', 'two']);
    await unsubscribeOther();
  });
});

describe('RedisStore across instances', () => {
  it('shares state and pub/sub between two stores on the same Redis', async () => {
    const a = new RedisStore({ url: redis.url, prefix: 'shared:' });
    const b = new RedisStore({ url: redis.url, prefix: 'shared:' });
    try {
      const k = key('shared');
      expect(await a.setIfAbsent(k, 'a')).toBe(true);
      expect(await b.setIfAbsent(k, 'b')).toBe(false);
      const got: string[] = [];
      await b.subscribe('hint', (m) => got.push(m));
      await a.publish('hint', 'wake');
      await eventually(() => got.length === 1);
      expect(got).toEqual(['wake']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('rate limiters on the store backend', () => {
  it('counts across two proxy instances sharing Redis', async () => {
    const a = new RedisStore({ url: redis.url });
    const b = new RedisStore({ url: redis.url });
    try {
      const opts = { points: 2, durationSec: 60 };
      const la = createLimiterFactory(a)('shared-test', opts);
      const lb = createLimiterFactory(b)('shared-test', opts);
      const k = key('rl');
      await la.consume(k);
      await lb.consume(k);
      await expect(la.consume(k)).rejects.toMatchObject({ remainingPoints: 0 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('rejects with an Error (fail closed) when Redis is down', async () => {
    const dead = await startRedis();
    const store = new RedisStore({ url: dead.url });
    try {
      const limiter = createLimiterFactory(store)('down-test', { points: 5, durationSec: 60 });
      await limiter.consume('k');
      await dead.stop();
      await eventually(() => store.client.status !== 'ready');
      await expect(limiter.consume('k')).rejects.toBeInstanceOf(Error);
      expect(await store.ping()).toBe(false);
    } finally {
      await store.close();
    }
  });
});
