import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutCreateResponse, checkoutSnapshot } from '../../src/protocol/index.js';
import type { CheckoutUpdate } from '../../src/proxy/context.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

describe('checkout routes', () => {
  let h: Harness;
  const updates: CheckoutUpdate[] = [];
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
        hooks: { onCheckoutUpdate: (u) => void updates.push(u) },
      },
    });
  });
  afterAll(() => h.close());

  const initializations = () => h.sandbox.app.sandbox.requestCounts.get('checkout.initialize') ?? 0;
  const payOnHostedPage = (checkoutId: string, msisdn = '233240000001') =>
    fetch(`${h.sandbox.url}/checkout/${checkoutId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `msisdn=${msisdn}`,
      redirect: 'manual',
    });

  it('creates the token’s session from the bound fields: 201 with checkoutId, checkoutUrl, status, expiresAt', async () => {
    const token = await h.mintCheckout({ title: 'Blue shirt', reference: 'CO-create', amount: 30, description: 'One blue shirt' });
    const res = await h.post('/checkouts', {}, { token });
    expect(res.status).toBe(201);
    const body = checkoutCreateResponse.parse(res.body);
    expect(body.status).toBe('pending');
    expect(body.checkoutUrl).toContain(body.checkoutId);
    const session = h.sandbox.app.sandbox.checkouts.get(body.checkoutId)!;
    expect(session).toMatchObject({ title: 'Blue shirt', reference: 'CO-create', amount: 30, description: 'One blue shirt', returnUrl: 'https://shop.example/return' });
  });

  it('is idempotent per token: 20 concurrent POSTs and a later one make one upstream session', async () => {
    const token = await h.mintCheckout();
    const before = initializations();
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.post('/checkouts', {}, { token })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const ids = new Set(answers.map((a) => a.body.checkoutId));
    expect(ids.size).toBe(1);
    expect((await h.post('/checkouts', {}, { token })).body.checkoutId).toBe([...ids][0]);
    expect(initializations() - before).toBe(1);
  });

  it('refuses a token of another scope, a missing token, and any field in the body', async () => {
    const before = initializations();
    for (const token of [await h.mintPayment(), await h.mintOtp()]) {
      const res = await h.post('/checkouts', {}, { token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('TOKEN_INVALID');
    }
    expect((await h.post('/checkouts', {})).status).toBe(401);
    const withAmount = await h.post('/checkouts', { amount: 1 }, { token: await h.mintCheckout() });
    expect(withAmount.status).toBe(400);
    expect(withAmount.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'amount' }] } });
    expect(initializations()).toBe(before);
  });

  it('answers the snapshot to its token, NOT_FOUND to another token’s, TOKEN_INVALID to another scope', async () => {
    const token = await h.mintCheckout({ reference: 'CO-mine' });
    const { checkoutId } = (await h.post('/checkouts', {}, { token })).body;
    const mine = await h.get(`/checkouts/${checkoutId}`, { token });
    expect(mine.status).toBe(200);
    expect(checkoutSnapshot.parse(mine.body)).toMatchObject({ checkoutId, reference: 'CO-mine', status: 'pending', currency: 'GHS' });

    const stranger = await h.mintCheckout({ reference: 'CO-theirs' });
    for (const path of [`/checkouts/${checkoutId}`, `/checkouts/${checkoutId}/events`, '/checkouts/nope', '/checkouts/nope/events']) {
      const res = await h.get(path, { token: stranger });
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    const payment = await h.mintPayment({ referenceNo: 'CO-mine' });
    for (const path of [`/checkouts/${checkoutId}`, `/checkouts/${checkoutId}/events`]) {
      expect((await h.get(path, { token: payment })).body.error).toBe('TOKEN_INVALID');
    }
  });

  it('follows a payment on the hosted page to completed over SSE and in onCheckoutUpdate, once', async () => {
    const token = await h.mintCheckout({ reference: 'CO-paid' });
    const { checkoutId } = (await h.post('/checkouts', {}, { token })).body;
    const stream = await openStream(`${h.baseUrl}/checkouts/${checkoutId}/events`, token);
    await stream.waitFor((e) => e.data.status === 'pending');
    expect((await payOnHostedPage(checkoutId)).status).toBe(303);
    await stream.ended;
    const last = checkoutSnapshot.parse(stream.events.at(-1)!.data);
    expect(last).toMatchObject({ checkoutId, status: 'completed' });
    expect(last.completedAt).not.toBeNull();

    await eventually(() => (updates.some((u) => u.snapshot.checkoutId === checkoutId && u.final) ? true : undefined));
    await new Promise((r) => setTimeout(r, 150));
    const mine = updates.filter((u) => u.snapshot.checkoutId === checkoutId);
    expect(mine.filter((u) => u.snapshot.status === 'completed')).toHaveLength(1);
    expect(mine.at(-1)).toMatchObject({ final: true, snapshot: { status: 'completed' } });
    expect(mine[0]).toMatchObject({ previous: null, snapshot: { status: 'pending' }, final: false });
    expect(await h.proxy.checkouts.get('CO-paid')).toMatchObject({ checkoutId, status: 'completed' });
    expect(await h.proxy.checkouts.getSession(checkoutId)).toMatchObject({ status: 'completed' });
  });

  it('reports a session cancelled on the hosted page', async () => {
    const token = await h.mintCheckout();
    const { checkoutId } = (await h.post('/checkouts', {}, { token })).body;
    await fetch(`${h.sandbox.url}/checkout/${checkoutId}/cancel`, { method: 'POST', redirect: 'manual' });
    const stream = await openStream(`${h.baseUrl}/checkouts/${checkoutId}/events`, token);
    await stream.ended;
    expect(stream.events.at(-1)!.data.status).toBe('cancelled');
  });
});
