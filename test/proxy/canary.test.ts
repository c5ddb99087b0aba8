import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestResponse } from './helpers.js';

/**
 * Every credential and the token secret are unique canary strings; every route is exercised, on its
 * happy path and its error paths (upstream credentials refused included); then no canary may appear in
 * any response body or header, nor in any log line. Full numbers, OTP codes, tokens and proofs must not
 * appear in any log line either.
 */
const CANARY = {
  apiKey: 'canary-messaging-key-7f3a9c',
  apiSecret: 'canary-messaging-secret-1b8e2d',
  username: 'canary-gateway-user-5c4f1a',
  password: 'canary-gateway-password-9d2b7e',
  checkoutKey: 'canary-checkout-key-3e6a0f',
  tokenSecret: 'canary-token-secret-4a1c8b-padded-to-32-bytes-and-more',
  wrongPassword: 'canary-wrong-password-6f0d3c',
};

/** The canaries, and the forms they take on the wire (Basic auth is base64 of `user:password`). */
const forbidden = [
  ...Object.values(CANARY),
  Buffer.from(`${CANARY.username}:${CANARY.password}`).toString('base64'),
  Buffer.from(`${CANARY.username}:${CANARY.wrongPassword}`).toString('base64'),
  Buffer.from(CANARY.tokenSecret).toString('base64url'),
];

const responses: TestResponse[] = [];
let h: Harness;
let refused: Harness;

async function record(res: Promise<TestResponse>): Promise<TestResponse> {
  const r = await res;
  responses.push(r);
  return r;
}

function providerWith(password: string) {
  return (sandbox: { url: string; paymentUrl: string }) => ({
    env: 'sandbox' as const,
    messagingBaseUrl: sandbox.url,
    paymentBaseUrl: sandbox.paymentUrl,
    messaging: { apiKey: CANARY.apiKey, apiSecret: password === CANARY.password ? CANARY.apiSecret : CANARY.wrongPassword },
    payment: { username: CANARY.username, password },
    checkout: { apiKey: password === CANARY.password ? CANARY.checkoutKey : CANARY.wrongPassword },
  });
}

const sandboxCredentials = {
  apiKey: CANARY.apiKey,
  apiSecret: CANARY.apiSecret,
  paymentUsername: CANARY.username,
  paymentPassword: CANARY.password,
  checkoutApiKey: CANARY.checkoutKey,
};

/** Reads an SSE stream for a while, then lets go. */
async function readEvents(url: string, token: string): Promise<TestResponse> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  let text = '';
  const timer = setTimeout(() => controller.abort(), 1_500);
  try {
    const reader = res.body?.getReader();
    const decoder = new TextDecoder();
    while (reader) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
      if (/"status":"(COMPLETED|completed|FAILED|CANCELLED|cancelled|expired|failed)"/.test(text)) break;
    }
  } catch {
    // aborted: enough read
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: res.status, headers: res.headers, text, body: undefined };
}

const secrets: string[] = [];

