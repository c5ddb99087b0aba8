/**
 * GET /ready, readiness: the store and each provider interface, checked by a cheap authenticated read that
 * is shared and kept for a while (probes cannot flood the provider); 503 with a sentence per problem.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readinessResponse } from '../../src/protocol/index.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { freePort, sandboxProvider, startHarness, startRedis, type Harness, type HarnessOptions } from './helpers.js';
import { withCheckoutCircuitOpen } from './checkout-outage.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});
async function start(options: HarnessOptions = {}) {
  h = await startHarness(options);
  return h;
}

/** How many times the sandbox was asked each readiness read. */
const reads = () => {
  const counts = h.sandbox.app.sandbox.requestCounts;
  return { balance: counts.get('account.balance') ?? 0, payment: counts.get('payment.status') ?? 0, checkout: counts.get('checkout.status') ?? 0 };
};

describe('GET /ready', () => {
  it('is ready when the store answers and each interface answers with our credentials; probes share one check', async () => {
    await start();
    const res = await h.get(READY_PATH);
    expect(res.status, res.text).toBe(200);
    const answer = readinessResponse.parse(res.body);
    expect(answer).toMatchObject({
      ready: true,
      reasons: [],
      checks: {
        store: { kind: 'memory', ok: true, writable: true, needsDurability: false },
        messaging: { ok: true, circuit: 'closed' },
        payment: { ok: true, circuit: 'closed' },
        checkout: { ok: true, circuit: 'closed' },
      },
    });
    expect(answer.checks.messaging.checkedAt).not.toBeNull();
    expect(reads()).toEqual({ balance: 1, payment: 1, checkout: 1 });

    // A crowd of probes, at once and one after another: the provider was asked once per interface.
    const crowd = await Promise.all(Array.from({ length: 20 }, () => h.get(READY_PATH)));
    for (let i = 0; i < 5; i++) crowd.push(await h.get(READY_PATH));
    expect(crowd.map((r) => r.status)).toEqual(crowd.map(() => 200));
    expect(reads()).toEqual({ balance: 1, payment: 1, checkout: 1 });
  });

  it('is not ready, naming each interface, when the provider cannot be reached; /health still answers 200', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await start({ provider: (sandbox) => ({ ...sandboxProvider(sandbox), messagingBaseUrl: closed, paymentBaseUrl: `${closed}/gateway` }) });
    const res = await h.get(READY_PATH);
    expect(res.status).toBe(503);
    const answer = readinessResponse.parse(res.body);
    expect(answer.ready).toBe(false);
    expect(answer.checks.store).toMatchObject({ kind: 'memory', ok: true });
    expect(answer.reasons).toEqual([
      'the messaging interface: the provider could not be reached (ECONNREFUSED): check its base URL and the network',
      'the payment gateway: the provider could not be reached (ECONNREFUSED): check its base URL and the network',
      'the checkout interface: the provider could not be reached (ECONNREFUSED): check its base URL and the network',
    ]);
    for (const name of ['messaging', 'payment', 'checkout'] as const) expect(answer.checks[name].ok).toBe(false);
    expect((await h.get('/health')).status).toBe(200);
    expect(h.logs.entries().filter((l) => l.msg === 'readiness: provider check failed')).toHaveLength(3);
  });

  it('names the credentials the provider refused', async () => {
    await start({
      provider: (sandbox) => ({
        ...sandboxProvider(sandbox),
        messaging: { apiKey: 'wrong', apiSecret: 'wrong' },
        checkout: { apiKey: 'wrong' },
      }),
    });
    const res = await h.get(READY_PATH);
    expect(res.status).toBe(503);
    expect(res.body.reasons).toEqual([
      'the messaging interface: the provider refused our credentials (HTTP 401): check MESSAGING_API_KEY and MESSAGING_API_SECRET (provider.messaging)',
      'the checkout interface: the provider refused our credentials (HTTP 401): check CHECKOUT_API_KEY (provider.checkout)',
    ]);
    expect(res.body.checks.payment.ok).toBe(true);
  });

  it('is not ready while the store does not answer', async () => {
    const redis = await startRedis();
    try {
      await start({ config: { redisUrl: redis.url } });
      expect((await h.get(READY_PATH)).status).toBe(200);
      await redis.stop();
      const res = await h.get(READY_PATH);
      expect(res.status).toBe(503);
      expect(res.body.checks.store).toMatchObject({ kind: 'redis', ok: false, writable: false });
      expect(res.body.reasons).toEqual(['the redis store does not answer (check REDIS_URL and the Redis server)']);
    } finally {
      await redis.stop();
    }
  });

  it('is not ready while an interface’s circuit of customers’ calls is open, and does not call it', async () => {
    // The messaging interface fails every call: three customers' OTPs open its circuit.
    const messagingDown: typeof fetch = async (input, init) =>
      new URL(String(input instanceof Request ? input.url : input)).pathname.startsWith('/v1/external/')
        ? new Response(JSON.stringify({ message: 'Service Unavailable' }), { status: 503, headers: { 'content-type': 'application/json' } })
        : fetch(input, init);
    await start({ config: { fetch: messagingDown, circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 60_000, halfOpenAfterMs: 60_000 } } });
    for (const recipient of ['024 000 0001', '024 000 0002', '024 000 0003']) {
      expect((await h.post('/otp/send', { recipient }, { token: await h.mintOtp() })).status).toBe(503);
    }
    const before = reads().balance;
    const res = await h.get(READY_PATH);
    expect(res.status).toBe(503);
    expect(res.body.reasons).toEqual([
      'the messaging interface: its circuit is open (calls to it kept failing; they are refused until a trial call succeeds)',
    ]);
    expect(res.body.checks).toMatchObject({ messaging: { ok: false, circuit: 'open', checkedAt: null }, payment: { ok: true }, checkout: { ok: true } });
    expect(reads().balance).toBe(before);
  });

  // An open background circuit (the reconciler's reads failing: a backlog of status reads under a flash sale)
  // made /ready 503, on every instance at once, while customers' calls, on the other circuit, went through.
  it('stays ready while only the reconciler’s circuit is open, which /health reports', async () => {
    h = await withCheckoutCircuitOpen({ probesPass: true });
    expect((await h.get('/health')).body.upstream.circuits.checkout).toBe('open');
    const res = await h.get(READY_PATH);
    expect(res.status, res.text).toBe(200);
    expect(res.body.checks.checkout).toMatchObject({ ok: true, circuit: 'closed' });
  });
});
