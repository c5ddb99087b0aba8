import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentSnapshot } from '../../src/protocol/index.js';
import { startHarness, type Harness } from './helpers.js';
import { openStream } from './sse-client.js';

describe('payment routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { timeScale: 0.02 }, config: { relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 } } });
  });
  afterAll(() => h.close());

  describe('POST /payments', () => {
    it('answers 202 with the snapshot of attempt 1', async () => {
      const token = await h.mintPayment({ referenceNo: 'ORDER-route-1', amount: 12.5 });
      const res = await h.post('/payments', { msisdn: '+233 24 000 0001' }, { token });
      expect(res.status).toBe(202);
      const snapshot = paymentSnapshot.parse(res.body);
      expect(snapshot).toMatchObject({ reference: 'ORDER-route-1-1', orderReference: 'ORDER-route-1', status: 'PENDING', amount: 12.5, currency: 'GHS', attempt: 1, attemptsLeft: 2, completedAt: null });
      expect(snapshot.totalAmount).toBe(snapshot.amount + snapshot.charge);
    });

    it('refuses a missing token, and a token of another scope', async () => {
      const before = h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0;
      expect((await h.post('/payments', { msisdn: '233240000001' })).body.error).toBe('TOKEN_INVALID');
      for (const token of [await h.mintCheckout(), await h.mintOtp()]) {
        const res = await h.post('/payments', { msisdn: '233240000001' }, { token });
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('TOKEN_INVALID');
      }
      expect(h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0).toBe(before);
    });

    it('refuses unknown fields (amount from the browser included) and a missing number', async () => {
      const token = await h.mintPayment();
      const withAmount = await h.post('/payments', { msisdn: '233240000001', amount: 0.01 }, { token });
      expect(withAmount.status).toBe(400);
      expect(withAmount.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'amount' }] } });
      const empty = await h.post('/payments', {}, { token });
      expect(empty.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'msisdn' }] } });
    });

    it('refuses an invalid number and a number of another country before anything is sent', async () => {
      const token = await h.mintPayment();
      const before = h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0;
      for (const msisdn of ['12', '+2348031234567']) {
        const res = await h.post('/payments', { msisdn }, { token });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('INVALID_PHONE_NUMBER');
      }
      expect(h.sandbox.app.sandbox.requestCounts.get('payment.initiate') ?? 0).toBe(before);
    });

    it('refuses a number other than the one bound in the token', async () => {
      const token = await h.mintPayment({ msisdn: '0240000001' });
      const other = await h.post('/payments', { msisdn: '233240000002' }, { token });
      expect(other.status).toBe(400);
      expect(other.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'msisdn' }] } });
      expect((await h.post('/payments', { msisdn: '024 000 0001' }, { token })).status).toBe(202);
    });

    it('answers UPSTREAM_ERROR, with no detail, when the provider refuses our credentials', async () => {
      const bad = await startHarness({
        provider: (sandbox) => ({
          env: 'sandbox',
          messagingBaseUrl: sandbox.url,
          paymentBaseUrl: sandbox.paymentUrl,
          messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
          payment: { username: 'test-user', password: 'wrong-password' },
          checkout: { apiKey: 'test-checkout-key' },
        }),
      });
      try {
        const token = await bad.mintPayment();
        const res = await bad.post('/payments', { msisdn: '233240000001' }, { token });
        expect(res.status).toBe(502);
        expect(res.body).toEqual({ error: 'UPSTREAM_ERROR', message: expect.any(String), details: {} });
        // Not consumed: the attempt never reached the provider's books.
        expect(bad.sandbox.app.sandbox.payments.size).toBe(0);
      } finally {
        await bad.close();
      }
    });
  });

  describe('GET /payments/:reference', () => {
    it('answers the snapshot to a token of the same order', async () => {
      const token = await h.mintPayment({ referenceNo: 'ORDER-get-1' });
      await h.post('/payments', { msisdn: '233240000001' }, { token });
      const res = await h.get('/payments/ORDER-get-1-1', { token });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(paymentSnapshot.parse(res.body)).toMatchObject({ reference: 'ORDER-get-1-1', orderReference: 'ORDER-get-1' });
      // A token minted again for the same order (a page reload) may read it too.
      const reloaded = await h.mintPayment({ referenceNo: 'ORDER-get-1' });
      expect((await h.get('/payments/ORDER-get-1-1', { token: reloaded })).status).toBe(200);
    });

    it('answers NOT_FOUND for another order’s payment and for an unknown reference', async () => {
      const owner = await h.mintPayment({ referenceNo: 'ORDER-owned' });
      await h.post('/payments', { msisdn: '233240000001' }, { token: owner });
      const stranger = await h.mintPayment({ referenceNo: 'ORDER-stranger' });
      for (const path of ['/payments/ORDER-owned-1', '/payments/ORDER-owned-1/events', '/payments/ORDER-nothing-1', '/payments/ORDER-nothing-1/events']) {
        const res = await h.get(path, { token: stranger });
        expect(res.status, path).toBe(404);
        expect(res.body.error).toBe('NOT_FOUND');
      }
    });

    it('refuses a token of another scope on the snapshot and the events route', async () => {
      const token = await h.mintPayment({ referenceNo: 'ORDER-scope' });
      await h.post('/payments', { msisdn: '233240000001' }, { token });
      const checkout = await h.mintCheckout({ reference: 'ORDER-scope' });
      for (const path of ['/payments/ORDER-scope-1', '/payments/ORDER-scope-1/events']) {
        const res = await h.get(path, { token: checkout });
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('TOKEN_INVALID');
        expect((await h.get(path)).status).toBe(401);
      }
    });
  });

  describe('proxy.payments.get (merchant side)', () => {
    it('reads by order reference (payments.get) and by attempt reference (payments.getAttempt), never one as the other', async () => {
      const token = await h.mintPayment({ referenceNo: 'ORDER-merchant', maxAttempts: 2 });
      const first = await h.post('/payments', { msisdn: '233240000404' }, { token });
      const stream = await openStream(`${h.baseUrl}/payments/${first.body.reference}/events`, token);
      await stream.ended;
      await h.post('/payments', { msisdn: '233240000001' }, { token });
      expect(await h.proxy.payments.get('ORDER-merchant')).toMatchObject({ reference: 'ORDER-merchant-2', attempt: 2 });
      expect(await h.proxy.payments.getAttempt('ORDER-merchant-1')).toMatchObject({ reference: 'ORDER-merchant-1', status: 'FAILED' });
      expect(await h.proxy.payments.get('ORDER-never')).toBeNull();
      // An attempt reference is not an order reference, nor the reverse (finding 5: 'INV-7-1' read as INV-7's attempt).
      expect(await h.proxy.payments.get('ORDER-merchant-1')).toBeNull();
      expect(await h.proxy.payments.getAttempt('ORDER-merchant')).toBeNull();
    });
  });
});