beforeAll(async () => {
  h = await startHarness({
    sandbox: sandboxCredentials,
    provider: providerWith(CANARY.password),
    config: { tokenSecret: CANARY.tokenSecret, allowedOrigins: ['https://shop.example'] },
  });
  refused = await startHarness({
    sandbox: sandboxCredentials,
    provider: providerWith(CANARY.wrongPassword),
    config: { tokenSecret: CANARY.tokenSecret },
  });

  for (const x of [h, refused]) {
    // OTP: send, delivery, wrong code, right code, and the refusals.
    const otp = await x.mintOtp();
    secrets.push(otp);
    const sent = await record(x.post('/otp/send', { recipient: '0240000001' }, { token: otp }));
    if (sent.body?.otpId) await record(x.get(`/otp/${sent.body.otpId}/delivery`, { token: otp }));
    await record(x.post('/otp/send', { recipient: '0240000001' }, { token: otp }));
    await record(x.post('/otp/send', { recipient: '+14155550123' }, { token: otp }));
    await record(x.post('/otp/verify', { recipient: '0240000001', code: '000000' }, { token: otp }));
    if (x === h) {
      const code = h.lastCode('233240000001');
      secrets.push(code);
      const ok = await record(x.post('/otp/verify', { recipient: '0240000001', code }, { token: otp }));
      secrets.push(ok.body.proof);
    }
    await record(x.get('/otp/unknown/delivery', { token: otp }));

    // Accounts.
    const pay = await x.mintPayment({ referenceNo: `CANARY-${x === h ? 'A' : 'B'}` });
    secrets.push(pay);
    await record(x.post('/accounts/lookup', { msisdn: '0240000001' }, { token: pay }));
    await record(x.post('/accounts/lookup', { msisdn: '0240000404' }, { token: pay }));

    // Payments and their status, snapshot and stream.
    const created = await record(x.post('/payments', { msisdn: '0240000001' }, { token: pay }));
    const reference = created.body?.reference ?? 'none';
    await record(x.get(`/payments/${encodeURIComponent(reference)}`, { token: pay }));
    responses.push(await readEvents(`${x.baseUrl}/payments/${encodeURIComponent(reference)}/events`, pay));
    await record(x.get('/payments/unknown', { token: pay }));

    // Checkouts.
    const co = await x.mintCheckout();
    secrets.push(co);
    const session = await record(x.post('/checkouts', {}, { token: co }));
    const checkoutId = session.body?.checkoutId ?? 'none';
    await record(x.get(`/checkouts/${encodeURIComponent(checkoutId)}`, { token: co }));
    responses.push(await readEvents(`${x.baseUrl}/checkouts/${encodeURIComponent(checkoutId)}/events`, co));

    // Provider callbacks, health, and the transport refusals.
    await record(x.request('POST', '/callbacks/payments/anything', { body: 'x', headers: { 'content-type': 'text/plain' } }));
    await record(x.get('/health'));
    // Readiness calls the provider with our credentials, refused ones included, and says why in words.
    await record(x.get('/ready'));
    await record(x.post('/otp/send', '{bad json', { token: otp }));
    await record(x.request('POST', '/otp/send', { body: 'a=b', headers: { 'content-type': 'text/plain' } }));
    await record(x.post('/accounts/lookup', { msisdn: 'x'.repeat(20_000) }, { token: pay }));
    await record(x.post('/accounts/lookup', { msisdn: '0240000001' }, { token: pay, headers: { origin: 'https://evil.example' } }));
    await record(x.request('OPTIONS', '/payments', { headers: { origin: 'https://shop.example' } }));
    await record(x.post('/accounts/lookup', { msisdn: '0240000001' }, { token: `${pay}x` }));
    await record(x.get('/no/such/route'));
  }
  // Merchant-side calls.
  await h.proxy.payments.get('CANARY-A');
  await h.proxy.checkouts.get('none');
}, 60_000);

afterAll(async () => {
  await h?.close();
  await refused?.close();
});

describe('canary: no secret leaves the server', () => {
  it('exercised the routes, upstream refusals included', () => {
    const statuses = responses.map((r) => r.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(502); // credentials refused upstream → UPSTREAM_ERROR
    expect(statuses).toContain(413);
    expect(statuses).toContain(415);
    expect(statuses).toContain(403);
    expect(responses.length).toBeGreaterThan(40);
  });

  it('puts no canary in any response body or header', () => {
    for (const res of responses) {
      const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
      for (const canary of forbidden) {
        expect(res.text).not.toContain(canary);
        expect(headers).not.toContain(canary);
      }
    }
  });

  it('puts no canary in any log line', () => {
    const lines = [...h.logs.lines, ...refused.logs.lines];
    expect(lines.length).toBeGreaterThan(20);
    for (const canary of forbidden) expect(lines.filter((l) => l.includes(canary))).toEqual([]);
  });

  it('puts no full number, code, token or proof in any log line', () => {
    const lines = [...h.logs.lines, ...refused.logs.lines];
    for (const line of lines) {
      expect(line).not.toMatch(/2332[0-9]{8}/);
      for (const secret of secrets) expect(line).not.toContain(secret);
    }
  });
});
