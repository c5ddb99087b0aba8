/**
 * Chaos: 200 payments, each on its own token, through one proxy while the sandbox injects a fault into
 * 20 % of its API requests (every kind: 500, 502, 503, a hang past the proxy's client timeout, a reset,
 * malformed JSON, latency; half of them after the request was processed), on every endpoint. Browsers
 * retry a POST that answered UPSTREAM_UNAVAILABLE the way <pay-by-mobile> does (same token, a few times);
 * some customers approve or decline on the sandbox's phone page.
 *
 * Truth is what the sandbox says over `/__sandbox` (never faulted), not the proxy's word.
 *
 * How this proves exactly-once:
 * - every `POST /v1/payment` that reached the sandbox's route is counted (`requestCounts
 *   'payment.initiate'`, counted before any validation) and each one either created a payment or was
 *   refused; the sandbox refuses a `referenceNo` it already has. So "initiations counted == payments
 *   received" means the proxy never re-sent an attempt that had reached the provider;
 * - per order, the upstream payments are exactly the attempts the proxy reports as sent (not void), each
 *   `referenceNo` once, and at most one per order (a browser only retries after UPSTREAM_UNAVAILABLE, which
 *   must mean "not created"): nothing was paid twice, and no attempt the proxy wrote off exists upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSnapshot } from '../../src/protocol/index.js';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { startHarness, type Harness, type TestResponse } from '../proxy/helpers.js';
import { openStream, type OpenStream } from '../proxy/sse-client.js';
import { answerOnPhone, groupBy, inPool, orderOf, settled, sleep, upstreamPayments, within, type UpstreamPayment } from './sandbox-truth.js';

const PAYMENTS = 200;
/** Payments with an SSE watcher (every other one). */
const watched = (i: number) => i % 2 === 0;
const CONCURRENCY = 25;
/**
 * How long a customer told "try again" (503 UPSTREAM_UNAVAILABLE) keeps pressing Pay, as the element lets them
 * (same token). Counted in time, not presses: an open circuit refuses for up to its longest wait between
 * trials (5 s), and on a loaded machine (a long model run beside the suite) a count of presses, or 12 s of
 * them, left 35 of 200 orders unsent.
 */
const CUSTOMER_PATIENCE_MS = 30_000;
/** How long the proxy gets, after the last flow, to agree with the sandbox. */
const CONVERGE_MS = 30_000;

interface Plan {
  order: string;
  msisdn: string;
  phone?: 'approve' | 'decline';
}

interface Flow {
  plan: Plan;
  posts: TestResponse[];
  /** The SSE watcher of the first attempt given (202), if this payment is watched. */
  stream?: { reference: string; stream: OpenStream };
  /** Times the customer pressed retry after an attempt was written off as never created. */
  retriedAfterVoid: number;
}

/**
 * Mixed numbers: ordinary ones (complete after 5 scaled seconds unless answered on the phone first), the
 * test numbers that complete, fail and cancel by themselves, and 233260000004, which stays pending until
 * the phone page answers (every one of those is answered, so nothing waits for the relay's deadline).
 */
function planOf(i: number, run: string): Plan {
  const order = `CHAOS-${run}-${i}`;
  const ordinary = `23354${String(1_000_000 + i).slice(-7)}`;
  switch (i % 10) {
    case 1:
      return { order, msisdn: ordinary, phone: 'approve' };
    case 2:
      return { order, msisdn: ordinary, phone: 'decline' };
    case 3:
      return { order, msisdn: '233240000001' };
    case 4:
      return { order, msisdn: '233240000404' };
    case 5:
      return { order, msisdn: '233200000003' };
    case 6:
      return { order, msisdn: '233240000404' };
    case 7:
      return { order, msisdn: '233260000004', phone: 'approve' };
    case 8:
      return { order, msisdn: '233260000004', phone: 'decline' };
    default:
      return { order, msisdn: ordinary };
  }
}

const isVoid = (s: PaymentSnapshot) => s.status === 'VOID';

