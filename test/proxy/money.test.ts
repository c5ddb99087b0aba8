/**
 * Money safety of POST /payments (DESIGN: payment attempts and money safety). Exactly-once is counted
 * where the money moves: the sandbox's own record of every payment request it received
 * (`GET /__sandbox/payments`) and its count of `POST /v1/payment` requests (`requestCounts
 * 'payment.initiate'`), neither of which the proxy can influence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentSnapshot } from '../../src/protocol/index.js';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

interface UpstreamPayment {
  referenceNo: string;
  referenceId: string;
  amount: number;
  payer: string;
  payee: string;
  narration: string;
  msisdn: string;
  callbackId: string;
}

describe('money safety of POST /payments', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, unknownGraceMs: 2_000 },
        // A hung initiation times out quickly; a second, not less: real HTTP on a busy two-core machine
        // (400 ms let a burst's status reads time out, and a POST answer 503).
        timeouts: { connectMs: 1_000, totalMs: 1_000 },
      },
    });
  });
  afterAll(() => h.close());

  const initiations = () => h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0;
  const upstream = async (orderReference: string): Promise<UpstreamPayment[]> => {
    const res = await fetch(`${h.sandbox.url}/__sandbox/payments`);
    const { payments } = (await res.json()) as { payments: UpstreamPayment[] };
    return payments.filter((p) => p.referenceNo.startsWith(`${orderReference}-`));
  };
  const fault = async (body: Record<string, unknown>) => {
    const res = await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1, method: 'POST', path: '/gateway/v1/payment', ...body }),
    });
    expect(res.status).toBe(201);
  };
  const finalOf = async (token: string, reference: string) => {
    const stream = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
    await stream.ended;
    return stream.events.at(-1)!.data;
  };

  it('makes exactly one upstream payment for 50 concurrent POSTs on one token, and all answer the same', async () => {
    const referenceNo = `ORDER-conc-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo });
    const before = initiations();
    const answers = await Promise.all(Array.from({ length: 50 }, () => h.post('/payments', { msisdn: '233260000004' }, { token })));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((a) => a.body.reference))).toEqual(new Set([`${referenceNo}-1`]));
    for (const a of answers) paymentSnapshot.parse(a.body);
    expect(initiations() - before).toBe(1);
    expect(await upstream(referenceNo)).toHaveLength(1);
  });

  it('sends amount, payee and narration from the token, payer as the number, and a fresh callbackId', async () => {
    const referenceNo = `ORDER-fields-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo, amount: 42.1, narration: 'Two shirts' });
    const res = await h.post('/payments', { msisdn: '024 000 0001' }, { token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ reference: `${referenceNo}-1`, orderReference: referenceNo, status: 'PENDING', amount: 42.1, currency: 'GHS', attempt: 1, attemptsLeft: 2 });
    expect(res.body.totalAmount).toBeCloseTo(42.1 + res.body.charge, 2);
    const [sent] = await upstream(referenceNo);
    expect(sent).toMatchObject({ referenceNo: `${referenceNo}-1`, amount: 42.1, payee: 'Test Shop', narration: 'Two shirts', msisdn: '233240000001', payer: '233240000001' });
    expect(sent!.callbackId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('uses the payer bound in the token when there is one', async () => {
    const referenceNo = `ORDER-payer-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo, payer: 'Customer 77' });
    expect((await h.post('/payments', { msisdn: '233240000001' }, { token })).status).toBe(202);
    expect((await upstream(referenceNo))[0]!.payer).toBe('Customer 77');
  });

  it('returns the completed payment to a POST after completion, without a new upstream payment', async () => {
    const referenceNo = `ORDER-done-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo });
    const first = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect((await finalOf(token, first.body.reference)).status).toBe('COMPLETED');
    const again = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ reference: `${referenceNo}-1`, status: 'COMPLETED' });
    expect(await upstream(referenceNo)).toHaveLength(1);
  });

  it('makes attempt 2 with referenceNo …-2 after a FAILED payment, and refuses past maxAttempts', async () => {
    const referenceNo = `ORDER-fail-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo, maxAttempts: 2 });
    const first = await h.post('/payments', { msisdn: '233240000404' }, { token });
    expect(first.body).toMatchObject({ reference: `${referenceNo}-1`, attempt: 1, attemptsLeft: 1 });
    expect(await finalOf(token, first.body.reference)).toMatchObject({ status: 'FAILED', failureCode: 'PAYMENT_FAILED' });

    const second = await h.post('/payments', { msisdn: '233240000404' }, { token });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ reference: `${referenceNo}-2`, attempt: 2, attemptsLeft: 0 });
    expect(await finalOf(token, second.body.reference)).toMatchObject({ status: 'FAILED' });

    const third = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ error: 'ATTEMPTS_EXHAUSTED', details: { attemptsLeft: 0 } });
    expect((await upstream(referenceNo)).map((p) => p.referenceNo).sort()).toEqual([`${referenceNo}-1`, `${referenceNo}-2`]);
  });

  it.each([
    ['a hung initiation', 'hang'],
    ['an HTTP 500', '500'],
    ['a dropped connection', 'reset'],
  ])('adopts the payment after %s the provider did process: one upstream payment, right final state', async (_what, kind) => {
    const referenceNo = `ORDER-unknown-${kind}-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo });
    await fault({ kind, after: true });
    const before = initiations();
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.post('/payments', { msisdn: '233240000001' }, { token })));
    // Outcome unknown: answered as pending (the relay settles it; completed already when its read came first
    // on a slow machine), never failed, never re-sent.
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.body.reference))).toEqual(new Set([`${referenceNo}-1`]));
    expect(['PENDING', 'COMPLETED']).toContain(answers[0]!.body.status);
    expect(await finalOf(token, `${referenceNo}-1`)).toMatchObject({ status: 'COMPLETED' });
    expect(initiations() - before).toBe(1);
    expect(await upstream(referenceNo)).toHaveLength(1);
  });

  it('settles a hung initiation the provider never processed as VOID, then uses its free reference for the next attempt', async () => {
    const referenceNo = `ORDER-lost-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo });
    await fault({ kind: 'hang', after: false });
    const first = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(first.body).toMatchObject({ reference: `${referenceNo}-1`, status: 'PENDING' });
    const settled = await finalOf(token, first.body.reference);
    // Never reported FAILED: it never reached the provider, and it uses up no attempt.
    expect(settled).toMatchObject({ status: 'VOID', attemptsLeft: 3 });

    // The provider has no ORDER-…-1, so the next attempt takes that reference: references stay contiguous
    // over the payments the provider has (what lets a proxy that lost its state find them all again).
    const second = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(second.body).toMatchObject({ reference: `${referenceNo}-1`, attempt: 1, attemptsLeft: 2, status: 'PENDING' });
    expect(await finalOf(token, second.body.reference)).toMatchObject({ status: 'COMPLETED' });
    expect((await upstream(referenceNo)).map((p) => p.referenceNo)).toEqual([`${referenceNo}-1`]);
  });

  it('takes a 503 as unknown (a gateway may pass the request on and lose its answer): read until found by nobody for long enough, then VOID, without using an attempt', async () => {
    const referenceNo = `ORDER-503-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo });
    await fault({ kind: '503', after: false });
    const first = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ reference: `${referenceNo}-1`, status: 'PENDING' });
    expect(await finalOf(token, first.body.reference)).toMatchObject({ status: 'VOID', attemptsLeft: 3 });
    expect(await upstream(referenceNo)).toHaveLength(0);

    const second = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(second.status).toBe(202);
    expect(second.body.attemptsLeft).toBe(2);
    expect(await upstream(referenceNo)).toHaveLength(1);
  });

  it('a proxy that lost its state adopts the order\'s payment upstream instead of sending its reference again (finding 2)', async () => {
    // A second proxy with its own (empty) store on the same provider: what a restarted memory store or a
    // flushed Redis looks like. It reads ORDER-…-1 before sending anything, and adopts what it finds.
    const other = await startHarness({ provider: () => h.proxy.config.provider as never, config: { relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 } } });
    try {
      const referenceNo = `ORDER-dup-${Date.now()}`;
      const first = await h.post('/payments', { msisdn: '233260000004' }, { token: await h.mintPayment({ referenceNo }) });
      expect(first.status).toBe(202);
      const before = initiations();
      const token = await other.mintPayment({ referenceNo });
      // Another number: the order's payment waits on the first one, and the answer says which (masked).
      const elsewhere = await other.post('/payments', { msisdn: '233240000001' }, { token });
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.body).toMatchObject({ error: 'PAYMENT_IN_PROGRESS', details: { reference: `${referenceNo}-1` } });
      expect(elsewhere.body.details.msisdn).toMatch(/^\+233 26 \*{3} \*{2}04$/);
      // The same number: the adopted payment itself.
      const same = await other.post('/payments', { msisdn: '233260000004' }, { token });
      expect(same.status).toBe(202);
      expect(same.body).toMatchObject({ reference: `${referenceNo}-1`, status: 'PENDING' });
      expect(initiations()).toBe(before);
      expect(await upstream(referenceNo)).toHaveLength(1);
      expect(await other.proxy.payments.get(referenceNo)).toMatchObject({ reference: `${referenceNo}-1`, orderReference: referenceNo });
    } finally {
      await other.close();
    }
  });
});

/**
 * A network that gives up on the next payment request (`delayNext()`) while a copy of it is still on its way
 * to the provider: the caller gets `fetch failed` at once, the request lands 1.5 s later.
 */
