import { afterEach, describe, expect, it } from 'vitest';
import { accountLookupResponse } from '../../src/protocol/index.js';
import { maskAccountName } from '../../src/proxy/routes/accounts.js';
import { startHarness, type Harness, type HarnessOptions } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});
async function start(options: HarnessOptions = {}) {
  h = await startHarness(options);
  return h;
}

describe('maskAccountName', () => {
  it('keeps the first name and the initial of the last', () => {
    expect(maskAccountName('KWAME MENSAH')).toBe('KWAME M.');
    expect(maskAccountName('  Kofi  Atta   Boateng ')).toBe('Kofi B.');
    expect(maskAccountName('MADONNA')).toBe('MADONNA');
  });
});

describe('POST /accounts/lookup', () => {
  it('answers the masked holder name, network and normalised number', async () => {
    await start();
    const res = await h.post('/accounts/lookup', { msisdn: '024 000 0001' }, { token: await h.mintPayment() });
    expect(res.status, res.text).toBe(200);
    expect(accountLookupResponse.parse(res.body)).toEqual({ accountName: 'KWAME M.', network: 'MTN', msisdn: '233240000001' });
    expect(res.text).not.toContain('MENSAH');
  });

  it('shows the full name when configured', async () => {
    await start({ config: { accountNameDisplay: 'full' } });
    const res = await h.post('/accounts/lookup', { msisdn: '+233 20 000 0003' }, { token: await h.mintPayment() });
    expect(res.body).toEqual({ accountName: 'KOFI BOATENG', network: 'Telecel', msisdn: '233200000003' });
  });

  it('answers ACCOUNT_NOT_FOUND for a number without an account', async () => {
    await start();
    const res = await h.post('/accounts/lookup', { msisdn: '0240000404' }, { token: await h.mintPayment() });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('ACCOUNT_NOT_FOUND');
  });

  it('refuses a foreign or invalid number, and unknown fields', async () => {
    await start();
    const token = await h.mintPayment();
    expect((await h.post('/accounts/lookup', { msisdn: '+44 7700 900123' }, { token })).body.error).toBe('INVALID_PHONE_NUMBER');
    expect((await h.post('/accounts/lookup', { msisdn: 'abc' }, { token })).body.error).toBe('INVALID_PHONE_NUMBER');
    const extra = await h.post('/accounts/lookup', { msisdn: '0240000001', amount: 1 }, { token });
    expect(extra.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'amount', message: 'is not allowed' }] } });
  });

  it('refuses another number than the one the token is bound to', async () => {
    await start();
    const token = await h.mintPayment({ msisdn: '0240000001' });
    const res = await h.post('/accounts/lookup', { msisdn: '0240000002' }, { token });
    expect(res.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'msisdn' }] } });
    expect((await h.post('/accounts/lookup', { msisdn: '233240000001' }, { token })).status).toBe(200);
  });

  it('allows 10 lookups per token', async () => {
    await start();
    const token = await h.mintPayment();
    for (let i = 0; i < 10; i++) expect((await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token })).status).toBe(200);
    const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token });
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBe(res.body.details.retryAfter);
    expect((await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment() })).status).toBe(200);
  });

  it('caps lookups per IP', async () => {
    await start({ config: { limits: { accountLookupPerIp: { points: 3, durationSec: 600 } } } });
    for (let i = 0; i < 3; i++) {
      expect((await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment() })).status).toBe(200);
    }
    const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment() });
    expect(res.status).toBe(429);
    expect(res.body.details.retryAfter).toBeLessThanOrEqual(600);
  });

  it('hides a credential refused upstream behind UPSTREAM_ERROR, and logs it in full', async () => {
    await start({
      provider: (sandbox) => ({
        env: 'sandbox',
        messagingBaseUrl: sandbox.url,
        paymentBaseUrl: sandbox.paymentUrl,
        messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
        payment: { username: 'test-user', password: 'wrong-password' },
        checkout: { apiKey: 'test-checkout-key' },
      }),
    });
    const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment() });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'UPSTREAM_ERROR', message: 'The service could not complete this request.', details: {} });
    const logged = h.logs.entries().find((e) => e.level === 50 && (e.upstream as { status?: number } | undefined)?.status === 401);
    expect(logged).toMatchObject({ upstream: { operation: expect.stringContaining('accountHolder'), errorCode: '0401' } });
    // The provider client's own line keeps the provider's code too (a field named `code` is redacted).
    const clientLine = h.logs.entries().find((e) => e.part === 'provider-client' && e.msg === 'provider call failed');
    expect(clientLine).toMatchObject({ status: 401, errorCode: '0401' });
    expect(h.logs.lines.join('\n')).not.toContain('wrong-password');
  });

  it('answers UPSTREAM_UNAVAILABLE when the gateway fails', async () => {
    await start();
    await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '502', path: '/gateway/v1/accountholders', count: 10 }),
    });
    const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment() });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', details: { retryable: true } });
  });
});
