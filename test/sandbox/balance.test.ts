import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { balanceResponse, providerErrorBody, smsSendResponse } from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import { LIMITED_AUTH, call, otpRequest, quick, start } from './messaging-fixtures.js';

const BALANCE = '/v1/external/account/balance';

let sandbox: StartedSandbox;
beforeEach(async () => {
  sandbox = await start({ initialCredit: 100, initialIntlCredit: 10 });
});
afterEach(() => sandbox.close());

async function balance() {
  const res = await call(sandbox, 'GET', BALANCE);
  expect(res.status).toBe(200);
  return balanceResponse.parse(res.body);
}

async function send(message: string, isGlobal = false, to = isGlobal ? '447700900123' : '233240000001') {
  return call(sandbox, 'POST', '/v1/external/sms/quick', quick(to, message, isGlobal));
}

describe('GET /v1/external/account/balance', () => {
  it('answers statusCode "200" with the account, its owner and its credit', async () => {
    const body = await balance();
    expect(body.statusCode).toBe('200');
    expect(body.data).toMatchObject({ credit: 100, intlCredit: 10, intlTotalAmount: '10.00' });
    expect(body.data.userId).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      username: expect.any(String),
      phone: expect.stringMatching(/^\d+$/),
    });
  });

  it('refuses a limited key with 403 FORBIDDEN', async () => {
    const res = await call(sandbox, 'GET', BALANCE, undefined, LIMITED_AUTH);
    expect(res.status).toBe(403);
    expect(providerErrorBody.parse(res.body)).toMatchObject({ error: 'FORBIDDEN', details: {} });
  });

  it.each([
    ['160 GSM-7 characters', 'a'.repeat(160), 1],
    ['161 GSM-7 characters', 'a'.repeat(161), 2],
    ['70 UCS-2 characters', 'ɛ'.repeat(70), 1],
    ['71 UCS-2 characters', 'ɛ'.repeat(71), 2],
  ])('charges one credit per segment: %s cost %i', async (_label, message, cost) => {
    expect((await send(message)).status).toBe(200);
    const after = await balance();
    expect(after.data.credit).toBe(100 - cost);
    expect(after.data.intlCredit).toBe(10);
  });

  it('charges intlCredit, not credit, for an isGlobal send', async () => {
    expect((await send('a'.repeat(161), true)).status).toBe(200);
    const after = await balance();
    expect(after.data).toMatchObject({ credit: 100, intlCredit: 8, intlTotalAmount: '8.00' });
  });

  it('charges every message of a bulk send and the SMS of an OTP', async () => {
    const messages = Array.from({ length: 3 }, () => ({ to: '233240000001', from: 'S', message: 'a'.repeat(200), type: 'Bulk' }));
    expect((await call(sandbox, 'POST', '/v1/external/sms/bulk', { messages, isGlobal: false })).status).toBe(200);
    expect((await balance()).data.credit).toBe(94);
    expect((await call(sandbox, 'POST', '/v1/external/generate/otp', otpRequest('233240000001'))).status).toBe(200);
    expect((await balance()).data.credit).toBe(93);
  });

  it('refuses a send the credit cannot cover with INSUFFICIENT_CREDIT, sending and charging nothing', async () => {
    const small = await start({ initialCredit: 2 });
    try {
      const res = await call(small, 'POST', '/v1/external/sms/quick', quick('233240000001', 'a'.repeat(307)));
      expect(res.status).toBe(400);
      expect(providerErrorBody.parse(res.body)).toMatchObject({ error: 'INSUFFICIENT_CREDIT', details: { required: 3, available: 2 } });
      expect(small.app.sandbox.outbox).toHaveLength(0);
      const ok = await call(small, 'POST', '/v1/external/sms/quick', quick('233240000001', 'a'.repeat(306)));
      smsSendResponse.parse(ok.body);
      const left = balanceResponse.parse((await call(small, 'GET', BALANCE)).body);
      expect(left.data.credit).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('refuses a bulk send as a whole when the credit covers only part of it', async () => {
    const messages = Array.from({ length: 101 }, () => ({ to: '233240000001', from: 'S', message: 'hi', type: 'Bulk' }));
    const res = await call(sandbox, 'POST', '/v1/external/sms/bulk', { messages, isGlobal: false });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INSUFFICIENT_CREDIT');
    expect(sandbox.app.sandbox.outbox).toHaveLength(0);
    expect((await balance()).data.credit).toBe(100);
  });
});
