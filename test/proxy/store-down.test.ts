/**
 * With the store down, every route that reads or writes it answers 503 UPSTREAM_UNAVAILABLE (retryable) in
 * the protocol's error shape, never 500 INTERNAL (finding 14): the payment routes used to answer 500 where
 * the OTP routes answered 503. What needs no store (minting a token, liveness) still answers, as
 * docs/operations.md says. A real redis-server is stopped under a running proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';

const SERVER_KEY = 'store-down-test-server-key-0123456789-abcdef';
const asServer = { headers: { authorization: `Bearer ${SERVER_KEY}` } };

let redis: TestRedis;
let h: Harness;
beforeAll(async () => {
  redis = await startRedis();
  h = await startHarness({ config: { redisUrl: redis.url, serverKey: SERVER_KEY } });
});
afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

describe('the store down', () => {
  it('answers 503 UPSTREAM_UNAVAILABLE on every route that needs it, and says so in the log; minting a token and /health still answer', async () => {
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

    // What needs no store still answers (docs/operations.md says which): minting a token is signing it, and
    // liveness never fails on the store; readiness and the server API's reads of orders do.
    const minted = await h.post('/server/tokens/payment', { amount: 12.5, referenceNo: 'STORE-DOWN-1', narration: 'Order STORE-DOWN-1' }, asServer);
    expect(minted.status, minted.text).toBe(201);
    expect((await h.get('/health')).status).toBe(200);
    expect((await h.get('/ready')).status).toBe(503);
    const read = await h.get(`/server/orders/${pending.body.orderReference}/payment`, asServer);
    expect(read.status, read.text).toBe(503);
    expect(read.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE' });
    const webhooks = await h.get('/server/webhooks', asServer);
    expect(webhooks.status, webhooks.text).toBe(503);
  }, 30_000);
});