describe('chaos: 200 payments through 20 % upstream faults', () => {
  let h: Harness;
  const updates: PaymentUpdate[] = [];

  beforeAll(async () => {
    h = await startHarness({
      // Payments settle in 0.6 s (test numbers) or 1 s (ordinary); a hang outlives the client timeout.
      sandbox: { timeScale: 0.2, faultRate: 0.2, faultLatencyMs: 250, hangMs: 3_000 },
      config: {
        // The sandbox's faults land a request before its answer is lost, or not at all: nothing lands late, so
        // an attempt read as absent twice, 2 s after its send, is settled as void within the test's window.
        relay: { minIntervalMs: 50, maxIntervalMs: 250, deadlineMs: 120_000, unknownGraceMs: 2_000 },
        timeouts: { connectMs: 500, totalMs: 800 },
        // DESIGN's breaker, on a test's time scale.
        circuitBreaker: { threshold: 0.5, minimumCalls: 10, windowMs: 2_000, halfOpenAfterMs: 250, maxHalfOpenAfterMs: 1_000 },
        hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push(u) },
      },
    });
  });
  afterAll(() => h?.close());

  /** Every attempt the proxy keeps for an order (`ORDER-1`, `ORDER-2`, ...), read through `proxy.payments.getAttempt`. */
  async function attemptsOf(order: string): Promise<PaymentSnapshot[]> {
    const out: PaymentSnapshot[] = [];
    for (let n = 1; n <= 10; n++) {
      const snapshot = await h.proxy.payments.getAttempt(`${order}-${n}`);
      if (!snapshot) break;
      out.push(snapshot);
    }
    return out;
  }

  /**
   * One customer: POST (retried on UPSTREAM_UNAVAILABLE), an SSE watcher on the attempt given, the phone
   * answer, and, when the attempt ends written off as never created, the retry button (a new attempt).
   */
  async function pay(plan: Plan, index: number): Promise<Flow> {
    const token = await h.mintPayment({ referenceNo: plan.order });
    const flow: Flow = { plan, posts: [], retriedAfterVoid: 0 };
    for (;;) {
      const reference = await postAsTheElement(flow, token);
      if (!reference) return flow;
      if (watched(index) && !flow.stream) flow.stream = { reference, stream: await openStream(`${h.baseUrl}/payments/${reference}/events`, token) };
      if (plan.phone) await answerWhenPrompted(reference, plan.phone);
      const end = await untilFinal(reference);
      if (!end || !isVoid(end) || end.attemptsLeft === 0 || flow.retriedAfterVoid >= 2) return flow;
      flow.retriedAfterVoid++;
    }
  }

  /** POST /payments, again after UPSTREAM_UNAVAILABLE (same token, while the customer's patience lasts); the attempt given, if any. */
  async function postAsTheElement(flow: Flow, token: string): Promise<string | undefined> {
    const givesUpAt = Date.now() + CUSTOMER_PATIENCE_MS;
    for (;;) {
      const answer = await h.post('/payments', { msisdn: flow.plan.msisdn }, { token });
      flow.posts.push(answer);
      if (answer.status === 202) return answer.body.reference as string;
      if (answer.status !== 503 || answer.body?.error !== 'UPSTREAM_UNAVAILABLE' || Date.now() > givesUpAt) return undefined;
      await sleep(200 + Math.random() * 300);
    }
  }

  /** The attempt's final snapshot as the merchant reads it, or undefined when it is not final within a bound. */
  async function untilFinal(reference: string): Promise<PaymentSnapshot | undefined> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const snapshot = await h.proxy.payments.getAttempt(reference);
      if (snapshot && snapshot.status !== 'PENDING') return snapshot;
      await sleep(50);
    }
    return undefined;
  }

  /** Answers on the phone once the prompt exists upstream; gives up when the proxy settled the attempt as never created. */
  async function answerWhenPrompted(reference: string, answer: 'approve' | 'decline'): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const referenceId = h.sandbox.app.sandbox.paymentsByNo.get(reference);
      if (referenceId) {
        await answerOnPhone(h.sandbox.url, referenceId, answer);
        return;
      }
      const snapshot = await h.proxy.payments.getAttempt(reference);
      if (snapshot && isVoid(snapshot)) return;
      await sleep(50);
    }
  }

  /** Everything on which the proxy (relay, hooks) does not yet agree with the sandbox, one sentence each. */
  async function disagreements(orders: string[]): Promise<string[]> {
    const upstream = await upstreamPayments(h.sandbox.url);
    const byOrder = groupBy(upstream, (p) => orderOf(p.referenceNo));
    const finals = groupBy(
      updates.filter((u) => u.final),
      (u) => u.snapshot.reference,
    );
    const out: string[] = [];
    for (const order of orders) {
      const received = byOrder.get(order) ?? [];
      const attempts = await attemptsOf(order);
      for (const paid of received) {
        if (paid.status === 'PENDING') out.push(`${paid.referenceNo}: still pending upstream`);
        const relayed = attempts.find((a) => a.reference === paid.referenceNo);
        if (relayed?.status !== paid.status) out.push(`${paid.referenceNo}: upstream ${paid.status}, relay ${relayed?.status ?? 'nothing'}`);
        const hooks = finals.get(paid.referenceNo) ?? [];
        // At least once, and every delivery of it the same state change (same idempotency key).
        if (hooks.length === 0 || hooks.some((u) => u.snapshot.status !== paid.status || !new RegExp(`^payment:${paid.referenceNo}(:\\d+)?:${paid.status}$`).test(u.idempotencyKey))) {
          out.push(`${paid.referenceNo}: upstream ${paid.status}, final hooks ${JSON.stringify(hooks.map((u) => u.snapshot.status))}`);
        }
      }
      for (const attempt of attempts) {
        if (!received.some((p) => p.referenceNo === attempt.reference) && !isVoid(attempt)) {
          out.push(`${attempt.reference}: relay ${attempt.status} but the sandbox never received it`);
        }
      }
      const latest = received.at(0);
      const current = await h.proxy.payments.get(order);
      if (latest && current?.status !== latest.status) out.push(`${order}: payments.get ${current?.status} but upstream ${latest.status}`);
    }
    return out;
  }

  it('loses no payment, sends none twice, and every watcher and hook ends on the truth', async () => {
    const started = Date.now();
    const run = Date.now().toString(36);
    const plans = Array.from({ length: PAYMENTS }, (_, i) => planOf(i, run));
    const orders = plans.map((p) => p.order);
    const flows: Flow[] = [];
    await inPool(plans, CONCURRENCY, async (plan, i) => {
      flows[i] = await pay(plan, i);
    });

    // A prompt that stays pending forever and nobody answered (it appeared after the customer gave up)
    // is declined now, so every upstream payment ends; ordinary ones complete by themselves.
    const mine = new Set(orders);
    const leftPending = (await upstreamPayments(h.sandbox.url)).filter(
      (p) => mine.has(orderOf(p.referenceNo)) && p.status === 'PENDING' && p.msisdn === '233260000004',
    );
    for (const p of leftPending) await answerOnPhone(h.sandbox.url, p.referenceId, 'decline');

    expect(await settled(() => disagreements(orders), CONVERGE_MS)).toEqual([]);

    // 0 duplicated upstream (see the file's comment for why this is exactly-once).
    const received = (await upstreamPayments(h.sandbox.url)).filter((p) => mine.has(orderOf(p.referenceNo)));
    const initiations = h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0;
    // A reference is sent again only after it was read as absent upstream (void): the provider refuses a
    // duplicate, so any extra initiation created nothing.
    expect(initiations).toBeGreaterThanOrEqual(received.length);
    // At the token's price, always.
    expect(received.filter((p) => p.amount !== 12.5)).toEqual([]);
    // Not vacuous: nearly every order reached the provider despite the faults.
    expect(received.length).toBeGreaterThan(PAYMENTS * 0.9);
    expect(new Set(received.map((p) => p.referenceNo)).size).toBe(received.length);
    const byOrder = groupBy(received, (p) => orderOf(p.referenceNo));
    for (const order of orders) {
      const sent = (await attemptsOf(order)).filter((a) => !isVoid(a)).map((a) => a.reference);
      const got = (byOrder.get(order) ?? []).map((p: UpstreamPayment) => p.referenceNo);
      expect(got.sort(), order).toEqual(sent.sort());
      expect(got.length, order).toBeLessThanOrEqual(1);
    }

    // The browser saw only a pending payment or "unavailable, try again".
    const answers = flows.flatMap((f) => f.posts.map((p) => `${p.status} ${p.body?.error ?? p.body?.status}`));
    // 503 comes only from a 503 struck before processing whose status read then answers 0404: a few a run
    // at most, and some runs have none, so it is allowed here, not required (money.test.ts covers it).
    const statuses = new Set(answers.map((a) => a.split(' ')[0]));
    expect(statuses.has('202')).toBe(true);
    expect([...statuses].filter((s) => s !== '202' && s !== '503')).toEqual([]);

    // Every SSE watcher ends on the truth: the upstream status, or VOID for an attempt never created.
    const truth = new Map(received.map((p) => [p.referenceNo, p.status as string]));
    // (A watcher that saw VOID, after which the customer retried and the free reference was sent again,
    // rightly ended on VOID: the page opens a new stream for the new send.)
    const streams = flows.flatMap((f) => (f.stream ? [{ ...f.stream, retried: f.retriedAfterVoid > 0 }] : []));
    const ends = await Promise.all(
      streams.map(async ({ reference, stream, retried }) => {
        const ended = await within(stream.ended.then(() => true), 15_000, false);
        if (!ended) stream.close();
        return { reference, ended, retried, last: stream.events.at(-1)?.data?.status as string | undefined };
      }),
    );
    const wrong = ends.filter((e) => !e.ended || (e.last !== (truth.get(e.reference) ?? 'VOID') && !(e.last === 'VOID' && e.retried)));
    expect(wrong).toEqual([]);
    expect(streams.length).toBeGreaterThanOrEqual(80);

    // Hooks: every final report of an attempt is one state change (one idempotency key), never two outcomes.
    const finals = groupBy(updates.filter((u) => u.final), (u) => u.snapshot.reference);
    expect([...finals.values()].filter((list) => new Set(list.map((u) => u.idempotencyKey)).size !== 1)).toEqual([]);
    // No FAILED reported for an attempt the provider completed.
    expect(updates.filter((u) => u.snapshot.status === 'FAILED' && truth.get(u.snapshot.reference) === 'COMPLETED')).toEqual([]);

    const faults = Object.fromEntries([...h.sandbox.app.sandbox.requestCounts].filter(([k]) => k.startsWith('fault.')).sort());
    const tally = Object.fromEntries([...groupBy(answers, (a) => a)].map(([k, v]) => [k, v.length]));
    console.info(
      `chaos: ${PAYMENTS} payments, ${received.length} received upstream, ${initiations} initiations, ${streams.length} watched, ` +
        `${flows.reduce((n, f) => n + f.retriedAfterVoid, 0)} retried after a write-off, ${leftPending.length} declined at the end, POST answers ${JSON.stringify(tally)}, faults ${JSON.stringify(faults)}, ` +
        `${Date.now() - started} ms`,
    );
  }, 120_000);
});

