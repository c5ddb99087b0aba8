/**
 * Two proxy instances on one real Redis (a redis-server this file starts) and one sandbox. Exactly-once
 * is counted in the sandbox: `requestCounts 'payment.initiate'` and its list of payments received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import type { RelayOptions } from '../../src/proxy/config-relay.js';
import { startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

type Update = PaymentUpdate & { instance: string };

async function pair(relay: Partial<RelayOptions>, updates: Update[]): Promise<[Harness, Harness]> {
  const config = (instance: string) => ({
    redisUrl: redis.url,
    relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, ...relay },
    hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push({ ...u, instance }) },
  });
  const a = await startHarness({ sandbox: { timeScale: 0.02 }, config: config('a') });
  const b = await startHarness({ provider: () => a.proxy.config.provider as never, config: config('b') });
  return [a, b];
}

describe('two instances on one Redis', () => {
  let a: Harness;
  let b: Harness;
  const updates: Update[] = [];
  beforeAll(async () => {
    [a, b] = await pair({}, updates);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const initiations = () => a.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0;

  it('makes one upstream payment for 50 concurrent POSTs spread over both instances', async () => {
    const referenceNo = `ORDER-redis-${Date.now()}`;
    const token = await a.mintPayment({ referenceNo });
    const before = initiations();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? b : a).post('/payments', { msisdn: '233260000004' }, { token })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((r) => r.body.reference))).toEqual(new Set([`${referenceNo}-1`]));
    expect(initiations() - before).toBe(1);
    expect([...a.sandbox.app.sandbox.payments.values()].filter((p) => p.referenceNo.startsWith(referenceNo))).toHaveLength(1);
  });

  it('fires each hook once when both instances watch the same payment to its end', async () => {
    const token = await a.mintPayment();
    const { reference } = (await a.post('/payments', { msisdn: '233240000001' }, { token })).body;
    const streams = await Promise.all([
      openStream(`${a.baseUrl}/payments/${reference}/events`, token),
      openStream(`${b.baseUrl}/payments/${reference}/events`, token),
    ]);
    await Promise.all(streams.map((s) => s.ended));
    for (const s of streams) expect(s.events.at(-1)!.data.status).toBe('COMPLETED');
    // Both instances kept the same sequence: the same final id on both streams.
    expect(streams[0]!.events.at(-1)!.id).toBe(streams[1]!.events.at(-1)!.id);
    await eventually(() => (updates.some((u) => u.snapshot.reference === reference && u.final) ? true : undefined));
    await sleep(300);
    const mine = updates.filter((u) => u.snapshot.reference === reference);
    expect(mine.map((u) => u.snapshot.status)).toEqual(['PENDING', 'COMPLETED']);
  });

  it('relays a change made by one instance to a stream held by the other', async () => {
    const token = await a.mintPayment();
    const { reference } = (await a.post('/payments', { msisdn: '233200000003' }, { token })).body;
    const stream = await openStream(`${b.baseUrl}/payments/${reference}/events`, token);
    await stream.ended;
    expect(stream.events.at(-1)!.data.status).toBe('CANCELLED');
    expect(await a.proxy.payments.getAttempt(reference)).toMatchObject({ status: 'CANCELLED' });
    expect(await b.proxy.payments.getAttempt(reference)).toMatchObject({ status: 'CANCELLED' });
  });
});

describe('callback hints across instances', () => {
  let a: Harness;
  let b: Harness;
  const updates: Update[] = [];
  beforeAll(async () => {
    // One poll at the start, the next a minute later: only the hint explains a fast final state.
    [a, b] = await pair({ minIntervalMs: 60_000, maxIntervalMs: 60_000 }, updates);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a hint received by one instance brings the final state to a stream on the other', async () => {
    const token = await a.mintPayment();
    const { reference } = (await a.post('/payments', { msisdn: '233260000004' }, { token })).body;
    const stream = await openStream(`${a.baseUrl}/payments/${reference}/events`, token);
    await stream.waitFor((e) => e.data.status === 'PENDING');
    await eventually(() => ((a.sandbox.app.sandbox.requestCounts.get('payment.status') ?? 0) > 0 ? true : undefined));
    const upstream = [...a.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === reference)!;
    await fetch(`${a.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    const hint = await b.post(`/callbacks/payments/${upstream.callbackId}`, {});
    expect(hint.status).toBe(204);
    await stream.ended;
    expect(stream.events.at(-1)!.data.status).toBe('COMPLETED');
    await eventually(() => (updates.some((u) => u.snapshot.reference === reference && u.final) ? true : undefined));
    await sleep(200);
    expect(updates.filter((u) => u.snapshot.reference === reference && u.snapshot.status === 'COMPLETED')).toHaveLength(1);
  });

  it('a restarted instance resumes the pending payments it finds in Redis', async () => {
    const token = await a.mintPayment();
    const { reference } = (await a.post('/payments', { msisdn: '233260000004' }, { token })).body;
    // Its first report delivered (by either instance) before they stop; else the restarted one delivers it, as
    // at least once allows, and this test would not say which instance reported what.
    await eventually(() => (updates.some((u) => u.snapshot.reference === reference) ? true : undefined));
    await b.proxy.close();
    await a.proxy.close();
    const upstream = [...a.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === reference)!;
    await fetch(`${a.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    const restarted = await startHarness({
      provider: () => a.proxy.config.provider as never,
      config: {
        redisUrl: redis.url,
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
        hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push({ ...u, instance: 'c' }) },
      },
    });
    try {
      await eventually(() => (updates.some((u) => u.snapshot.reference === reference && u.final) ? true : undefined));
      const reported = updates.filter((u) => u.snapshot.reference === reference).map((u) => [u.instance, u.snapshot.status]);
      expect(reported).toEqual([
        [expect.stringMatching(/^[ab]$/), 'PENDING'],
        ['c', 'COMPLETED'],
      ]);
    } finally {
      await restarted.close();
    }
  });
});

describe('three instances on one Redis, with pending payments', () => {
  // Every instance sweeps the store's unsettled orders; a routine poll reads only under the order's read
  // lease, so the fleet makes one read per pending payment per interval, not one per instance.
  const INTERVAL = 400;
  const PENDING = 6;
  const reads = new Map<string, number>();
  const counting: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    if (method === 'GET' && /\/payment\/[^/]+\/status$/.test(url)) reads.set(url, (reads.get(url) ?? 0) + 1);
    return fetch(input, init);
  };
  const relay = { minIntervalMs: INTERVAL, maxIntervalMs: INTERVAL, deadlineMs: 600_000, sweepIntervalMs: 200 };
  const total = () => [...reads.values()].reduce((a, b) => a + b, 0);
  let instances: Harness[] = [];
  afterAll(async () => {
    for (const h of instances) await h.close().catch(() => undefined);
  });

  it('reads each pending payment once per interval across the fleet, and takes over a dead instance’s within an interval or two', async () => {
    const a = await startHarness({ sandbox: { timeScale: 0.02 }, config: { redisUrl: redis.url, relay, fetch: counting } });
    const b = await startHarness({ provider: () => a.proxy.config.provider as never, config: { redisUrl: redis.url, relay, fetch: counting } });
    const c = await startHarness({ provider: () => a.proxy.config.provider as never, config: { redisUrl: redis.url, relay, fetch: counting } });
    instances = [c, b, a];
    // 233260000004's prompt never ends: pending for the whole test.
    for (let i = 0; i < PENDING; i++) {
      const paid = await b.post('/payments', { msisdn: '233260000004' }, { token: await b.mintPayment({ referenceNo: `FLEET-${Date.now()}-${i}` }) });
      expect(paid.status, paid.text).toBe(202);
    }
    // Every instance's sweep has found every order (two sweeps), and the first reads are behind us.
    await sleep(4 * INTERVAL);
    const before = total();
    const window = 10 * INTERVAL;
    await sleep(window);
    const made = total() - before;
    // At most one read per payment per interval, with a margin for the lease's hand-overs; three instances
    // reading on their own made three times as many.
    expect(made).toBeLessThanOrEqual(PENDING * (window / INTERVAL) * 1.5);
    expect(made).toBeGreaterThan(0);

    // The instance holding leases goes away: every payment is read again soon, by the others.
    await b.close();
    instances = [c, a];
    const after = new Map(reads);
    await eventually(() => ([...reads.entries()].filter(([url, n]) => n > (after.get(url) ?? 0)).length >= PENDING ? true : undefined), 30_000);
  }, 90_000);
});
