/**
 * A Redis that goes back in time (DESIGN: the provider is the ledger): restarted from its last snapshot (the
 * default persistence), so every record written after it is as it was at the snapshot. The processes restart
 * too, with no memory of the newer records; or none restarts, and the customer returns through a process
 * that never held the newer record. Before, the old record said the provider's history was read and the last
 * try or session ended unpaid, so nothing looked at the provider before sending: charged twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutUpdate, PaymentUpdate } from '../../src/proxy/context.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { freePort, sandboxProvider, startHarness } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';

const relay = { minIntervalMs: 20, maxIntervalMs: 100, deadlineMs: 60_000, lateIntervalMs: 200, sweepIntervalMs: 200 };
const order = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

/** A redis-server whose snapshot the test takes (`SAVE`) and restarts from (`SHUTDOWN NOSAVE`, then the same files). */
class SnapshotRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'me-rollback-'));
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--dbfilename', 'dump.rdb', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await eventually(async () => {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG' && (await probe.info('persistence')).includes('loading:0') ? true : undefined;
      } catch {
        return undefined;
      } finally {
        probe.disconnect();
      }
    }, 15_000);
  }

  async snapshot(): Promise<void> {
    const admin = new Redis(this.url);
    await admin.save();
    admin.disconnect();
  }

  /** Stops without saving and starts again from the last snapshot. */
  async rollBack(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function instance(sandbox: StartedSandbox, redisUrl: string) {
  const payments: PaymentUpdate[] = [];
  const checkouts: CheckoutUpdate[] = [];
  const h = await startHarness({
    provider: () => sandboxProvider(sandbox),
    config: {
      redisUrl,
      relay,
      timeouts: { connectMs: 1_000, totalMs: 1_500 },
      hooks: { onPaymentUpdate: (u) => void payments.push(u), onCheckoutUpdate: (u) => void checkouts.push(u) },
    },
  });
  // A Redis restarted from a snapshot is a store gone back in time: every process holds new orders back for
  // a few sweeps while the copies are merged (503, retryable). The customer presses again, as the element lets them.
  const post = h.post.bind(h);
  const pressing: typeof h.post = async (path, body, options) => {
    for (const until = Date.now() + 15_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const answer = await post(path, body, options);
      if (answer.status !== 503 || !/recovering/.test(answer.text) || Date.now() > until) return answer;
    }
  };
  return Object.assign(h, { payments, checkouts, post: pressing });
}

const hostedPay = (sandbox: StartedSandbox, checkoutId: string) =>
  fetch(`${sandbox.url}/checkout/${checkoutId}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'msisdn=233240000001', redirect: 'manual' });

const chargesOf = (sandbox: StartedSandbox, ref: string) => ({
  payments: [...sandbox.app.sandbox.payments.values()].filter((p) => p.referenceNo.startsWith(`${ref}-`) && p.status === 'COMPLETED').length,
  sessions: [...sandbox.app.sandbox.checkouts.values()].filter((s) => s.reference === ref && s.status === 'completed').length,
});

describe('a Redis restarted from its last snapshot, and every process restarted', () => {
  let sandbox: StartedSandbox;
  let redis: SnapshotRedis;
  beforeAll(async () => {
    sandbox = await startSandbox({ timeScale: 0.02 });
    redis = new SnapshotRedis(await freePort());
    await redis.start();
  });
  afterAll(async () => {
    await redis?.close();
    await sandbox?.close();
  });

  it('a payment declined, a snapshot, the order paid by checkout, then the rollback: a new mobile-money try is refused, one charge', async () => {
    const ref = order('RB-PAY');
    let h = await instance(sandbox, redis.url);
    try {
      const declined = await h.post('/payments', { msisdn: '0200000003' }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(declined.status, declined.text).toBe(202);
      await eventually(async () => ((await h.proxy.payments.get(ref))?.status === 'CANCELLED' ? true : undefined), 15_000);
      await redis.snapshot();
      const created = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(created.status, created.text).toBe(201);
      expect((await hostedPay(sandbox, created.body.checkoutId)).status).toBe(303);
      await eventually(() => h.checkouts.find((u) => u.snapshot.reference === ref && u.snapshot.status === 'completed'), 15_000);
    } finally {
      await h.close();
    }
    await redis.rollBack();
    h = await instance(sandbox, redis.url);
    try {
      // The record is the snapshot's: the payment cancelled, no session.
      expect(await h.proxy.checkouts.get(ref)).toBeNull();
      const again = await h.post('/payments', { msisdn: '0240000001' }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(again.status, again.text).toBe(409);
      expect(again.body).toMatchObject({ error: 'ORDER_IN_OTHER_PAYMENT', details: { method: 'checkout', status: 'completed' } });
      expect(chargesOf(sandbox, ref)).toEqual({ payments: 0, sessions: 1 });
      // The completed session, found by the listing, is the order's again.
      expect(await h.proxy.checkouts.get(ref)).toMatchObject({ status: 'completed' });
    } finally {
      await h.close();
    }
  });

  it('a checkout cancelled, a snapshot, a second checkout paid, then the rollback: a new checkout answers the paid session', async () => {
    const ref = order('RB-CO');
    let h = await instance(sandbox, redis.url);
    let paidId: string;
    try {
      const first = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(first.status, first.text).toBe(201);
      const cancelled = await fetch(`${sandbox.url}/checkout/${first.body.checkoutId}/cancel`, { method: 'POST', redirect: 'manual' });
      expect([303, 200]).toContain(cancelled.status);
      await eventually(async () => ((await h.proxy.checkouts.get(ref))?.status === 'cancelled' ? true : undefined), 15_000);
      await redis.snapshot();
      const second = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(second.status, second.text).toBe(201);
      paidId = second.body.checkoutId;
      expect((await hostedPay(sandbox, paidId)).status).toBe(303);
      await eventually(() => h.checkouts.find((u) => u.snapshot.reference === ref && u.snapshot.status === 'completed'), 15_000);
    } finally {
      await h.close();
    }
    await redis.rollBack();
    h = await instance(sandbox, redis.url);
    try {
      expect(await h.proxy.checkouts.get(ref)).toMatchObject({ status: 'cancelled' });
      const again = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(again.status, again.text).toBe(201);
      expect(again.body).toMatchObject({ checkoutId: paidId, status: 'completed' });
      const pay = await h.post('/payments', { msisdn: '0240000001' }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(pay.body).toMatchObject({ error: 'ORDER_IN_OTHER_PAYMENT' });
      expect(chargesOf(sandbox, ref)).toEqual({ payments: 0, sessions: 1 });
      expect([...sandbox.app.sandbox.checkouts.values()].filter((s) => s.reference === ref)).toHaveLength(2);
    } finally {
      await h.close();
    }
  });

  it('a payment declined, a snapshot, a second payment sent, then the rollback: its completion is found and reported', async () => {
    const ref = order('RB-LATER');
    let h = await instance(sandbox, redis.url);
    try {
      expect((await h.post('/payments', { msisdn: '0200000003' }, { token: await h.mintPayment({ referenceNo: ref }) })).status).toBe(202);
      await eventually(async () => ((await h.proxy.payments.get(ref))?.status === 'CANCELLED' ? true : undefined), 15_000);
      await redis.snapshot();
      // 233240000005 waits on the phone until the test answers for the customer.
      const second = await h.post('/payments', { msisdn: '0240000005' }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(second.body).toMatchObject({ reference: `${ref}-2`, status: 'PENDING' });
    } finally {
      await h.close();
    }
    await redis.rollBack();
    h = await instance(sandbox, redis.url);
    try {
      const referenceId = sandbox.app.sandbox.paymentsByNo.get(`${ref}-2`)!;
      expect((await fetch(`${sandbox.url}/__sandbox/phone/payments/${referenceId}/approve`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
      const completed = await eventually(() => h.payments.find((u) => u.snapshot.reference === `${ref}-2` && u.snapshot.status === 'COMPLETED'), 20_000);
      expect(completed.snapshot.orderReference).toBe(ref);
      expect(await h.proxy.payments.get(ref)).toMatchObject({ reference: `${ref}-2`, status: 'COMPLETED' });
    } finally {
      await h.close();
    }
  });
});

describe('a Redis restarted from its last snapshot under two running processes (none restarted)', () => {
  let sandbox: StartedSandbox;
  let redis: SnapshotRedis;
  beforeAll(async () => {
    sandbox = await startSandbox({ timeScale: 0.02 });
    redis = new SnapshotRedis(await freePort());
    await redis.start();
  });
  afterAll(async () => {
    await redis?.close();
    await sandbox?.close();
  });

  it('merges back what a process knew as soon as the move back is seen: the completion is read through the other instance, with nobody looking again', async () => {
    const ref = order('RB-RUN');
    const a = await instance(sandbox, redis.url);
    const b = await instance(sandbox, redis.url);
    const admin = new Redis(redis.url);
    try {
      // The snapshot has the store's epoch: a loss of everything is not what is seen, only a history gone back.
      await eventually(async () => ((await admin.exists('me:ord:epoch')) === 1 ? true : undefined), 15_000);
      await redis.snapshot();
      const paid = await a.post('/payments', { msisdn: '0240000001' }, { token: await a.mintPayment({ referenceNo: ref }) });
      expect(paid.status, paid.text).toBe(202);
      // Reported once, by whichever instance's outbox took the message first (each has its own hooks).
      await eventually(() => [...a.payments, ...b.payments].find((u) => u.snapshot.orderReference === ref && u.snapshot.status === 'COMPLETED'), 15_000);
      // Settled: out of the reconciler's set, and no poller of either instance touches it again.
      await eventually(async () => ((await admin.sismember('me:ord:pending', ref)) === 0 ? true : undefined), 15_000);
      await new Promise((resolve) => setTimeout(resolve, 10 * relay.sweepIntervalMs));
      await redis.rollBack();
      // The store is the snapshot's, which had no record of the order; the instances that saw it restore it
      // once the store's watch says the history moved back (nobody looks at the order again).
      const read = await eventually(async () => ((await b.proxy.payments.get(ref))?.status === 'COMPLETED' ? b.proxy.payments.get(ref) : undefined), 12_000);
      expect(read).toMatchObject({ reference: `${ref}-1`, status: 'COMPLETED' });
      const restored = (h: typeof a) => h.logs.entries().some((e) => e.msg === 'order restored from this process (the store lost it, or went back behind it)');
      expect(restored(a) || restored(b)).toBe(true);
      expect(chargesOf(sandbox, ref)).toEqual({ payments: 1, sessions: 0 });
    } finally {
      admin.disconnect();
      await a.close();
      await b.close();
    }
  });
  it('a payment declined, a snapshot, the order paid by checkout through one, the rollback: through the other, no second charge', async () => {
    const ref = order('RB-TWO');
    const a = await instance(sandbox, redis.url);
    const b = await instance(sandbox, redis.url);
    try {
      // Both processes know the order as declined; only the first ever sees the checkout.
      const declined = await a.post('/payments', { msisdn: '0200000003' }, { token: await a.mintPayment({ referenceNo: ref }) });
      expect(declined.status, declined.text).toBe(202);
      await eventually(async () => ((await b.proxy.payments.get(ref))?.status === 'CANCELLED' ? true : undefined), 15_000);
      await redis.snapshot();
      const created = await a.post('/checkouts', {}, { token: await a.mintCheckout({ reference: ref }) });
      expect(created.status, created.text).toBe(201);
      expect((await hostedPay(sandbox, created.body.checkoutId)).status).toBe(303);
      // Whichever process reads it first reports it (the reconciler's read lease is the fleet's).
      await eventually(() => [...a.checkouts, ...b.checkouts].find((u) => u.snapshot.reference === ref && u.snapshot.status === 'completed'), 15_000);

      await redis.rollBack();
      // The customer returns through the process that never held the newer record.
      const again = await eventually(async () => {
        const r = await b.post('/payments', { msisdn: '0240000001' }, { token: await b.mintPayment({ referenceNo: ref }) });
        return r.status === 503 ? undefined : r;
      }, 20_000);
      expect(again.status, again.text).toBe(409);
      expect(again.body).toMatchObject({ error: 'ORDER_IN_OTHER_PAYMENT', details: { method: 'checkout', status: 'completed' } });
      expect(chargesOf(sandbox, ref)).toEqual({ payments: 0, sessions: 1 });
      // The completion is the order's again, and was reported under one key (by whichever process read it).
      expect(await b.proxy.checkouts.get(ref)).toMatchObject({ checkoutId: created.body.checkoutId, status: 'completed' });
      const reported = [...a.checkouts, ...b.checkouts].filter((u) => u.snapshot.reference === ref && u.snapshot.status === 'completed');
      expect(new Set(reported.map((u) => u.idempotencyKey)).size).toBe(1);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

