import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { MemoryStore } from '../../src/proxy/store/index.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fast = { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 };

async function finalOf(h: Harness, token: string, reference: string) {
  const stream = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
  await stream.ended;
  return stream.events.at(-1)!.data;
}

describe('hooks.onPaymentUpdate', () => {
  let h: Harness;
  /** Updates the hook took (it threw for none of these). */
  const updates: PaymentUpdate[] = [];
  /** Idempotency keys of the updates the hook threw on. */
  const thrown: string[] = [];
  let throwing = false;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: { ...fast, outboxBackoffMs: 20, outboxMaxBackoffMs: 50 },
        hooks: {
          onPaymentUpdate: (u) => {
            if (throwing) {
              thrown.push(u.idempotencyKey);
              throw new Error('merchant database down');
            }
            updates.push(u);
          },
        },
      },
    });
  });
  afterAll(() => h.close());

  const of = (reference: string) => updates.filter((u) => u.snapshot.reference === reference);

  it('runs once per state change: PENDING (first report) then the final state', async () => {
    const token = await h.mintPayment();
    const { reference } = (await h.post('/payments', { msisdn: '233240000001' }, { token })).body;
    // Many watchers and repeated reads change nothing about how often the hook runs.
    const streams = await Promise.all([1, 2, 3].map(() => openStream(`${h.baseUrl}/payments/${reference}/events`, token)));
    await Promise.all(streams.map((s) => s.ended));
    await h.post('/payments', { msisdn: '233240000001' }, { token });
    await eventually(() => (of(reference).some((u) => u.final) ? true : undefined));
    await sleep(200);
    expect(of(reference).map((u) => [u.previous, u.snapshot.status, u.final])).toEqual([
      [null, 'PENDING', false],
      ['PENDING', 'COMPLETED', true],
    ]);
  });

  it('retries a hook that throws, with the same idempotency key, until it takes the update', async () => {
    throwing = true;
    try {
      const token = await h.mintPayment();
      const { reference } = (await h.post('/payments', { msisdn: '233200000003' }, { token })).body;
      expect((await finalOf(h, token, reference)).status).toBe('CANCELLED');
      await eventually(() => (thrown.filter((k) => k.includes(reference)).length >= 2 ? true : undefined));
      throwing = false;
      // Each change arrives once it is taken; a retried PENDING may arrive after the CANCELLED (dedupe by key).
      await eventually(() => (of(reference).length >= 2 ? true : undefined));
      expect(of(reference).map((u) => [u.idempotencyKey, u.snapshot.status]).sort()).toEqual([
        [`payment:${reference}:CANCELLED`, 'CANCELLED'],
        [`payment:${reference}:PENDING`, 'PENDING'],
      ]);
      // Every try of one state change carried the same key.
      for (const key of thrown.filter((k) => k.includes(reference))) expect(key).toMatch(new RegExp(`^payment:${reference}:(PENDING|CANCELLED)$`));
      expect(h.logs.entries().some((e) => e.msg === 'outbox delivery failed; will retry' && e.consumer === 'hooks')).toBe(true);
    } finally {
      throwing = false;
    }
  });
});

describe('deadline', () => {
  let h: Harness;
  const updates: PaymentUpdate[] = [];
  beforeAll(async () => {
    h = await startHarness({ config: { relay: { ...fast, deadlineMs: 300, lateIntervalMs: 50 }, hooks: { onPaymentUpdate: (u) => void updates.push(u) } } });
  });
  afterAll(() => h.close());

  it('reports a payment still pending at the deadline as TIMED_OUT (not final), reads on slowly, and reports a late completion', async () => {
    const token = await h.mintPayment();
    const { reference } = (await h.post('/payments', { msisdn: '233260000004' }, { token })).body;
    const final = await finalOf(h, token, reference);
    expect(final).toMatchObject({ reference, status: 'TIMED_OUT' });
    await eventually(() => (updates.some((u) => u.snapshot.status === 'TIMED_OUT') ? true : undefined));
    // Our deadline is not a money state: no new attempt opens while the provider has not said.
    const again = await h.post('/payments', { msisdn: '233260000004' }, { token });
    expect(again.body).toMatchObject({ reference, status: 'TIMED_OUT' });
    const reads = h.sandbox.app.sandbox.requestCounts.get('payment.status') ?? 0;
    await eventually(() => ((h.sandbox.app.sandbox.requestCounts.get('payment.status') ?? 0) > reads ? true : undefined));

    const upstream = [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === reference)!;
    await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    await eventually(() => (updates.some((u) => u.snapshot.reference === reference && u.final) ? true : undefined));
    expect(updates.filter((u) => u.snapshot.reference === reference).map((u) => [u.previous, u.snapshot.status, u.final])).toEqual([
      [null, 'PENDING', false],
      ['PENDING', 'TIMED_OUT', false],
      ['TIMED_OUT', 'COMPLETED', true],
    ]);
    expect(await h.proxy.payments.get(upstream.referenceNo.replace(/-1$/, ''))).toMatchObject({ status: 'COMPLETED' });
  });
});

