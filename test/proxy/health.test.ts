/**
 * GET /health is liveness: 200 whenever the process answers, reporting each provider interface's circuit
 * and the store. One breaker per interface: a checkout-status outage at the sandbox opens the checkout
 * circuit only, and POST /payments and OTP sends go on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { healthResponse } from '../../src/protocol/index.js';
import { startHarness, startRedis, type Harness, type HarnessOptions } from './helpers.js';
import { withCheckoutCircuitOpen } from './checkout-outage.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});
async function start(options: HarnessOptions = {}) {
  h = await startHarness(options);
  return h;
}

const CLOSED = { messaging: 'closed', payment: 'closed', checkout: 'closed' } as const;

describe('GET /health', () => {
  it('reports each interface’s circuit and the memory store', async () => {
    await start();
    const res = await h.get('/health');
    expect(res.status).toBe(200);
    expect(healthResponse.parse(res.body)).toEqual({ ok: true, upstream: { circuits: CLOSED, store: 'memory', storeOk: true } });
  });

  it('reports a Redis store, and storeOk false once Redis is gone, still answering 200 (liveness: a restart brings no Redis back)', async () => {
    const redis = await startRedis();
    try {
      await start({ config: { redisUrl: redis.url } });
      const up = await h.get('/health');
      expect(up.body).toEqual({ ok: true, upstream: { circuits: CLOSED, store: 'redis', storeOk: true } });
      await redis.stop();
      const down = await h.get('/health');
      expect(down.status).toBe(200);
      expect(down.body).toEqual({ ok: true, upstream: { circuits: CLOSED, store: 'redis', storeOk: false } });
    } finally {
      await redis.stop();
    }
  });

  it('keeps one circuit per interface: checkout status reads failing open the checkout circuit only; payments and OTP go on', async () => {
    h = await withCheckoutCircuitOpen();
    expect((await h.get('/health')).body.upstream.circuits).toEqual({ messaging: 'closed', payment: 'closed', checkout: 'open' });

    const paid = await h.post('/payments', { msisdn: '0240000001' }, { token: await h.mintPayment() });
    expect(paid.status, paid.text).toBe(202);
    const sent = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() });
    expect(sent.status, sent.text).toBe(200);
    expect((await h.get('/health')).body.upstream.circuits).toEqual({ messaging: 'closed', payment: 'closed', checkout: 'open' });
  });
});
