import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceResponse, providerErrorBody, smsSendResponse } from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import { constantTimeEquals } from '../../src/sandbox/messaging-auth.js';
import { AUTH, LIMITED_AUTH, call, otpRequest, quick, start } from './messaging-fixtures.js';

let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await start({ emailRatePerMinute: 1_000 });
});
afterAll(() => sandbox.close());

/** One request of each endpoint, with a body that would succeed given the right credentials. */
const ENDPOINTS = [
  ['sms.quick', 'POST', '/v1/external/sms/quick', quick('233240000001')],
  [
    'sms.bulk',
    'POST',
    '/v1/external/sms/bulk',
    { messages: [{ to: '233240000001', from: 'S', message: 'hi', type: 'Bulk' }], isGlobal: false },
  ],
  ['sms.resend', 'POST', '/v1/external/sms/quick/unknown-id/resend', { message: 'hi' }],
  ['sms.receipt', 'GET', '/v1/external/sms/logs/unknown-sequence', undefined],
  ['otp.generate', 'POST', '/v1/external/generate/otp', otpRequest('233240000001')],
  ['otp.validate', 'POST', '/v1/external/validate/otp', { recipient: '233240000001', code: '123456' }],
  ['email.send', 'POST', '/v1/external/email/send', { from: 'a@example.com', to: 'b@example.com', subject: 's' }],
  ['account.balance', 'GET', '/v1/external/account/balance', undefined],
] as const;

const { 'x-api-key': _key, ...withoutKey } = AUTH;
const { 'x-api-secret': _secret, ...withoutSecret } = AUTH;

describe('messaging credentials', () => {
  describe.each(ENDPOINTS)('%s', (_name, method, path, body) => {
    it.each([
      ['no credentials', { 'x-api-version': AUTH['x-api-version']! }],
      ['no key', withoutKey],
      ['no secret', withoutSecret],
      ['an unknown key', { ...AUTH, 'x-api-key': 'wrong-key' }],
      ['a wrong secret', { ...AUTH, 'x-api-secret': 'wrong-secret' }],
      ['the limited key with the full secret', { ...LIMITED_AUTH, 'x-api-secret': AUTH['x-api-secret']! }],
      ['the full key with the limited secret', { ...AUTH, 'x-api-secret': LIMITED_AUTH['x-api-secret']! }],
    ])('answers 401 UNAUTHORIZED with %s', async (_label, headers) => {
      const before = sandbox.app.sandbox.outbox.length;
      const res = await call(sandbox, method, path, body, headers);
      expect(res.status).toBe(401);
      expect(providerErrorBody.parse(res.body)).toMatchObject({ error: 'UNAUTHORIZED', details: {} });
      expect(sandbox.app.sandbox.outbox.length).toBe(before);
    });
  });

  it.each(ENDPOINTS)('checks %s credentials before the body', async (_name, method, path) => {
    const res = await call(sandbox, method, path, method === 'POST' ? { nonsense: true } : undefined, {});
    expect(res.status).toBe(401);
  });

  it('lets the limited key send SMS but not read the balance', async () => {
    const sms = await call(sandbox, 'POST', '/v1/external/sms/quick', quick('233240000001'), LIMITED_AUTH);
    expect(sms.status).toBe(200);
    smsSendResponse.parse(sms.body);
    const balance = await call(sandbox, 'GET', '/v1/external/account/balance', undefined, LIMITED_AUTH);
    expect(balance.status).toBe(403);
    expect(providerErrorBody.parse(balance.body).error).toBe('FORBIDDEN');
  });

  it('takes the credentials given in the options', async () => {
    const custom = await start({ apiKey: 'k-1', apiSecret: 's-1' });
    try {
      const headers = { 'x-api-key': 'k-1', 'x-api-secret': 's-1' };
      expect((await call(custom, 'GET', '/v1/external/account/balance', undefined, headers)).status).toBe(200);
      expect((await call(custom, 'GET', '/v1/external/account/balance', undefined, AUTH)).status).toBe(401);
    } finally {
      await custom.close();
    }
  });
});

describe('x-api-version outside email', () => {
  it('sends the full response when the header is absent', async () => {
    const { 'x-api-version': _omitted, ...headers } = AUTH;
    const res = await call(sandbox, 'GET', '/v1/external/account/balance', undefined, headers);
    expect(res.status).toBe(200);
    balanceResponse.parse(res.body);
    const sms = await call(sandbox, 'POST', '/v1/external/sms/quick', quick('233240000001'), headers);
    expect(sms.status).toBe(200);
    smsSendResponse.parse(sms.body);
  });

  it.each(ENDPOINTS)('refuses %s with another version value: 400 MISSING_API_VERSION', async (_name, method, path, body) => {
    const res = await call(sandbox, method, path, body, { ...AUTH, 'x-api-version': '2020-01-01' });
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('MISSING_API_VERSION');
  });
});

describe('request counts', () => {
  it('counts each request once under its route name, refused or not', async () => {
    const counted = await start();
    try {
      for (const [, method, path, body] of ENDPOINTS) await call(counted, method, path, body);
      await call(counted, 'GET', '/v1/external/account/balance', undefined, {});
      const counts = Object.fromEntries(counted.app.sandbox.requestCounts);
      expect(counts).toEqual({
        'sms.quick': 1,
        'sms.bulk': 1,
        'sms.resend': 1,
        'sms.receipt': 1,
        'otp.generate': 1,
        'otp.validate': 1,
        'email.send': 1,
        'account.balance': 2,
      });
    } finally {
      await counted.close();
    }
  });
});

describe('constantTimeEquals', () => {
  it('compares strings of any length', () => {
    expect(constantTimeEquals('secret', 'secret')).toBe(true);
    expect(constantTimeEquals('secret', 'secreT')).toBe(false);
    expect(constantTimeEquals('secret', 'secret-longer')).toBe(false);
    expect(constantTimeEquals('', '')).toBe(true);
  });
});