describe('receipts and restarts', () => {
  let h: Harness;
  let store: MemoryStore;
  const updates: Array<PaymentUpdate & { instance: string }> = [];
  const hooks = (instance: string) => ({ onPaymentUpdate: (u: PaymentUpdate) => void updates.push({ ...u, instance }) });
  const receipts = { sms: true, email: { from: 'shop@example.com', to: 'orders@example.com' } };

  beforeAll(async () => {
    store = new MemoryStore();
    h = await startHarness({ sandbox: { timeScale: 0.02 }, config: { relay: fast, store, receipts, hooks: hooks('first') } });
  });
  afterAll(async () => {
    await h.close();
    await store.close();
  });

  const outbox = () => h.sandbox.app.sandbox.outbox;

  it('sends one SMS and one email receipt for a completed payment, however many instances see it', async () => {
    // A second instance on the same store (and provider) watches the same payment.
    const second = await startHarness({ provider: () => h.proxy.config.provider as never, config: { relay: fast, store, receipts, hooks: hooks('second') } });
    try {
      const referenceNo = `ORDER-receipt-${Date.now()}`;
      const token = await h.mintPayment({ referenceNo, narration: 'Blue shirt' });
      const { reference } = (await h.post('/payments', { msisdn: '233240000001' }, { token })).body;
      const [a, b] = await Promise.all([finalOf(h, token, reference), finalOf(second, token, reference)]);
      expect([a.status, b.status]).toEqual(['COMPLETED', 'COMPLETED']);
      await eventually(() => (outbox().some((e) => e.kind === 'email') ? true : undefined));
      await sleep(200);
      const sms = outbox().filter((e) => e.kind === 'sms' && e.to === '233240000001');
      expect(sms).toHaveLength(1);
      expect(sms[0]!.kind === 'sms' && sms[0]!.message).toContain(`Ref ${reference}`);
      expect(sms[0]!.kind === 'sms' && sms[0]!.from).toBe(h.proxy.config.otp.sender);
      const emails = outbox().filter((e) => e.kind === 'email');
      expect(emails).toHaveLength(1);
      expect(emails[0]).toMatchObject({ from: 'shop@example.com', to: ['orders@example.com'] });
      // And the hook ran once for the final state across both instances.
      expect(updates.filter((u) => u.snapshot.reference === reference && u.snapshot.status === 'COMPLETED')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('resumes a pending payment after a restart, and reports each state once across the two lives', async () => {
    const token = await h.mintPayment();
    const { reference } = (await h.post('/payments', { msisdn: '233260000004' }, { token })).body;
    await eventually(() => (updates.some((u) => u.snapshot.reference === reference) ? true : undefined));
    await h.proxy.close(); // the first process goes away (its store stays: it is shared)

    const restarted = await startHarness({ provider: () => h.proxy.config.provider as never, config: { relay: fast, store, receipts, hooks: hooks('restarted') } });
    try {
      const upstream = [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === reference)!;
      await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
      // Nobody watches: the resumed poller alone must find the final state.
      await eventually(() => (updates.some((u) => u.snapshot.reference === reference && u.final) ? true : undefined));
      await sleep(200);
      expect(updates.filter((u) => u.snapshot.reference === reference).map((u) => [u.instance, u.snapshot.status])).toEqual([
        ['first', 'PENDING'],
        ['restarted', 'COMPLETED'],
      ]);
      expect(await restarted.proxy.payments.getAttempt(reference)).toMatchObject({ status: 'COMPLETED' });
      expect(outbox().filter((e) => e.kind === 'sms' && e.message.includes(reference))).toHaveLength(1);
    } finally {
      await restarted.close();
    }
  });
});
