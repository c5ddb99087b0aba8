import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkoutSnapshot,
  mintedToken,
  paymentSnapshot,
  proxyErrorBody,
  redeemOtpProofResponse,
  SERVER_PATHS,
} from '../../src/protocol/index.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';

const SERVER_KEY = 'server-key-for-tests-0123456789-abcdefghij';

/** Every server route with a body that would succeed, for the authentication checks. */
const ROUTES: { method: 'GET' | 'POST'; path: string; body?: unknown }[] = [
  { method: 'POST', path: SERVER_PATHS.otpToken, body: { purpose: 'sign-in' } },
  { method: 'POST', path: SERVER_PATHS.paymentToken, body: { amount: 10, referenceNo: 'AUTH-1', narration: 'x' } },
  { method: 'POST', path: SERVER_PATHS.checkoutToken, body: { title: 't', reference: 'r', amount: 5, description: 'd', returnUrl: 'https://shop.example/r' } },
  { method: 'POST', path: SERVER_PATHS.redeemOtpProof, body: { proof: 'a.b.c', purpose: 'sign-in' } },
  { method: 'GET', path: SERVER_PATHS.orderPayment('ORDER-1') },
  { method: 'GET', path: SERVER_PATHS.payment('ORDER-1-1') },
  { method: 'GET', path: SERVER_PATHS.orderCheckout('CO-1') },
  { method: 'GET', path: SERVER_PATHS.checkout('abc') },
  { method: 'GET', path: SERVER_PATHS.webhooks },
  { method: 'POST', path: SERVER_PATHS.webhookReplay('payment:ORDER-1-1:COMPLETED'), body: {} },
  { method: 'GET', path: '/server/nothing-here' },
];