function lateNetwork() {
  const realFetch = globalThis.fetch;
  let delay = false;
  return {
    delayNext: () => void (delay = true),
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (delay && init?.method === 'POST' && url.endsWith('/v1/payment')) {
        delay = false;
        const { signal: _signal, ...rest } = init;
        setTimeout(() => void realFetch(input, rest).catch(() => undefined), 1_500);
        throw new TypeError('fetch failed');
      }
      return realFetch(input, init);
    }) as typeof fetch,
  };
}

describe('a payment request that lands after the proxy wrote it off (finding 4)', () => {
  let h: Harness;
  const updates: PaymentUpdate[] = [];
  const late = lateNetwork();
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        // Written off 0.5 s after its send, before it lands (1.5 s): the grace is set shorter than the landing.
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, lateIntervalMs: 100, unknownGraceMs: 500 },
        timeouts: { connectMs: 1_000, totalMs: 300 },
        hooks: { onPaymentUpdate: (u) => void updates.push(u) },
        fetch: late.fetch,
      },
    });
  });
  afterAll(() => h.close());

  it('reads the void attempt on, finds the late payment, and reports its completion (never FAILED, never VOID)', async () => {
    const referenceNo = `ORDER-late-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo });
    late.delayNext();
    const first = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(first.body).toMatchObject({ reference: `${referenceNo}-1`, status: 'PENDING' });
    // Two 0404 reads past the grace period: void (the merchant is told nothing: no charge it could act on).
    await eventually(async () => ((await h.proxy.payments.getAttempt(`${referenceNo}-1`))?.status === 'VOID' ? true : undefined));
    const completed = await eventually(() => updates.find((u) => u.snapshot.reference === `${referenceNo}-1` && u.snapshot.status === 'COMPLETED'), 10_000);
    // Read as it lands: PENDING first or already COMPLETED, depending on when the slow read comes.
    expect(completed.final).toBe(true);
    expect([null, 'PENDING']).toContain(completed.previous);
    const mine = updates.filter((u) => u.snapshot.orderReference === referenceNo);
    expect(mine.filter((u) => u.snapshot.status === 'FAILED' || u.snapshot.status === 'VOID')).toEqual([]);
    expect(await h.proxy.payments.get(referenceNo)).toMatchObject({ status: 'COMPLETED' });
  });
});

describe('a payment the provider refuses at once: insufficient funds (233240000002)', () => {
  let h: Harness;
  const updates: PaymentUpdate[] = [];
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
        hooks: { onPaymentUpdate: (u) => void updates.push(u) },
      },
    });
  });
  afterAll(() => h.close());

  it('reaches the customer as INSUFFICIENT_FUNDS and the merchant in the snapshot; the attempt counts, its number is used again, and `attempt` counts the tries', async () => {
    const referenceNo = `ORDER-funds-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo, maxAttempts: 3 });
    const refused = await h.post('/payments', { msisdn: '0240000002' }, { token });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'INSUFFICIENT_FUNDS', details: { reference: `${referenceNo}-1`, attemptsLeft: 2 } });
    // What the element reads next, and what the merchant's hook and lookups say: the reason, not "failed".
    const read = await h.get(`/payments/${referenceNo}-1`, { token });
    expect(read.status).toBe(200);
    expect(paymentSnapshot.parse(read.body)).toMatchObject({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', attempt: 1, attemptsLeft: 2 });
    const update = await eventually(() => updates.find((u) => u.snapshot.orderReference === referenceNo));
    expect(update).toMatchObject({ final: true, idempotencyKey: `payment:${referenceNo}-1:try1:FAILED` });
    expect(update.snapshot).toMatchObject({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' });
    expect(await h.proxy.payments.get(referenceNo)).toMatchObject({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' });

    // Refused again under the same free number: a second final outcome, with an idempotency key of its own
    // (a merchant deduplicating by key must not drop it as the first one again).
    const again = await h.post('/payments', { msisdn: '0240000002' }, { token });
    expect(again.body).toMatchObject({ error: 'INSUFFICIENT_FUNDS', details: { reference: `${referenceNo}-1`, attemptsLeft: 1 } });
    expect((await h.get(`/payments/${referenceNo}-1`, { token })).body).toMatchObject({ status: 'FAILED', attempt: 2, attemptsLeft: 1 });
    const failedKeys = () => updates.filter((u) => u.snapshot.orderReference === referenceNo && u.snapshot.status === 'FAILED').map((u) => u.idempotencyKey);
    await eventually(() => (failedKeys().length >= 2 ? true : undefined));
    expect(new Set(failedKeys())).toEqual(new Set([`payment:${referenceNo}-1:try1:FAILED`, `payment:${referenceNo}-1:try2:FAILED`]));

    // Topped up, or another number: the provider recorded nothing under …-1, so the next attempt uses it.
    const next = await h.post('/payments', { msisdn: '0240000001' }, { token });
    expect(next.status).toBe(202);
    // The third try, under the first try's number: `attempt` counts tries, the reference numbers payments.
    expect(next.body).toMatchObject({ reference: `${referenceNo}-1`, attempt: 3, attemptsLeft: 0 });
    const stream = await openStream(`${h.baseUrl}/payments/${referenceNo}-1/events`, token);
    await stream.ended;
    expect(stream.events.at(-1)!.data).toMatchObject({ status: 'COMPLETED' });
    const sandbox = (await (await fetch(`${h.sandbox.url}/__sandbox/payments`)).json()) as { payments: { referenceNo: string; status: string; msisdn: string }[] };
    expect(sandbox.payments.filter((p) => p.referenceNo === `${referenceNo}-1`).map((p) => `${p.msisdn} ${p.status}`).sort()).toEqual([
      '233240000001 COMPLETED',
      '233240000002 FAILED',
      '233240000002 FAILED',
    ]);
  });
});

describe('a written-off attempt that landed after all, adopted by the retry\u2019s read (chaos, found under load)', () => {
  let h: Harness;
  const late = lateNetwork();
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        // The void attempt is read on slowly, once a minute: the adopted payment must not wait for that. It is
        // written off 0.5 s after its send, before it lands (1.5 s).
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, lateIntervalMs: 60_000, unknownGraceMs: 500 },
        timeouts: { connectMs: 1_000, totalMs: 300 },
        fetch: late.fetch,
      },
    });
  });
  afterAll(() => h.close());

  it('reads the adopted payment at once, not on the void attempt’s slow schedule', async () => {
    const referenceNo = `ORDER-adopt-${Date.now()}`;
    const reference = `${referenceNo}-1`;
    const token = await h.mintPayment({ referenceNo });
    late.delayNext();
    await h.post('/payments', { msisdn: '0260000004' }, { token });
    await eventually(async () => ((await h.proxy.payments.getAttempt(reference))?.status === 'VOID' ? true : undefined));
    // The lost request lands upstream after the write-off; the customer tries again, and the retry reads the
    // reference before sending anything (the provider is the ledger): found waiting on the phone, adopted.
    await eventually(() => (h.sandbox.app.sandbox.paymentsByNo.has(reference) ? true : undefined));
    const again = await h.post('/payments', { msisdn: '0260000004' }, { token });
    expect(again.body).toMatchObject({ reference, status: 'PENDING' });
    const referenceId = h.sandbox.app.sandbox.paymentsByNo.get(reference)!;
    expect((await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${referenceId}/approve`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const started = Date.now();
    await eventually(async () => ((await h.proxy.payments.get(referenceNo))?.status === 'COMPLETED' ? true : undefined), 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(h.sandbox.app.sandbox.requestCounts.get('payment.initiate')).toBe(1);
  });
});

describe('a customer looking at a payment past its deadline (a reload, "Check again")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        // Past the deadline the attempt is read once a minute: far longer than this test waits.
        relay: { minIntervalMs: 20, maxIntervalMs: 1_000, deadlineMs: 300, lateIntervalMs: 60_000 },
      },
    });
  });
  afterAll(() => h.close());

  it('reads the payment at once, not on the slow schedule, and a page reading in a loop makes few reads', async () => {
    const referenceNo = `ORDER-look-${Date.now()}`;
    const reference = `${referenceNo}-1`;
    const token = await h.mintPayment({ referenceNo });
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    expect((await h.post('/payments', { msisdn: '0260000004' }, { token })).body).toMatchObject({ reference, status: 'PENDING' });
    await eventually(async () => ((await h.proxy.payments.getAttempt(reference))?.status === 'TIMED_OUT' ? true : undefined));
    const reads = () => h.sandbox.app.sandbox.requestCounts.get('payment.status') ?? 0;
    // The reader now sleeps a minute. A page reading every 60 ms wakes it at most once per maxIntervalMs (1 s),
    // fewer than the poller's own wake gap (250 ms) would allow.
    await pause(1_100);
    const before = reads();
    const started = Date.now();
    for (let i = 0; i < 25; i++) {
      expect((await h.get(`/payments/${reference}`, { token })).body).toMatchObject({ status: 'TIMED_OUT' });
      await pause(60);
    }
    const elapsed = Date.now() - started;
    await pause(300);
    expect(reads() - before).toBeGreaterThanOrEqual(1);
    expect(reads() - before).toBeLessThanOrEqual(Math.floor(elapsed / 1_000) + 1);
    // Approved on the phone late: a look reads it now, a minute before the slow reader would.
    const referenceId = h.sandbox.app.sandbox.paymentsByNo.get(reference)!;
    expect((await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${referenceId}/approve`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await eventually(async () => ((await h.get(`/payments/${reference}`, { token })).body.status === 'COMPLETED' ? true : undefined), 5_000);
  });
});