/** Faults the chaos run found, each replayed on purpose so it stays fixed whatever the random draw. */
describe('a refusal answered after the provider processed the initiation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.05 },
      config: { relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 }, timeouts: { connectMs: 500, totalMs: 800 } },
    });
  });
  afterAll(() => h?.close());

  // The sandbox creates the payment, then answers 502/503 ("not processed"). Before the fix the proxy
  // wrote the attempt off and the browser's retry paid again under ORDER-2: two payments for one order.
  it.each(['502', '503'] as const)('%s;after: the attempt is reconciled, never paid twice', async (kind) => {
    const order = `ORDER-after-${kind}-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo: order });
    const scripted = await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind, after: true, method: 'POST', path: '/gateway/v1/payment' }),
    });
    expect(scripted.status).toBe(201);
    const first = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(first.status, first.text).toBe(202);
    expect(first.body).toMatchObject({ reference: `${order}-1`, status: 'PENDING' });
    const stream = await openStream(`${h.baseUrl}/payments/${order}-1/events`, token);
    await stream.ended;
    expect(stream.events.at(-1)!.data.status).toBe('COMPLETED');
    const again = await h.post('/payments', { msisdn: '233240000001' }, { token });
    expect(again.body).toMatchObject({ reference: `${order}-1`, status: 'COMPLETED' });
    const received = (await upstreamPayments(h.sandbox.url)).filter((p) => orderOf(p.referenceNo) === order);
    expect(received.map((p) => [p.referenceNo, p.status])).toEqual([[`${order}-1`, 'COMPLETED']]);
  });
});