describe('server API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        serverKey: SERVER_KEY,
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
        allowedOrigins: ['https://shop.example'],
        // The first test sends every wrong key to every route; the limit has its own suite below.
        limits: { serverKeyFailuresPerIp: { points: 1_000, durationSec: 60 } },
      },
    });
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST', path: string, body?: unknown, key: string | null = SERVER_KEY, headers: Record<string, string> = {}) =>
    h.request(method, path, {
      ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
      headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers },
    });

  it('refuses every route without a key, with a wrong key and with an element token: 401 SERVER_KEY_INVALID', async () => {
    const elementToken = await h.mintOtp();
    for (const route of ROUTES) {
      for (const key of [null, 'wrong-key', `${SERVER_KEY}x`, SERVER_KEY.slice(0, -1), elementToken]) {
        const res = await call(route.method, route.path, route.body, key);
        expect(res.status, `${route.method} ${route.path} with ${key?.slice(0, 12)}`).toBe(401);
        expect(proxyErrorBody.parse(res.body).error).toBe('SERVER_KEY_INVALID');
      }
    }
    const warned = h.logs.entries().filter((e) => e.msg === 'server API call refused: Authorization must be Bearer PROXY_SERVER_KEY');
    expect(warned.length).toBeGreaterThan(0);
    expect(h.logs.lines.some((l) => l.includes(SERVER_KEY))).toBe(false);
  });

  it('mints each kind of token (201 { token, expiresAt }) and the browser routes take it', async () => {
    const otp = await call('POST', SERVER_PATHS.otpToken, { purpose: 'sign-in', expiresIn: 120 });
    expect(otp.status).toBe(201);
    const { token, expiresAt } = mintedToken.parse(otp.body);
    expect(Math.abs(Date.parse(expiresAt) - Date.now() - 120_000)).toBeLessThan(5_000);
    const sent = await h.post('/otp/send', { recipient: '0240000001' }, { token });
    expect(sent.status).toBe(200);

    const payment = mintedToken.parse((await call('POST', SERVER_PATHS.paymentToken, { amount: 12.5, referenceNo: 'SRV-PAY-1', narration: 'Order' })).body);
    expect((await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: payment.token })).status).toBe(200);

    const checkout = mintedToken.parse(
      (await call('POST', SERVER_PATHS.checkoutToken, { title: 'Order', reference: 'SRV-CO-1', amount: 20, description: 'One', returnUrl: 'https://shop.example/r' })).body,
    );
    expect((await h.post('/checkouts', {}, { token: checkout.token })).status).toBe(201);
  });

  it('refuses bad input with INVALID_INPUT naming the fields, and bodies that are not JSON', async () => {
    const res = await call('POST', SERVER_PATHS.paymentToken, { amount: 0.001, referenceNo: 'bad ref', narration: 'x', extra: 1 });
    expect(res.status).toBe(400);
    const body = proxyErrorBody.parse(res.body);
    expect(body.error).toBe('INVALID_INPUT');
    expect([...new Set(body.details.fields?.map((f) => f.path))].sort()).toEqual(['amount', 'extra', 'referenceNo']);
    expect((await call('POST', SERVER_PATHS.redeemOtpProof, { proof: '' })).body.error).toBe('INVALID_INPUT');
    const text = await h.request('POST', SERVER_PATHS.otpToken, { body: 'purpose=x', headers: { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const big = await call('POST', SERVER_PATHS.otpToken, { purpose: 'x'.repeat(20_000) });
    expect(big.status).toBe(413);
  });

  it('takes calls with no Origin and from any Origin (server to server: the browser rule does not apply), with no CORS headers', async () => {
    const res = await call('POST', SERVER_PATHS.otpToken, { purpose: 'sign-in' }, SERVER_KEY, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('redeems an OTP proof once: 200 { msisdn, purpose }, then 409 PROOF_USED; a wrong purpose or a bad proof is 400 TOKEN_INVALID', async () => {
    const token = await h.mintOtp({ purpose: 'sign-in' });
    await h.post('/otp/send', { recipient: '0240000001' }, { token });
    const verified = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode('233240000001') }, { token });
    expect(verified.status).toBe(200);
    const proof = verified.body.proof as string;

    const wrongPurpose = await call('POST', SERVER_PATHS.redeemOtpProof, { proof, purpose: 'checkout' });
    expect(wrongPurpose.status).toBe(400);
    expect(wrongPurpose.body).toMatchObject({ error: 'TOKEN_INVALID', details: { reason: 'purpose' } });

    const first = await call('POST', SERVER_PATHS.redeemOtpProof, { proof, purpose: 'sign-in' });
    expect(first.status).toBe(200);
    expect(redeemOtpProofResponse.parse(first.body)).toEqual({ msisdn: '233240000001', purpose: 'sign-in' });

    const again = await call('POST', SERVER_PATHS.redeemOtpProof, { proof, purpose: 'sign-in' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('PROOF_USED');

    const bad = await call('POST', SERVER_PATHS.redeemOtpProof, { proof: `${proof.slice(0, -3)}abc`, purpose: 'sign-in' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'TOKEN_INVALID', details: { reason: 'invalid' } });
    // An element token is no proof.
    const element = await call('POST', SERVER_PATHS.redeemOtpProof, { proof: token, purpose: 'sign-in' });
    expect(element.body).toMatchObject({ error: 'TOKEN_INVALID', details: { reason: 'invalid' } });
  });

  it('reads an order’s payment by order and by attempt reference; 404 NOT_FOUND for an unknown one', async () => {
    const token = await h.mintPayment({ referenceNo: 'SRV-READ-1' });
    const started = await h.post('/payments', { msisdn: '0240000001' }, { token });
    expect(started.status).toBe(202);
    const byOrder = await call('GET', SERVER_PATHS.orderPayment('SRV-READ-1'));
    expect(byOrder.status).toBe(200);
    expect(paymentSnapshot.parse(byOrder.body)).toMatchObject({ orderReference: 'SRV-READ-1', reference: started.body.reference });
    const byAttempt = await call('GET', SERVER_PATHS.payment(started.body.reference));
    expect(byAttempt.status).toBe(200);
    expect(byAttempt.body.reference).toBe(started.body.reference);
    await eventually(async () => ((await call('GET', SERVER_PATHS.orderPayment('SRV-READ-1'))).body.status === 'COMPLETED' ? true : undefined));

    for (const path of [SERVER_PATHS.orderPayment('NO-SUCH'), SERVER_PATHS.payment('NO-SUCH-1')]) {
      const res = await call('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    expect((await call('GET', SERVER_PATHS.orderPayment('x'.repeat(200)))).body.error).toBe('INVALID_INPUT');
  });

  it('reads a checkout by order reference and by checkoutId; 404 for an unknown one', async () => {
    const token = await h.mintCheckout({ reference: 'SRV-CO-READ' });
    const created = await h.post('/checkouts', {}, { token });
    expect(created.status).toBe(201);
    const byOrder = await call('GET', SERVER_PATHS.orderCheckout('SRV-CO-READ'));
    expect(byOrder.status).toBe(200);
    expect(checkoutSnapshot.parse(byOrder.body)).toMatchObject({ checkoutId: created.body.checkoutId, reference: 'SRV-CO-READ' });
    const bySession = await call('GET', SERVER_PATHS.checkout(created.body.checkoutId));
    expect(bySession.status).toBe(200);
    expect((await call('GET', SERVER_PATHS.orderCheckout('NO-SUCH'))).status).toBe(404);
    expect((await call('GET', SERVER_PATHS.checkout('no-such'))).status).toBe(404);
  });

  it('answers an unknown server path 404 only with the key', async () => {
    expect((await call('GET', '/server/nothing-here')).status).toBe(404);
  });
});

describe('server API without a server key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('answers every server route 503 SERVER_API_DISABLED, naming PROXY_SERVER_KEY', async () => {
    for (const route of ROUTES) {
      const res = await h.request(route.method, route.path, {
        ...(route.method === 'POST' ? { body: JSON.stringify(route.body) } : {}),
        headers: { 'content-type': 'application/json', authorization: 'Bearer anything-at-all' },
      });
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('SERVER_API_DISABLED');
      expect(res.body.message).toContain('PROXY_SERVER_KEY');
    }
  });
});

describe('server API: wrong keys per address (finding 9: nobody can lock the backend out)', () => {
  let h: Harness;
  beforeAll(async () => {
    // The default limit (20 wrong keys per address per 10 minutes).
    h = await startHarness({ config: { serverKey: SERVER_KEY } });
  });
  afterAll(() => h.close());

  const call = (key: string, path: string = SERVER_PATHS.orderPayment('X')) => h.get(path, { headers: { authorization: `Bearer ${key}` } });

  it('limits wrong keys from one address (401, then 429 with Retry-After) while the right key from that address always answers', async () => {
    // Every caller shares one address, as behind a rewrite: 25 wrong keys.
    const wrong = [];
    for (let i = 0; i < 25; i++) wrong.push(await call(`wrong-${i}`));
    expect(wrong.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(wrong.slice(20).map((r) => r.status)).toEqual(Array(5).fill(429));
    for (const limited of wrong.slice(20)) {
      expect(limited.body).toMatchObject({ error: 'RATE_LIMITED', details: { scope: 'address' } });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    // The shop's backend, from the same address, right after: served.
    const minted = await h.request('POST', SERVER_PATHS.paymentToken, {
      body: JSON.stringify({ amount: 5, referenceNo: 'LOCK-1', narration: 'Order' }),
      headers: { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' },
    });
    expect(minted.status, minted.text).toBe(201);
    const paid = await h.post('/payments', { msisdn: '0260000004' }, { token: minted.body.token });
    expect(paid.status, paid.text).toBe(202);
    const read = await call(SERVER_KEY, SERVER_PATHS.orderPayment('LOCK-1'));
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ orderReference: 'LOCK-1' });

    // Still limited for the wrong ones; the log has each counted failure and one line for the limit, not one per 429.
    expect((await call('wrong-again')).status).toBe(429);
    const lines = h.logs.entries().map((l) => l.msg);
    expect(lines.filter((m) => m === 'server API call refused: Authorization must be Bearer PROXY_SERVER_KEY')).toHaveLength(20);
    expect(lines.filter((m) => String(m).startsWith('server API: too many wrong keys from this address'))).toHaveLength(1);
  });
});
