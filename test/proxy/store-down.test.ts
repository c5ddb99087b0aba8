/**
 * With the store down, every route answers 503 UPSTREAM_UNAVAILABLE (retryable) in the protocol's error
 * shape, never 500 INTERNAL (finding 14): the payment routes used to answer 500 where the OTP routes
 * answered 503. A real redis-server is stopped under a running proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';

let redis: TestRedis;
let h: Harness;
beforeAll(async () => {
  redis = await startRedis();
  h = await startHarness({ config: { redisUrl: redis.url } });
});
afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

describe('the store down', () => {
  it('answers 503 UPSTREAM_UNAVAILABLE on every route, and says so in the log', async () => {
    const payment = await h.mintPayment();
    const checkout = await h.mintCheckout();
    const otp = await h.mintOtp();
    const pending = await h.post('/payments', { msisdn: '233260000004' }, { token: payment });
    expect(pending.status).toBe(202);
    await redis.stop();

    const answers = await Promise.all([
      h.post('/payments', { msisdn: '233260000004' }, { token: payment }),
      h.get(`/payments/${pending.body.reference}`, { token: payment }),
      h.post('/checkouts', {}, { token: checkout }),
      h.post('/otp/send', { recipient: '0240000001' }, { token: otp }),
      h.post('/otp/verify', { recipient: '0240000001', code: '123456' }, { token: otp }),
      h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment() }),
    ]);
    for (const res of answers) {
      expect(res.status, res.text).toBe(503);
      expect(res.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', details: { retryable: true } });
    }
    expect(h.logs.entries().some((e) => e.msg === 'unexpected error in the merchant proxy')).toBe(false);
  }, 30_000);
});