describe('a refusal whose answer is lost on the way back (insufficient funds, 233240000002)', () => {
  let h: Harness;
  const updates: PaymentUpdate[] = [];
  const realFetch = globalThis.fetch;
  let loseNext = false;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, unknownGraceMs: 500 },
        timeouts: { connectMs: 1_000, totalMs: 300 },
        hooks: { onPaymentUpdate: (u) => void updates.push(u) },
        // The provider gets the request and answers; the answer never reaches the proxy.
        fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
          const answer = await realFetch(input, init);
          const url = String(input instanceof Request ? input.url : input);
          if (loseNext && init?.method === 'POST' && url.endsWith('/v1/payment')) {
            loseNext = false;
            await answer.body?.cancel();
            throw new TypeError('fetch failed');
          }
          return answer;
        }) as typeof fetch,
      },
    });
  });
  afterAll(() => h.close());

  it('never reports a charge: the unknown outcome is read as no payment, and the next try is refused in words', async () => {
    const referenceNo = `ORDER-lost-refusal-${Date.now()}`;
    const reference = `${referenceNo}-1`;
    const token = await h.mintPayment({ referenceNo, maxAttempts: 3 });
    loseNext = true;
    const first = await h.post('/payments', { msisdn: '0240000002' }, { token });
    // The proxy cannot know the provider refused it: the outcome is unknown, so the page waits while it reads.
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ reference, status: 'PENDING' });
    // Read by reference: the provider has nothing under it (a refusal makes no transaction), so it is void.
    await eventually(async () => ((await h.proxy.payments.getAttempt(reference))?.status === 'VOID' ? true : undefined), 10_000);
    expect(await h.proxy.payments.getAttempt(reference)).toMatchObject({ attemptsLeft: 3 });

    const again = await h.post('/payments', { msisdn: '0240000002' }, { token });
    expect(again.status).toBe(402);
    expect(again.body).toMatchObject({ error: 'INSUFFICIENT_FUNDS', details: { reference, attemptsLeft: 2 } });
    const final = await eventually(() => updates.find((u) => u.snapshot.orderReference === referenceNo && u.final));
    expect(final.snapshot).toMatchObject({ reference, status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' });
    expect(updates.filter((u) => u.snapshot.orderReference === referenceNo).map((u) => u.snapshot.status)).not.toContain('COMPLETED');
    const sandbox = (await (await fetch(`${h.sandbox.url}/__sandbox/payments`)).json()) as { payments: { referenceNo: string; status: string }[] };
    expect(sandbox.payments.filter((p) => p.referenceNo === reference).map((p) => p.status)).toEqual(['FAILED', 'FAILED']);
  });
});

