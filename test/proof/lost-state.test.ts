/**
 * Lost state: the proxy's own state goes away or stops answering while money moves upstream, and the money
 * rules still hold. Each case runs against the sandbox on loopback and a real redis-server (paused with
 * SIGSTOP, flushed, or a process killed with SIGKILL), and checks the truth where the money moves (the
 * sandbox's own list of payments) and where the merchant hears of it (the hooks):
 * - at most one upstream payment per order, at the token's price;
 * - every upstream completion reaches the hooks at least once, with its idempotency key;
 * - a reloaded page is answered with the order's payment, never a second one.
 * The payments here go to 233260000004, which stays pending until the test answers on the sandbox's phone
 * page, so each fault lands exactly where the case says.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { MemoryStore } from '../../src/proxy/store/index.js';
import type { CommitWrite, ProxyStore } from '../../src/proxy/store/types.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { sandboxProvider, startHarness, startRedis, TEST_SECRET, type Harness, type TestRedis } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { startProxyInstance } from './instances.js';
import type { HookLine } from './proxy-instance.js';
import { answerOnPhone, sleep, upstreamPayments } from './sandbox-truth.js';

const PENDING_NUMBER = '233260000004';
/** The reconciler's timings, short: sweeps every 100 ms, an outbox lease of 1 s. */
const relay = { minIntervalMs: 20, maxIntervalMs: 80, deadlineMs: 60_000, sweepIntervalMs: 100, outboxBackoffMs: 50, outboxMaxBackoffMs: 200, outboxLeaseMs: 1_000 };

let sandbox: StartedSandbox;
let redis: TestRedis;
beforeAll(async () => {
  sandbox = await startSandbox({ timeScale: 0.02 });
  redis = await startRedis();
});
/**
 * A flush tells the instances that noticed it to hold new orders back for a recovery window (three sweeps
 * here): the next case waits it out, as a shop's next customer after a flush would be asked to.
 */
afterEach(async () => {
  const admin = new Redis(redis.url);
  try {
    await eventually(async () => ((await admin.exists('me:ord:recovering')) === 0 ? true : undefined), 10_000);
  } finally {
    admin.disconnect();
  }
});
afterAll(async () => {
  await redis?.stop();
  await sandbox?.close();
});


/** A proxy on the shared sandbox whose hook records every update it takes. */
async function proxyOn(store: { redisUrl: string } | { store: ProxyStore }, updates: PaymentUpdate[]): Promise<Harness> {
  return startHarness({
    provider: () => sandboxProvider(sandbox),
    config: { relay, timeouts: { connectMs: 1_000, totalMs: 1_500 }, ...store, hooks: { onPaymentUpdate: (u) => void updates.push(u) } },
  });
}

const order = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const upstreamOf = async (ref: string) => (await upstreamPayments(sandbox.url)).filter((p) => p.referenceNo.startsWith(`${ref}-`));
async function approve(ref: string): Promise<void> {
  const [payment] = await upstreamOf(ref);
  expect(await answerOnPhone(sandbox.url, payment!.referenceId, 'approve')).toBe(true);
}
const completedIn = (updates: PaymentUpdate[], ref: string) =>
  eventually(() => updates.find((u) => u.snapshot.orderReference === ref && u.snapshot.status === 'COMPLETED'), 15_000);

/** SIGSTOP: Redis stops answering (commands time out), as a hung or partitioned Redis does. */
function pauseRedis(): void {
  redis.process.kill('SIGSTOP');
}
function resumeRedis(): void {
  redis.process.kill('SIGCONT');
}

