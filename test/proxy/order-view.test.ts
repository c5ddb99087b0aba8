/**
 * GET /order: where a payment token's order stands, so a page (a second tab, a reload, a spent order) shows
 * the truth from its first paint; and what the customer will approve, before Pay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderView } from '../../src/protocol/index.js';
import { startHarness, type Harness } from './helpers.js';

describe('GET /order', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
        payments: { chargePercent: 1, promptLifetimeSeconds: { MTN: 120 } },
      },
    });
  });
  afterAll(() => h.close());
  const ref = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

  it('answers a new order as open, with every try left and the charge to expect', async () => {
    const res = await h.get('/order', { token: await h.mintPayment({ referenceNo: ref('NEW'), amount: 47.5 }) });
    expect(res.status).toBe(200);
    expect(orderView.parse(res.body)).toMatchObject({ payment: null, attemptsLeft: 3, next: 'open', otherMethod: null, chargeEstimate: { charge: 0.48, totalAmount: 47.98 } });
  });

  it('shows a second tab the live payment: its number (masked), its age and until when the prompt can be approved', async () => {
    const order = ref('TABS');
    const tabA = await h.mintPayment({ referenceNo: order });
    await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: tabA });
    const paid = await h.post('/payments', { msisdn: '0240000001' }, { token: tabA });
    expect(paid.status).toBe(202);
    const view = await h.get('/order', { token: await h.mintPayment({ referenceNo: order }) });
    expect(view.body).toMatchObject({ next: 'payment', attemptsLeft: 2, payment: { reference: `${order}-1`, msisdn: '+233 24 *** **01' } });
    const { sentAt, promptExpiresAt } = view.body.payment as { sentAt: string; promptExpiresAt: string };
    expect(Date.parse(promptExpiresAt) - Date.parse(sentAt)).toBe(120_000);
  });

  it('says a spent order has no try left, and a checkout holding the order', async () => {
    const spent = ref('SPENT');
    const token = await h.mintPayment({ referenceNo: spent, maxAttempts: 1 });
    expect((await h.post('/payments', { msisdn: '0240000002' }, { token })).body.error).toBe('INSUFFICIENT_FUNDS');
    expect((await h.get('/order', { token })).body).toMatchObject({ next: 'exhausted', attemptsLeft: 0, payment: { status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' } });

    const held = ref('HELD');
    expect((await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: held }) })).status).toBe(201);
    expect((await h.get('/order', { token: await h.mintPayment({ referenceNo: held }) })).body).toMatchObject({ next: 'other-method', otherMethod: { method: 'checkout', status: 'pending' }, payment: null });
  });

  it('refuses a token of the order at another price, and a token of another scope', async () => {
    const order = ref('PRICE');
    await h.post('/payments', { msisdn: '0260000004' }, { token: await h.mintPayment({ referenceNo: order }) });
    const dearer = await h.get('/order', { token: await h.mintPayment({ referenceNo: order, amount: 99 }) });
    expect(dearer.status).toBe(409);
    expect(dearer.body).toMatchObject({ error: 'ORDER_CHANGED', details: { changed: ['amount'] } });
    expect((await h.get('/order', { token: await h.mintCheckout({ reference: order }) })).status).toBe(401);
  });

  it('estimates the charge in the account lookup too, and leaves it out where nothing is configured', async () => {
    const lookup = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment({ referenceNo: ref('LOOK'), amount: 12.5 }) });
    expect(lookup.body).toMatchObject({ network: 'MTN', chargeEstimate: { charge: 0.13, totalAmount: 12.63 } });
    const plain = await startHarness({ sandbox: { timeScale: 0.02 } });
    try {
      const token = await plain.mintPayment({ referenceNo: ref('PLAIN') });
      expect((await plain.get('/order', { token })).body.chargeEstimate).toBeNull();
      expect((await plain.post('/accounts/lookup', { msisdn: '0240000001' }, { token })).body).not.toHaveProperty('chargeEstimate');
    } finally {
      await plain.close();
    }
  });
});
