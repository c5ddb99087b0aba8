/**
 * The reconciler's status reads failing never refuse a customer's payment (issue 22): within the payment
 * gateway, background reads have a circuit of their own. Before, they shared the interface's one breaker, and
 * a flash sale's backlog of timed-out reads kept it open while the provider still took payments.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createProviderClient } from '../../src/provider/client.js';
import { CheckoutUpstream } from '../../src/proxy/upstream/checkout-upstream.js';
import { PaymentUpstream } from '../../src/proxy/upstream/payment-upstream.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Status reads by referenceId (what the reconciler reads a sent payment by) answer 503; everything else goes through. */
const READ_BY_ID = /\/payment\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/status$/;
const statusReadsDown: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  if (method === 'GET' && READ_BY_ID.test(url)) {
    return new Response(JSON.stringify({ statusCode: '0503', message: 'Service Unavailable' }), { status: 503, headers: { 'content-type': 'application/json' } });
  }
  return fetch(input, init);
};

describe('background reads and customers’ payments', () => {
  it('a status-read outage opens the background circuit, and POST /payments still answers 202 while initiations succeed', async () => {
    h = await startHarness({
      config: {
        fetch: statusReadsDown,
        circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 60_000, halfOpenAfterMs: 60_000 },
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
      },
    });
    // A payment that stays pending: the reconciler reads it by its referenceId, and every read fails.
    const first = await h.post('/payments', { msisdn: '0260000004' }, { token: await h.mintPayment({ referenceNo: 'SALE-1' }) });
    expect(first.status, first.text).toBe(202);
    await eventually(async () => ((await h!.get('/health')).body.upstream.circuits.payment === 'open' ? true : undefined));

    // Another customer pays meanwhile: the probe by referenceNo and the initiation both go through.
    const second = await h.post('/payments', { msisdn: '0240000005' }, { token: await h.mintPayment({ referenceNo: 'SALE-2' }) });
    expect(second.status, second.text).toBe(202);
    expect((await h.get('/health')).body.upstream.circuits.payment).toBe('open');
  });
});

describe('provider callbacks for payments already read final, during a status-read outage', () => {
  it('read under the background circuit, once per try however often they come: the next customer still pays', async () => {
    let down = false;
    const readsById = new Map<string, number>();
    const switchable: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      if (down && method === 'GET' && READ_BY_ID.test(url)) readsById.set(url, (readsById.get(url) ?? 0) + 1);
      return down ? statusReadsDown(input, init) : fetch(input, init);
    };
    h = await startHarness({
      config: {
        fetch: switchable,
        circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 60_000, halfOpenAfterMs: 60_000 },
        relay: { minIntervalMs: 20, maxIntervalMs: 60_000, deadlineMs: 60_000 },
      },
    });
    // Eight customers' payments end CANCELLED (declined on the phone), read so by the reconciler.
    const callbackIds: string[] = [];
    for (let i = 1; i <= 8; i++) {
      const referenceNo = `LATE-CB-${i}`;
      const paid = await h.post('/payments', { msisdn: '0200000003' }, { token: await h.mintPayment({ referenceNo }) });
      expect(paid.status, paid.text).toBe(202);
      await eventually(async () => ((await h!.proxy.payments.get(referenceNo))?.status === 'CANCELLED' ? true : undefined), 15_000);
      callbackIds.push([...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === `${referenceNo}-1`)!.callbackId);
    }
    // Status reads fail; the provider calls back for each of them, and replays the first callback a hundred times.
    down = true;
    for (const id of callbackIds) expect((await h.post(`/callbacks/payments/${id}`, {})).status).toBe(204);
    for (let i = 0; i < 100; i++) await h.post(`/callbacks/payments/${callbackIds[0]}`, {});
    // Each try is read twice at most (the callback's read and the reconciler's pass it wakes; fewer once the
    // background circuit opens), none retried by the client, and a hundred replays of one callback add nothing.
    expect(Math.max(...readsById.values())).toBeLessThanOrEqual(2);
    // The customers' circuit is untouched: the next customer's read of the provider and initiation go through.
    const next = await h.post('/payments', { msisdn: '0240000005' }, { token: await h.mintPayment({ referenceNo: 'LATE-CB-NEXT' }) });
    expect(next.status, next.text).toBe(202);
  }, 60_000);
});

describe('provider client circuits', () => {
  it('counts and refuses a background read under its interface’s background circuit only', async () => {
    let calls = 0;
    const client = createProviderClient({
      messaging: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', apiSecret: 's' },
      payment: { baseUrl: 'http://127.0.0.1:9/gateway', username: 'u', password: 'p' },
      checkout: { apiKey: 'c' },
      retry: { maxRetries: 0 },
      circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 60_000, halfOpenAfterMs: 60_000 },
      fetch: async () => {
        calls++;
        return new Response('{}', { status: 503 });
      },
    });
    for (let i = 0; i < 3; i++) await expect(client.payments.status('R1', { background: true })).rejects.toMatchObject({ reason: 'http' });
    expect(client.circuitState('payment', 'background')).toBe('open');
    expect(client.circuitState('payment', 'foreground')).toBe('closed');
    expect(client.circuitState('payment')).toBe('open');
    await expect(client.payments.status('R1', { background: true })).rejects.toMatchObject({ reason: 'circuit-open' });
    expect(calls).toBe(3);
    // The same read for a customer goes through (and fails upstream, not at the breaker).
    await expect(client.payments.status('R1')).rejects.toMatchObject({ reason: 'http' });
    expect(calls).toBe(4);
    await client.close();
  });
});

describe('the reconciler’s reads', () => {
  it('are sent once, where the same read for someone waiting is retried: the poller’s schedule is their retry', async () => {
    const calls: string[] = [];
    const client = createProviderClient({
      messaging: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', apiSecret: 's' },
      payment: { baseUrl: 'http://127.0.0.1:9/gateway', username: 'u', password: 'p' },
      checkout: { baseUrl: 'http://127.0.0.1:9', apiKey: 'c' },
      retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 },
      circuitBreaker: false,
      fetch: async (input) => {
        calls.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
        return new Response(JSON.stringify({ statusCode: '0503', message: 'Service Unavailable' }), { status: 503, headers: { 'content-type': 'application/json' } });
      },
    });
    const logger = pino({ level: 'silent' });
    const payments = new PaymentUpstream(client, logger, 'referenceId');
    const checkouts = new CheckoutUpstream(client, logger, true, () => true);
    try {
      const counted = async (read: () => Promise<{ kind: string }>) => {
        calls.length = 0;
        expect((await read()).kind).toBe('error');
        return calls.length;
      };
      expect(await counted(() => payments.read('O-1', 'R1', true))).toBe(1);
      expect(await counted(() => checkouts.read('CO1', true))).toBe(1);
      expect(await counted(() => checkouts.list('O', true))).toBe(1);
      // Someone waits on these (a reload, "Check again", the server API): the client's retries still apply.
      expect(await counted(() => payments.read('O-1', 'R1'))).toBe(3);
      expect(await counted(() => checkouts.read('CO1'))).toBe(3);
    } finally {
      await client.close();
    }
  });
});