describe('lost state', () => {
  it('a memory store restarted mid-flight: the reload adopts the order\u2019s payment, no second charge, and the completion reaches the hooks', async () => {
    const ref = order('MEM');
    const first: PaymentUpdate[] = [];
    const a = await proxyOn({ store: new MemoryStore() }, first);
    const pay = await a.post('/payments', { msisdn: PENDING_NUMBER }, { token: await a.mintPayment({ referenceNo: ref }) });
    expect(pay.body).toMatchObject({ reference: `${ref}-1`, status: 'PENDING' });
    await a.close(); // the process and its memory are gone

    const second: PaymentUpdate[] = [];
    const b = await proxyOn({ store: new MemoryStore() }, second);
    try {
      await approve(ref);
      // The customer reloads the page: a new token for the same order, the same number.
      const reload = await b.post('/payments', { msisdn: PENDING_NUMBER }, { token: await b.mintPayment({ referenceNo: ref }) });
      expect(reload.status).toBe(202);
      expect(reload.body.reference).toBe(`${ref}-1`);
      const done = await completedIn(second, ref);
      expect(done).toMatchObject({ idempotencyKey: `payment:${ref}-1:COMPLETED`, final: true });
      // "Try again" after completion answers the completed payment.
      const again = await b.post('/payments', { msisdn: PENDING_NUMBER }, { token: await b.mintPayment({ referenceNo: ref }) });
      expect(again.body).toMatchObject({ reference: `${ref}-1`, status: 'COMPLETED' });
      expect(await upstreamOf(ref)).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it('Redis flushed mid-flight: the instance restores what it reconciles, the completion reaches the hooks, a reload pays nothing new', async () => {
    const ref = order('FLUSH');
    const updates: PaymentUpdate[] = [];
    const h = await proxyOn({ redisUrl: redis.url }, updates);
    const admin = new Redis(redis.url);
    try {
      const token = await h.mintPayment({ referenceNo: ref });
      expect((await h.post('/payments', { msisdn: PENDING_NUMBER }, { token })).status).toBe(202);
      await eventually(() => updates.find((u) => u.snapshot.orderReference === ref));
      await admin.flushall();
      await approve(ref);
      await completedIn(updates, ref);
      const reload = await h.post('/payments', { msisdn: PENDING_NUMBER }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(reload.body).toMatchObject({ reference: `${ref}-1`, status: 'COMPLETED' });
      expect(await upstreamOf(ref)).toHaveLength(1);
      expect(h.logs.entries().some((e) => e.msg === 'order restored from this process (the store lost it, or went back behind it)')).toBe(true);
    } finally {
      admin.disconnect();
      await h.close();
    }
  });

  it('Redis flushed after the completion was recorded but before the hook took it: the process records it again and the hook gets it', async () => {
    const ref = order('FLUSHED-OUTBOX');
    const updates: PaymentUpdate[] = [];
    const admin = new Redis(redis.url);
    let flushed = false;
    // The merchant's hook fails the first time it sees the completion, and meanwhile the store is flushed:
    // the outbox message and the payment's record are gone, the payment itself is settled.
    const h = await startHarness({
      provider: () => sandboxProvider(sandbox),
      config: {
        relay,
        timeouts: { connectMs: 1_000, totalMs: 1_500 },
        redisUrl: redis.url,
        hooks: {
          onPaymentUpdate: async (u) => {
            if (u.snapshot.status === 'COMPLETED' && !flushed) {
              flushed = true;
              await admin.flushall();
              throw new Error('merchant database busy');
            }
            updates.push(u);
          },
        },
      },
    });
    try {
      const token = await h.mintPayment({ referenceNo: ref });
      expect((await h.post('/payments', { msisdn: PENDING_NUMBER }, { token })).status).toBe(202);
      await eventually(() => updates.find((u) => u.snapshot.orderReference === ref));
      await approve(ref);
      const completed = await completedIn(updates, ref);
      expect(flushed).toBe(true);
      expect(completed.idempotencyKey).toBe(`payment:${ref}-1:COMPLETED`);
      // Recorded again by this process: from its copy of the message, or with its copy of the order (put back
      // with the messages of where it stands), whichever noticed the loss first.
      const again = ['outbox message missing from the store before it was delivered; recorded again from this process', 'order restored from this process (the store lost it, or went back behind it)'];
      expect(h.logs.entries().some((e) => again.includes(e.msg as string))).toBe(true);
    } finally {
      admin.disconnect();
      await h.close();
    }
  });

  it('Redis down for a while when the payment completes: the completion is recorded and delivered once it answers again', async () => {
    const ref = order('DOWN');
    const updates: PaymentUpdate[] = [];
    const h = await proxyOn({ redisUrl: redis.url }, updates);
    try {
      const token = await h.mintPayment({ referenceNo: ref });
      expect((await h.post('/payments', { msisdn: PENDING_NUMBER }, { token })).status).toBe(202);
      await eventually(() => updates.find((u) => u.snapshot.orderReference === ref));
      pauseRedis();
      try {
        await approve(ref);
        // Reads upstream go on; every write fails while Redis is away (commands time out after 2 s).
        await sleep(3_000);
        expect(updates.some((u) => u.snapshot.status === 'COMPLETED' && u.snapshot.orderReference === ref)).toBe(false);
      } finally {
        resumeRedis();
      }
      await completedIn(updates, ref);
      expect(await upstreamOf(ref)).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('a proxy started while Redis is down picks up the pending payments it finds once Redis answers', async () => {
    const ref = order('START');
    const before: PaymentUpdate[] = [];
    const a = await proxyOn({ redisUrl: redis.url }, before);
    expect((await a.post('/payments', { msisdn: PENDING_NUMBER }, { token: await a.mintPayment({ referenceNo: ref }) })).status).toBe(202);
    await eventually(() => before.find((u) => u.snapshot.orderReference === ref));
    await a.close();

    pauseRedis();
    const updates: PaymentUpdate[] = [];
    let b: Harness | undefined;
    try {
      b = await proxyOn({ redisUrl: redis.url }, updates);
      await approve(ref);
      // Past the store's 2 s command timeout: the first sweep has failed by now.
      await eventually(() => b!.logs.entries().find((e) => e.msg === 'reconciler sweep failed (store down?); sweeping again soon'), 8_000);
    } finally {
      resumeRedis();
    }
    try {
      await completedIn(updates, ref);
    } finally {
      await b!.close();
    }
  });

  it('a store error right after the provider accepted the payment: the browser is told it is pending (not 500), and the completion is reported', async () => {
    const ref = order('BLIP');
    const inner = new MemoryStore();
    let failed = 0;
    // The store fails the first write of what the provider answered (the try turning `pending`): a Redis blip
    // at the worst moment, after the provider took the payment and before the proxy wrote it down.
    const store: ProxyStore = Object.assign(Object.create(inner) as ProxyStore, {
      commit: (write: CommitWrite) => {
        if (failed === 0 && write.key === `ord:${ref}` && write.value.includes('"phase":"pending"')) {
          failed++;
          return Promise.reject(new Error('Connection is closed.'));
        }
        return inner.commit(write);
      },
    });
    const updates: PaymentUpdate[] = [];
    const h = await proxyOn({ store }, updates);
    try {
      const token = await h.mintPayment({ referenceNo: ref });
      const pay = await h.post('/payments', { msisdn: PENDING_NUMBER }, { token });
      expect(failed).toBe(1);
      expect(pay.status).toBe(202);
      expect(pay.body).toMatchObject({ reference: `${ref}-1`, status: 'PENDING' });
      await approve(ref);
      await completedIn(updates, ref);
      expect(await upstreamOf(ref)).toHaveLength(1);
    } finally {
      await h.close();
      await inner.close();
    }
  });

  it('a process killed inside the final hook: another instance delivers the completion, with the same idempotency key', async () => {
    const ref = order('KILL');
    const dir = await mkdtemp(join(tmpdir(), 'lost-state-'));
    const hookFile = join(dir, 'hooks.jsonl');
    const settings = { sandboxUrl: sandbox.url, redisUrl: redis.url, tokenSecret: TEST_SECRET, hookFile, proxy: { relay } };
    const a = await startProxyInstance({ ...settings, name: 'a', crashInHookOn: 'COMPLETED' });
    // Tokens only need the shared secret: minted by a proxy on a store of its own, so nothing else reconciles.
    const minter = await proxyOn({ store: new MemoryStore() }, []);
    try {
      const token = await minter.mintPayment({ referenceNo: ref });
      const res = await fetch(`${a.url}/merchant-elements/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ msisdn: PENDING_NUMBER }),
      });
      expect(res.status).toBe(202);
      await minter.close(); // only instance a reconciles the payment
      await approve(ref);
      await eventually(() => (a.process.signalCode === 'SIGKILL' ? true : undefined), 15_000);
      const lines = async () =>
        (await readFile(hookFile, 'utf8').catch(() => ''))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as HookLine)
          .filter((l) => l.reference === `${ref}-1`);
      expect((await lines()).map((l) => l.status)).toEqual(['PENDING']);

      const b = await startProxyInstance({ ...settings, name: 'b' });
      try {
        const done = await eventually(async () => (await lines()).find((l) => l.status === 'COMPLETED'), 20_000);
        expect(done).toMatchObject({ instance: 'b', idempotencyKey: `payment:${ref}-1:COMPLETED`, final: true });
      } finally {
        await b.stop();
      }
      expect(await upstreamOf(ref)).toHaveLength(1);
    } finally {
      await a.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
