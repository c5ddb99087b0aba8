import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSession, checkoutStatusResult } from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import { CHECKOUT_AUTH, eventually, send, sleep, start, type Reply } from './gateway-fixtures.js';

const UNAUTHORIZED = { error: 'UNAUTHORIZED', message: 'Missing or invalid API key.', details: {} };

let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await start();
});
afterAll(() => sandbox.close());

function sessionBody(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Order 42',
    reference: 'ORDER-42',
    amount: 12.5,
    description: 'Two loaves of bread',
    returnUrl: 'https://shop.example/done?order=42',
    ...overrides,
  };
}

async function initialize(on: StartedSandbox, overrides: Record<string, unknown> = {}): Promise<Reply> {
  return send(on, 'POST', '/v1/checkout/initialize', { body: sessionBody(overrides), headers: { authorization: CHECKOUT_AUTH } });
}

async function status(on: StartedSandbox, checkoutId: string): Promise<Reply> {
  return send(on, 'GET', `/v1/checkout/${encodeURIComponent(checkoutId)}/status`, { headers: { authorization: CHECKOUT_AUTH } });
}

/** Posts a hosted-page form as a browser does. */
async function postForm(on: StartedSandbox, path: string, fields: Record<string, string> = {}): Promise<Response> {
  return fetch(`${on.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

function finalStatusOf(on: StartedSandbox, checkoutId: string) {
  return eventually(async () => {
    const res = await status(on, checkoutId);
    return res.body.status === 'processing' ? undefined : res.body;
  });
}

describe('POST /v1/checkout/initialize', () => {
  it('answers 201 with the bare session: active, hosted page URL, expiry 30 scaled minutes later', async () => {
    const res = await initialize(sandbox);
    expect(res.status).toBe(201);
    const session = checkoutSession.parse(res.body);
    expect(session).toMatchObject({ ...sessionBody(), status: 'active' });
    expect(session.checkoutUrl).toBe(`${sandbox.url}/checkout/${session.checkoutId}`);
    expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(30 * 60_000 * 0.01);
    expect(sandbox.app.sandbox.checkouts.has(session.checkoutId)).toBe(true);
  });

  it('builds checkoutUrl on options.publicUrl when set', async () => {
    const other = await start({ publicUrl: 'https://sandbox.example/' });
    try {
      const res = await initialize(other);
      expect(res.body.checkoutUrl).toBe(`https://sandbox.example/checkout/${res.body.checkoutId}`);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['no key', {}],
    ['a wrong key', { authorization: 'Bearer wrong' }],
    ['the gateway Basic credentials', { authorization: `Basic ${Buffer.from('test-user:test-password').toString('base64')}` }],
  ])('answers 401 UNAUTHORIZED with %s', async (_label, headers) => {
    const init = await send(sandbox, 'POST', '/v1/checkout/initialize', { body: sessionBody(), headers });
    expect(init.status).toBe(401);
    expect(init.body).toEqual(UNAUTHORIZED);
    const read = await send(sandbox, 'GET', '/v1/checkout/whatever/status', { headers });
    expect(read.status).toBe(401);
    expect(read.body).toEqual(UNAUTHORIZED);
  });

  it.each([
    [0, 'Amount must be greater than 0'],
    [-3, 'Amount must be greater than 0'],
    [0.001, 'Amount must be at least 0.01'],
    [1.005, 'Amount must have at most 2 decimal places'],
  ])('refuses amount %s with 400 INVALID_AMOUNT', async (amount, message) => {
    const res = await initialize(sandbox, { amount });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'INVALID_AMOUNT', message, details: { minimum: 0.01 } });
  });

  it('accepts the minimum amount 0.01', async () => {
    const res = await initialize(sandbox, { amount: 0.01 });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(0.01);
  });

  it('refuses other problems with 400 VALIDATION_ERROR listing the fields', async () => {
    const res = await initialize(sandbox, { title: undefined, returnUrl: 'javascript:alert(1)', extra: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    const paths = (res.body.details.fields as { path: string }[]).map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['title', 'returnUrl']));
  });
});