describe('a burst of POSTs on an order new to the store', () => {
  let h: Harness;
  beforeAll(async () => {
    // Scripted latency faults hold each status read of the order's reference for 300 ms: the burst arrives
    // while the probe is on its way.
    // A client timeout well past the held reads: a send that times out under load would be unknown, not refused.
    h = await startHarness({ sandbox: { timeScale: 0.02, faultLatencyMs: 300 }, config: { timeouts: { connectMs: 1_000, totalMs: 3_000 } } });
  });
  afterAll(() => h.close());

  it('probes it once, however many requests wait on the probe, and tells them all the same (233240000002, one attempt)', async () => {
    const referenceNo = `ORDER-burst-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo, maxAttempts: 1 });
    const counts = h.sandbox.app.sandbox.requestCounts;
    const initiations = counts.get('payment.initiate') ?? 0;
    const reads = counts.get('payment.status') ?? 0;
    const slow = await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 60, kind: 'latency', method: 'GET', path: `/gateway/v1/payment/${referenceNo}-1/status` }),
    });
    expect(slow.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 50 }, () => h.post('/payments', { msisdn: '233240000002' }, { token })));
    // Those that waited on the send are told its refusal; any that came after it, that the one try is spent.
    const told = answers.map((a) => `${a.status} ${a.body.error} ${a.body.details?.reference ?? ''}`);
    expect(told).toContain(`402 INSUFFICIENT_FUNDS ${referenceNo}-1`);
    expect(told.filter((t) => t !== `402 INSUFFICIENT_FUNDS ${referenceNo}-1` && t !== '409 ATTEMPTS_EXHAUSTED ')).toEqual([]);
    expect(counts.get('payment.initiate')! - initiations).toBe(1);
    // One probe the waiting requests share, one read of the refusal, and room for the client's own retries
    // of a slow read: never a read per request (one each made dozens here).
    expect(counts.get('payment.status')! - reads).toBeLessThanOrEqual(8);
  });
});
