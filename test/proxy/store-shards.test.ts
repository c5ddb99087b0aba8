/**
 * Orders split into shards (DESIGN: Redis Cluster; `store/store-shards.ts`), on memory stores standing for a
 * Cluster's slots: which shard an order's keys go to and the tags that spread shards over the slots; an
 * order's record, indexes and messages kept in its shard alone and found from anywhere (a read, a callback, a
 * session by its checkoutId, the webhooks' listing, the prompt limits per number); and one shard that loses its
 * records put back from the processes' copies under a hold of its own, while the others take new orders.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { ORDER_KEYS } from '../../src/proxy/order/keys.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { StoreUnavailableError } from '../../src/proxy/store/store-error.js';
import { shardIndex, shardTags, StoreShard, storeShards } from '../../src/proxy/store/store-shards.js';
import type { ProxyStore } from '../../src/proxy/store/types.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';
import { startReceiver, TEST_WEBHOOK_SECRET } from './webhook-receiver.js';

const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;
const relay = { minIntervalMs: 20, maxIntervalMs: 100, sweepIntervalMs: 200, deadlineMs: 60_000 };

/**
 * A store of `count` shards, each of which can lose everything it holds (`lose`), as a Cluster master restarted
 * empty, or stop answering (`down`, until `up`), as one that stalls.
 */
function shardedStore(count: number): { store: MemoryStore; shards: readonly ProxyStore[]; lose(i: number): void; down(i: number): void; up(i: number): void } {
  const store = new MemoryStore();
  const memories = Array.from({ length: count }, () => new MemoryStore());
  const silent = new Set<number>();
  // Each shard's keys in a memory that a loss replaces: the shard object every process holds stays the same.
  const keys = memories.map(
    (_, i) =>
      new Proxy({} as ProxyStore, {
        get: (_t, p) => {
          const value = (memories[i] as unknown as Record<PropertyKey, unknown>)[p];
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => (silent.has(i) ? Promise.reject(new StoreUnavailableError(String(p), new Error('no answer'))) : (value as (...a: unknown[]) => unknown).apply(memories[i], args));
        },
      }),
  );
  const shards = keys.map((k, i) => new StoreShard(k, store, `shard ${i} of ${count}`));
  Object.assign(store, { shards: () => shards });
  return {
    store,
    shards,
    lose(i) {
      void memories[i]!.close();
      memories[i] = new MemoryStore();
    },
    down: (i) => void silent.add(i),
    up: (i) => void silent.delete(i),
  };
}

/** Order references, one or more per shard, for `count` shards. */
function refsPerShard(prefix: string, count: number, each = 1): string[][] {
  const out: string[][] = Array.from({ length: count }, () => []);
  for (let n = 0; out.some((refs) => refs.length < each); n++) {
    const ref = `${prefix}-${n}`;
    const list = out[shardIndex(ref, count)]!;
    if (list.length < each) list.push(ref);
  }
  return out;
}

describe('the shard of an order', () => {
  it('is the same for a reference everywhere, and spreads references over the shards', () => {
    expect(shardIndex('ORDER-1', 1)).toBe(0);
    expect(shardIndex('ORDER-1', 16)).toBe(shardIndex('ORDER-1', 16));
    const counts = new Array<number>(16).fill(0);
    for (let n = 0; n < 16_000; n++) counts[shardIndex(`ORDER-${n}`, 16)]!++;
    // About a thousand each: none empty, none twice its share.
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1_200);
  });

  it("has a tag of its own that hashes into its part of a Cluster's slots, so shards spread as the masters' ranges do", () => {
    for (const count of [2, 3, 16, 256]) {
      const tags = shardTags('me:', count);
      expect(new Set(tags).size).toBe(count);
      tags.forEach((tag, i) => {
        expect(tag).toMatch(/^\{me:\d+\.\d+\}$/);
        const slot = calculateSlot(`${tag}ord:A`);
        expect(slot).toBe(calculateSlot(`${tag}outbox:pending`));
        expect(slot).toBeGreaterThanOrEqual(Math.floor((i * 16_384) / count));
        expect(slot).toBeLessThan(Math.floor(((i + 1) * 16_384) / count));
      });
    }
    expect(shardTags('shop-a:', 4)).toEqual(shardTags('shop-a:', 4));
  });

  it("keeps its keys in its shard, while its channels and clock are the whole store's", async () => {
    const { store, shards } = shardedStore(2);
    await shards[1]!.set('k', 'v');
    expect(await shards[1]!.get('k')).toBe('v');
    expect(await shards[0]!.get('k')).toBeNull();
    expect(await store.get('k')).toBeNull();
    const heard: string[] = [];
    await store.subscribe('c', (m) => void heard.push(m));
    await shards[0]!.publish('c', 'from a shard');
    expect(heard).toEqual(['from a shard']);
    expect(storeShards(store)).toBe(shards);
    expect(storeShards(new MemoryStore())).toHaveLength(1);
  });
});