describe('GET /v1/checkout/:checkoutId/status', () => {
  it('answers pending in GHS before the hosted page is used', async () => {
    const { body: session } = await initialize(sandbox, { amount: 99.99 });
    const res = await status(sandbox, session.checkoutId);
    expect(res.status).toBe(200);
    const parsed = checkoutStatusResult.parse(res.body);
    expect(parsed).toEqual({
      checkoutId: session.checkoutId,
      status: 'pending',
      amount: 99.99,
      currency: 'GHS',
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
    });
  });

  it('answers 404 NOT_FOUND for an unknown session', async () => {
    const res = await status(sandbox, 'nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Checkout session not found', details: {} });
  });

  it('counts initialize and status requests', async () => {
    const counts = sandbox.app.sandbox.requestCounts;
    const [i, s] = [counts.get('checkout.initialize') ?? 0, counts.get('checkout.status') ?? 0];
    await initialize(sandbox);
    await status(sandbox, 'x');
    expect([counts.get('checkout.initialize'), counts.get('checkout.status')]).toEqual([i + 1, s + 1]);
  });
});

describe('hosted checkout page', () => {
  it('shows title, description, amount, the number field with the test numbers, Pay and Cancel, all escaped', async () => {
    const { body: session } = await initialize(sandbox, { title: 'Tea & <b>cakes</b>', description: '"Fresh" daily' });
    const res = await fetch(session.checkoutUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const page = await res.text();
    expect(page).toContain('Tea &amp; &lt;b&gt;cakes&lt;/b&gt;');
    expect(page).not.toContain('<b>cakes</b>');
    expect(page).toContain('&quot;Fresh&quot; daily');
    expect(page).toContain('GHS 12.50');
    expect(page).toMatch(/<input id="msisdn" name="msisdn"[^>]*value="024 000 0001"/);
    expect(page, 'no pattern that refuses what people type').not.toMatch(/<input id="msisdn"[^>]*pattern=/);
    for (const n of ['024 000 0001', '024 000 0002', '020 000 0003', '026 000 0004']) expect(page).toContain(n);
    expect(page).toMatch(/<label for="msisdn">/);
    expect(page).toMatch(/<button type="submit"[^>]*>Pay GHS 12.50<\/button>/);
    expect(page).toMatch(/<button type="submit"[^>]*>Cancel<\/button>/);
  });

  it.each([
    ['233240000001', 'completed'],
    ['233240000002', 'failed'],
    ['233200000003', 'cancelled'],
    ['233551234567', 'completed'],
  ])('Pay with %s: processing, then %s, then a 303 to returnUrl with checkoutId and status', async (msisdn, outcome) => {
    const { body: session } = await initialize(sandbox);
    const pay = await postForm(sandbox, `/checkout/${session.checkoutId}/pay`, { msisdn });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`/checkout/${session.checkoutId}`);
    // Settles 20 ms later; a slow machine may already see the outcome.
    expect(['processing', outcome]).toContain((await status(sandbox, session.checkoutId)).body.status);

    const final = await finalStatusOf(sandbox, session.checkoutId);
    expect(final.status).toBe(outcome);
    expect(Date.parse(final.completedAt)).not.toBeNaN();
    if (outcome === 'completed') {
      expect(final.paymentMethod).toBe('mobile_money');
      expect(final.transactionId).toEqual(expect.any(String));
    } else {
      expect(final).not.toHaveProperty('paymentMethod');
      expect(final).not.toHaveProperty('transactionId');
    }

    const page = await fetch(session.checkoutUrl, { redirect: 'manual' });
    expect(page.status).toBe(303);
    const target = new URL(page.headers.get('location')!);
    expect(`${target.origin}${target.pathname}`).toBe('https://shop.example/done');
    expect(Object.fromEntries(target.searchParams)).toEqual({ order: '42', checkoutId: session.checkoutId, status: outcome });
  });

  it.each(['024 000 0001', '0240000001', '+233240000001', '+233 24 000 0001', '00233 24-000-0001', '(024) 000.0001'])(
    'takes the number as people type it, as the elements do: %s pays as 233240000001',
    async (typed) => {
      const { body: session } = await initialize(sandbox);
      const pay = await postForm(sandbox, `/checkout/${session.checkoutId}/pay`, { msisdn: typed });
      expect(pay.status).toBe(303);
      const final = await finalStatusOf(sandbox, session.checkoutId);
      expect(final.status).toBe('completed');
      expect(sandbox.app.sandbox.checkouts.get(session.checkoutId)!.msisdn).toBe('233240000001');
    },
  );

  it('shows Processing… and reads itself every second (no meta refresh), promising no prompt it does not send', async () => {
    const { body: session } = await initialize(sandbox);
    await postForm(sandbox, `/checkout/${session.checkoutId}/pay`, { msisdn: '233260000004' });
    const res = await fetch(session.checkoutUrl, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Processing…');
    expect(page).not.toContain('http-equiv="refresh"');
    expect(page).toContain('setTimeout(read, 1000)');
    expect(page).toContain('no prompt is sent to the\nphone page');
    expect(page).not.toContain('Approve the payment prompt');
    await sleep(100); // 10 scaled seconds: 233260000004 never settles
    expect((await status(sandbox, session.checkoutId)).body.status).toBe('processing');
  });

  it('Cancel ends the session cancelled and redirects to returnUrl', async () => {
    const { body: session } = await initialize(sandbox);
    const res = await postForm(sandbox, `/checkout/${session.checkoutId}/cancel`);
    expect(res.status).toBe(303);
    const target = new URL(res.headers.get('location')!);
    expect(target.searchParams.get('checkoutId')).toBe(session.checkoutId);
    expect(target.searchParams.get('status')).toBe('cancelled');
    expect(target.searchParams.get('order')).toBe('42');
    const read = await status(sandbox, session.checkoutId);
    expect(read.body.status).toBe('cancelled');
    expect(read.body.completedAt).toEqual(expect.any(String));
    // Pay after cancel changes nothing.
    await postForm(sandbox, `/checkout/${session.checkoutId}/pay`, { msisdn: '233240000001' });
    expect((await status(sandbox, session.checkoutId)).body.status).toBe('cancelled');
  });

  it.each(['12"><x', '024 000 000', '0990000001', '+44 7700 900123'])('refuses %s with the form again, escaped, and stays pending', async (typed) => {
    const { body: session } = await initialize(sandbox);
    const res = await postForm(sandbox, `/checkout/${session.checkoutId}/pay`, { msisdn: typed });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('role="alert"');
    expect(page).toContain('Enter a Ghanaian mobile number, like 024 000 0001.');
    if (typed.includes('"')) expect(page).toContain('value="12&quot;&gt;&lt;x"');
    expect((await status(sandbox, session.checkoutId)).body.status).toBe('pending');
  });

  it('answers a 404 page for an unknown session', async () => {
    const res = await fetch(`${sandbox.url}/checkout/unknown`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('Checkout not found');
    expect((await postForm(sandbox, '/checkout/unknown/pay', { msisdn: '233240000001' })).status).toBe(404);
  });
});

describe('checkout expiry', () => {
  let fast: StartedSandbox;
  beforeAll(async () => {
    fast = await start({ timeScale: 0.0001 }); // 30 minutes become 180 ms
  });
  afterAll(() => fast.close());

  it('expires an unused session after 30 scaled minutes; its page says so and links back', async () => {
    const { body: session } = await initialize(fast);
    await sleep(250);
    const read = await status(fast, session.checkoutId);
    expect(read.body.status).toBe('expired');
    expect(read.body.completedAt).toBe(session.expiresAt);
    const res = await fetch(session.checkoutUrl, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('expired');
    expect(page).toContain(`href="https://shop.example/done?order=42&amp;checkoutId=${session.checkoutId}&amp;status=expired"`);
    const pay = await postForm(fast, `/checkout/${session.checkoutId}/pay`, { msisdn: '233240000001' });
    expect(pay.status).toBe(303);
    expect((await status(fast, session.checkoutId)).body.status).toBe('expired');
  });

  it('expires a payment that never settles', async () => {
    const { body: session } = await initialize(fast);
    await postForm(fast, `/checkout/${session.checkoutId}/pay`, { msisdn: '233260000004' });
    await sleep(250);
    expect((await status(fast, session.checkoutId)).body.status).toBe('expired');
  });
});