describe('a proxy whose orders are split into shards', () => {
  it('keeps each order in its shard and finds it from anywhere: reads, attempts, sessions, webhooks', async () => {
    const { store, shards } = shardedStore(4);
    const updates: string[] = [];
    const receiver = await startReceiver();
    const h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        store,
        relay,
        webhooks: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
        hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push(`${u.snapshot.orderReference} ${u.snapshot.status}`) },
      },
    });
    try {
      const orders = refsPerShard('SH', 4, 2).flat();
      for (const ref of orders) {
        const token = await h.mintPayment({ referenceNo: ref });
        expect((await h.post('/payments', { msisdn: '233240000001' }, { token })).status).toBe(202);
      }
      await eventually(async () => ((await Promise.all(orders.map((r) => h.proxy.payments.get(r)))).every((p) => p?.status === 'COMPLETED') ? true : undefined), 60_000);
      for (const ref of orders) {
        const home = shardIndex(ref, 4);
        // The record and its index by callback id are in its shard, and nowhere else.
        for (let i = 0; i < 4; i++) expect(await shards[i]!.get(ORDER_KEYS.order(ref)) !== null, `${ref} in shard ${i}`).toBe(i === home);
        expect(await store.get(ORDER_KEYS.order(ref))).toBeNull();
        expect((await h.proxy.payments.getAttempt(`${ref}-1`))?.status).toBe('COMPLETED');
      }
      await eventually(() => (orders.every((r) => updates.filter((u) => u === `${r} COMPLETED`).length === 1) ? true : undefined), 30_000);
      // Each shard has its own outbox, drained to the hooks and the webhook receiver: nothing is left pending
      // anywhere, and the operator's listing shows every shard's webhooks.
      await eventually(async () => ((await Promise.all(shards.map((s) => s.members('outbox:pending')))).every((p) => p.length === 0) ? true : undefined), 30_000);
      const finals = orders.map((r) => `payment:${r}-1:COMPLETED`);
      expect(new Set((await Promise.all(shards.map((s) => s.members('outbox:pending')))).flat()).size).toBe(0);
      const listed = (await h.proxy.webhooks.list({ state: 'delivered', limit: 1_000 })).map((d) => d.id);
      expect(listed).toEqual(expect.arrayContaining(finals));
      expect(receiver.received.filter((r) => finals.includes(r.id) && r.status === 200).map((r) => r.id).sort()).toEqual([...finals].sort());
      // A replay by id finds the message in its shard.
      expect(await h.proxy.webhooks.replay(finals[5]!)).toBe(true);
      expect(await h.proxy.webhooks.replay('payment:NOT-ANY-1:COMPLETED')).toBe(false);

      // A session is found by its checkoutId (which names no order) in whichever shard keeps it.
      const checkoutRef = refsPerShard('SH-CO', 4)[3]![0]!;
      const checkoutToken = await h.mintCheckout({ reference: checkoutRef });
      const { checkoutId } = (await h.post('/checkouts', {}, { token: checkoutToken })).body as { checkoutId: string };
      expect(await shards[3]!.get(ORDER_KEYS.checkout(checkoutId))).toBe(checkoutRef);
      expect((await h.proxy.checkouts.getSession(checkoutId))?.reference).toBe(checkoutRef);

    } finally {
      await h.close();
      await receiver.stop();
    }
  }, 120_000);

  it('reads an order at once on a callback that names only its callback id, whichever shard keeps it', async () => {
    const { store, shards } = shardedStore(4);
    // Pollers too slow to read within the test: only the callback's hint reads the order in time.
    const h = await startHarness({ sandbox: { timeScale: 0.02 }, config: { store, relay: { minIntervalMs: 60_000, maxIntervalMs: 120_000, sweepIntervalMs: 120_000, deadlineMs: 600_000 } } });
    try {
      for (const [i, refs] of refsPerShard('SH-CB', 4).entries()) {
        const ref = refs[0]!;
        expect((await h.post('/payments', { msisdn: '233240000001' }, { token: await h.mintPayment({ referenceNo: ref }) })).status).toBe(202);
        const callbackId = await findCallbackId(shards[i]!, ref);
        // The sandbox has completed it meanwhile (3 s at 1/50 speed); the proxy has not read it yet.
        await new Promise((r) => setTimeout(r, 200));
        expect((await h.proxy.payments.get(ref))?.status).toBe('PENDING');
        const hinted = await h.request('POST', `/callbacks/payments/${callbackId}`, { body: '{}', headers: { 'content-type': 'application/json' } });
        expect(hinted.status).toBeLessThan(300);
        await eventually(async () => ((await h.proxy.payments.get(ref))?.status === 'COMPLETED' ? true : undefined), 10_000);
      }
    } finally {
      await h.close();
    }
  }, 120_000);

  it("reads the orders of the shards that answer while one does not, in an instance started meanwhile", async () => {
    const { store, down, up } = shardedStore(2);
    const completed: string[] = [];
    const config = { store, relay, hooks: { onPaymentUpdate: (u: PaymentUpdate) => void (u.snapshot.status === 'COMPLETED' && completed.push(u.snapshot.orderReference)) } };
    const ref = refsPerShard('INC', 2)[0]![0]!;
    // The first instance sends a payment (the sandbox answers after 3 s) and stops before it is read.
    const a = await startHarness({ sandbox: { timeScale: 1 }, config });
    let b: Harness | undefined;
    try {
      expect((await a.post('/payments', { msisdn: '233240000001' }, { token: await a.mintPayment({ referenceNo: ref }) })).status).toBe(202);
      await a.proxy.close();
      // Shard 1 stops answering; an instance started now finds the order in shard 0 by its sweep alone.
      down(1);
      b = await startHarness({ provider: () => a.proxy.config.provider as never, config });
      await eventually(() => (completed.includes(ref) ? true : undefined), 30_000);
      expect(b.logs.entries().some((e) => String(e.msg).startsWith('reconciler sweep failed'))).toBe(true);
    } finally {
      up(1);
      await b?.close();
      await a.close();
    }
  }, 60_000);

  it('counts the prompts waiting on a number across every shard', async () => {
    const { store } = shardedStore(4);
    const h = await startHarness({ config: { store, relay, limits: { paymentsInFlightPerNumber: { points: 1, durationSec: 3_600 } } } });
    try {
      const [first, second] = [refsPerShard('LIM', 4)[0]![0]!, refsPerShard('LIM', 4)[3]![0]!];
      // A payment that waits on the phone (the sandbox never answers it), in shard 0...
      const a = await h.post('/payments', { msisdn: '233240000005' }, { token: await h.mintPayment({ referenceNo: first }) });
      expect(a.status).toBe(202);
      // ...and another order, kept in shard 3, for the same number: refused while the first waits.
      const b = await h.post('/payments', { msisdn: '233240000005' }, { token: await h.mintPayment({ referenceNo: second }) });
      expect(b.status).toBe(429);
      expect(b.body).toMatchObject({ error: 'RATE_LIMITED', details: { scope: 'number' } });
    } finally {
      await h.close();
    }
  }, 60_000);

  it("puts back a shard that lost its records from the processes' copies, holding that shard's new orders only, and charges nothing twice", async () => {
    const { store, shards, lose } = shardedStore(2);
    const completions = new Map<string, number>();
    const config = {
      store,
      // A hold of three sweeps (15 s): long enough to see it; the pollers read at their pace.
      relay: { ...relay, sweepIntervalMs: 5_000 },
      hooks: {
        onPaymentUpdate: (u: PaymentUpdate) => {
          if (u.snapshot.status === 'COMPLETED') completions.set(u.snapshot.orderReference, (completions.get(u.snapshot.orderReference) ?? 0) + 1);
        },
      },
    };
    const [zero, one] = [refsPerShard('LOSS', 2, 2)[0]!, refsPerShard('LOSS', 2, 2)[1]!];
    // Two instances on the store; each payment pending a while (the sandbox answers after 3 s).
    const a = await startHarness({ sandbox: { timeScale: 1 }, config });
    const b = await startHarness({ provider: () => a.proxy.config.provider as never, config });
    let hs: Harness[] = [a, b];
    try {
      for (const [h, ref] of [[a, zero[0]!], [b, one[0]!]] as const) {
        expect((await h.post('/payments', { msisdn: '233240000001' }, { token: await h.mintPayment({ referenceNo: ref }) })).status).toBe(202);
      }
      // Shard 1's server restarts empty: its order, its epoch and its indexes are gone; shard 0 keeps its own.
      lose(1);
      expect(await shards[1]!.get(ORDER_KEYS.order(one[0]!))).toBeNull();
      // The loss is noticed (a poller reads the lost order), and shard 1 alone is held while copies are put back.
      await eventually(async () => ((await shards[1]!.get(ORDER_KEYS.recovering)) !== null ? true : undefined), 30_000);
      expect(await shards[0]!.get(ORDER_KEYS.recovering)).toBeNull();
      await eventually(async () => ((await shards[1]!.get(ORDER_KEYS.order(one[0]!))) !== null ? true : undefined), 30_000);
      // Meanwhile a new order of shard 0 is taken at once; one of shard 1 waits out that shard's hold, then is taken.
      const fresh0 = await a.post('/payments', { msisdn: '233240000001' }, { token: await a.mintPayment({ referenceNo: zero[1]! }) });
      expect(fresh0.status).toBe(202);
      const held = await b.post('/payments', { msisdn: '233240000001' }, { token: await b.mintPayment({ referenceNo: one[1]! }) });
      expect(held.status).toBe(503);
      expect(held.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', message: 'The service is recovering. Try again in a moment.' });
      await eventually(async () => {
        const again = await b.post('/payments', { msisdn: '233240000001' }, { token: await b.mintPayment({ referenceNo: one[1]! }) });
        return again.status === 202 ? true : undefined;
      }, 30_000);
      const all = [zero[0]!, zero[1]!, one[0]!, one[1]!];
      await eventually(async () => ((await Promise.all(all.map((r) => a.proxy.payments.get(r)))).every((p) => p?.status === 'COMPLETED') ? true : undefined), 60_000);
      await eventually(() => (all.every((r) => completions.get(r) === 1) ? true : undefined), 30_000);
      // One charge per order at the provider, the lost shard's included.
      for (const ref of all) expect([...a.sandbox.app.sandbox.payments.values()].filter((p) => p.referenceNo === `${ref}-1`)).toHaveLength(1);
      const logs = [...a.logs.entries(), ...b.logs.entries()];
      expect(logs.some((e) => String(e.msg).startsWith('the store lost its records') && e.shard === 'shard 1 of 2')).toBe(true);
      expect(logs.some((e) => String(e.msg).startsWith('the store lost its records') && e.shard === 'shard 0 of 2')).toBe(false);
    } finally {
      await Promise.all(hs.map((h) => h.close()));
      hs = [];
    }
  }, 120_000);
});

/** The callback id the proxy gave the provider for an order's first try (from its record). */
async function findCallbackId(shard: ProxyStore, ref: string): Promise<string> {
  const raw = await eventually(async () => (await shard.get(ORDER_KEYS.order(ref))) ?? undefined, 10_000);
  const order = JSON.parse(raw) as { tries: { callbackId: string }[] };
  return order.tries[0]!.callbackId;
}
