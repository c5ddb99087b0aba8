import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountHolderResponse,
  paymentInitiateResponse,
  paymentStatusResponse,
} from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import {
  finalStatus,
  gateway,
  initiate,
  paymentBody,
  paymentStatus,
  send,
  sleep,
  start,
  eventually,
} from './gateway-fixtures.js';

const UNAUTHORIZED = { statusCode: '0401', statusMessage: 'Unauthorized', transactionId: null, data: null, links: [] };
const BAD_REQUEST = { statusCode: '0400', statusMessage: 'Bad Request', transactionId: null, data: null, links: [] };
const TX_NOT_FOUND = { statusCode: '0404', statusMessage: 'Transaction not found', transactionId: null, data: null, links: [] };
const HOLDER_NOT_FOUND = {
  statusCode: '0404',
  statusMessage: 'Account holder not found',
  transactionId: null,
  data: null,
  links: [],
};

let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await start();
});
afterAll(() => sandbox.close());

describe('gateway authentication', () => {
  const routes: [string, string, unknown][] = [
    ['POST', '/v1/payment', paymentBody()],
    ['GET', '/v1/payment/anything/status', undefined],
    ['GET', '/v1/accountholders/233240000001', undefined],
  ];

  it.each(routes)('%s %s without credentials answers the exact 401 envelope', async (method, path, body) => {
    const res = await send(sandbox, method, `/gateway${path}`, { body });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it.each(routes)('%s %s with a wrong password answers the exact 401 envelope', async (method, path, body) => {
    const wrong = `Basic ${Buffer.from('test-user:nope').toString('base64')}`;
    const res = await send(sandbox, method, `/gateway${path}`, { body, headers: { authorization: wrong } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('refuses the checkout Bearer key on the gateway', async () => {
    const res = await send(sandbox, 'GET', '/gateway/v1/accountholders/233240000001', {
      headers: { authorization: 'Bearer test-checkout-key' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });
});

describe('POST /v1/payment', () => {
  it('accepts a payment: 0001 PENDING, a 1 % charge and a status link, and records it', async () => {
    const body = paymentBody('233240000001', { amount: 12.5 });
    const res = await gateway(sandbox, 'POST', '/v1/payment', body);
    expect(res.status).toBe(200);
    const parsed = paymentInitiateResponse.parse(res.body);
    expect(parsed.statusCode).toBe('0001');
    expect(parsed.statusMessage).toBe('PENDING');
    expect(parsed.transactionId).toEqual(expect.any(String));
    expect(parsed.data).toEqual({ amount: 12.5, charge: 0.13, totalAmount: 12.63, referenceId: expect.any(String) });
    expect(parsed.links).toEqual([{ rel: 'status', href: `/v1/payment/${parsed.data.referenceId}/status` }]);
    const record = sandbox.app.sandbox.payments.get(parsed.data.referenceId);
    expect(record).toMatchObject({ referenceNo: body.referenceNo, msisdn: '233240000001', status: 'PENDING' });
    expect(sandbox.app.sandbox.paymentsByNo.get(body.referenceNo)).toBe(parsed.data.referenceId);
  });

  it.each([
    [100, 1, 101],
    [0.5, 0.01, 0.51],
    [0.49, 0, 0.49],
    [19.99, 0.2, 20.19],
  ])('charges 1 %% rounded half-up to the pesewa: %s gives %s', async (amount, charge, totalAmount) => {
    const res = await gateway(sandbox, 'POST', '/v1/payment', paymentBody('233541234567', { amount }));
    expect(res.body.data).toMatchObject({ amount, charge, totalAmount });
  });

  it.each([
    ['a zero amount', { amount: 0 }],
    ['a negative amount', { amount: -5 }],
    ['an amount finer than a pesewa', { amount: 12.345 }],
    ['an amount as a string', { amount: '12.50' }],
    ['a missing payee', { payee: undefined }],
    ['an unknown field', { currency: 'GHS' }],
    ['a msisdn with a + prefix', { msisdn: '+233240000001' }],
    ['a msisdn of an unknown network', { msisdn: '233990000001' }],
    ['a local msisdn', { msisdn: '0240000001' }],
    ['a foreign msisdn', { msisdn: '447700900123' }],
  ])('refuses %s with the exact 0400 envelope and a reason header', async (_label, overrides) => {
    const before = sandbox.app.sandbox.payments.size;
    const res = await gateway(sandbox, 'POST', '/v1/payment', paymentBody('233240000001', overrides));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(BAD_REQUEST);
    expect(res.headers.get('x-sandbox-reason')).toBeTruthy();
    expect(sandbox.app.sandbox.payments.size).toBe(before);
  });

  it('refuses a body that is not JSON with the 0400 envelope', async () => {
    const res = await fetch(`${sandbox.paymentUrl}/v1/payment`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('test-user:test-password').toString('base64')}`, 'content-type': 'application/json' },
      body: '{"amount": 1,',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(BAD_REQUEST);
  });

  it('refuses a duplicate referenceNo with 0400 and leaves the first payment alone', async () => {
    const first = paymentBody('233240000001');
    expect((await gateway(sandbox, 'POST', '/v1/payment', first)).status).toBe(200);
    const again = await gateway(sandbox, 'POST', '/v1/payment', { ...first, amount: 99, callbackId: 'other' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(BAD_REQUEST);
    const status = await paymentStatus(sandbox, first.referenceNo);
    expect(status.body.data.amount).toBe(12.5);
  });
});

describe('payment outcomes by test number', () => {
  it.each([
    ['233240000001', 'COMPLETED'],
    ['233200000003', 'CANCELLED'],
    ['233240000404', 'FAILED'],
  ])('%s ends %s', async (msisdn, expected) => {
    const { referenceId } = await initiate(sandbox, msisdn);
    const data = await finalStatus(sandbox, referenceId);
    expect(data.status).toBe(expected);
    if (expected === 'COMPLETED') expect(Date.parse(data.completedAt)).not.toBeNaN();
    else expect(data.completedAt).toBeNull();
  });

  it('233240000002 is refused at once with the error body the specification shows for insufficient funds, and no transaction', async () => {
    const body = paymentBody('233240000002', { amount: 40 });
    const refused = await gateway(sandbox, 'POST', '/v1/payment', body);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'INSUFFICIENT_FUNDS', message: 'Customer has insufficient funds', details: {} });
    // The provider recorded nothing: a status read finds no such reference, and the reference is still free.
    expect((await paymentStatus(sandbox, body.referenceNo)).body).toEqual(TX_NOT_FOUND);
    const listed = (await send(sandbox, 'GET', '/__sandbox/payments')).body.payments as { referenceNo: string; status: string; failureCode: string }[];
    expect(listed.filter((p) => p.referenceNo === body.referenceNo)).toEqual([
      expect.objectContaining({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', msisdn: '233240000002' }),
    ]);
    const again = await gateway(sandbox, 'POST', '/v1/payment', paymentBody('233240000001', { referenceNo: body.referenceNo }));
    expect(again.status).toBe(200);
  });

  it('233260000004 stays PENDING long after every other payment settled', async () => {
    const { referenceId } = await initiate(sandbox, '233260000004');
    await sleep(200); // 20 scaled seconds: four times the default settlement
    const res = await paymentStatus(sandbox, referenceId);
    expect(res.body.data.status).toBe('PENDING');
    expect(res.body.data.completedAt).toBeNull();
  });

  it('any other valid number completes exactly 5 scaled seconds after it was received', async () => {
    const { referenceId } = await initiate(sandbox, '233501234567');
    const data = await finalStatus(sandbox, referenceId);
    expect(data.status).toBe('COMPLETED');
    const record = sandbox.app.sandbox.payments.get(referenceId)!;
    expect(Date.parse(data.completedAt) - record.createdAt).toBe(5_000 * 0.01);
  });

  it('the test number 233240000001 completes 3 scaled seconds after it was received', async () => {
    const { referenceId } = await initiate(sandbox, '233240000001');
    const data = await finalStatus(sandbox, referenceId);
    const record = sandbox.app.sandbox.payments.get(referenceId)!;
    expect(Date.parse(data.completedAt) - record.createdAt).toBe(3_000 * 0.01);
  });
});

describe('GET /v1/payment/:reference/status', () => {
  it('reads the same payment by referenceId and by referenceNo, reference being the referenceNo', async () => {
    const body = paymentBody('233260000004', { amount: 40, payee: 'Ama Store', narration: 'Shoes', payer: 'Yaw' });
    const init = await gateway(sandbox, 'POST', '/v1/payment', body);
    const referenceId = init.body.data.referenceId as string;
    const byId = await paymentStatus(sandbox, referenceId);
    const byNo = await paymentStatus(sandbox, body.referenceNo);
    expect(byId.status).toBe(200);
    const parsed = paymentStatusResponse.parse(byId.body);
    expect(parsed.statusCode).toBe('0000');
    expect(parsed.statusMessage).toBe('Successful');
    expect(parsed.transactionId).toBe(init.body.transactionId);
    expect(parsed.data).toEqual({
      reference: body.referenceNo,
      status: 'PENDING',
      amount: 40,
      charge: 0.4,
      totalAmount: 40.4,
      payee: 'Ama Store',
      payer: 'Yaw',
      narration: 'Shoes',
      msisdn: '233260000004',
      completedAt: null,
    });
    expect(byNo.body).toEqual(byId.body);
  });

  it('answers the exact 0404 envelope for an unknown reference', async () => {
    const res = await paymentStatus(sandbox, 'no-such-reference');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(TX_NOT_FOUND);
  });

  it('counts each request under its route name', async () => {
    const counts = sandbox.app.sandbox.requestCounts;
    const before = counts.get('payment.status') ?? 0;
    await paymentStatus(sandbox, 'x');
    await send(sandbox, 'GET', '/gateway/v1/payment/x/status'); // unauthorized still counts
    expect(counts.get('payment.status')).toBe(before + 2);
  });
});

describe('GET /v1/accountholders/:accountHolderId', () => {
  it.each([
    ['233240000001', 'KWAME MENSAH', 'MTN'],
    ['233240000002', 'AMA SERWAA', 'MTN'],
    ['233200000003', 'KOFI BOATENG', 'Telecel'],
    ['233260000004', 'ESI OWUSU', 'AirtelTigo'],
  ])('%s is %s on %s', async (msisdn, accountName, network) => {
    const res = await gateway(sandbox, 'GET', `/v1/accountholders/${msisdn}`);
    expect(res.status).toBe(200);
    const parsed = accountHolderResponse.parse(res.body);
    expect(parsed.statusCode).toBe('0000');
    expect(parsed.statusMessage).toBe('Successful');
    expect(parsed.data).toEqual({ accountName, msisdn, network });
    expect(parsed.transactionId).toEqual(expect.any(String));
    expect(parsed.sequenceNo).toEqual(expect.any(String));
  });

  it('233240000404 has no account holder: the exact 0404 envelope', async () => {
    const res = await gateway(sandbox, 'GET', '/v1/accountholders/233240000404');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(HOLDER_NOT_FOUND);
  });

  it('derives a stable name for any other valid number, its network by prefix', async () => {
    const a = await gateway(sandbox, 'GET', '/v1/accountholders/233571234567');
    const b = await gateway(sandbox, 'GET', '/v1/accountholders/233571234567');
    expect(a.body.data.network).toBe('AirtelTigo');
    expect(a.body.data.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
    expect(b.body.data.accountName).toBe(a.body.data.accountName);
    expect((await gateway(sandbox, 'GET', '/v1/accountholders/233501234567')).body.data.network).toBe('Telecel');
  });

  it.each(['233990000001', '0240000001', 'abc'])('answers 0404 for the invalid number %s', async (msisdn) => {
    const res = await gateway(sandbox, 'GET', `/v1/accountholders/${msisdn}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(HOLDER_NOT_FOUND);
  });
});

describe('payment status callbacks', () => {
  let listener: Server;
  let withCallbacks: StartedSandbox;
  const received: { url: string; body: unknown }[] = [];

  beforeAll(async () => {
    listener = createServer((req: IncomingMessage, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body: JSON.parse(text) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    withCallbacks = await start({ paymentCallbackUrl: `http://127.0.0.1:${port}/callbacks/payments/{callbackId}` });
  });
  afterAll(async () => {
    await withCallbacks.close();
    listener.closeAllConnections();
    await new Promise((resolve) => listener.close(resolve));
  });

  it('POSTs { callbackId, referenceId, referenceNo, status } once when a payment reaches its final state', async () => {
    const { referenceId, referenceNo } = await initiate(withCallbacks, '233240000404', { callbackId: 'cb/fail 1' });
    const hit = await eventually(async () => received.find((r) => (r.body as { referenceId: string }).referenceId === referenceId));
    expect(hit.url).toBe('/callbacks/payments/cb%2Ffail%201');
    expect(hit.body).toEqual({ callbackId: 'cb/fail 1', referenceId, referenceNo, status: 'FAILED' });
    await paymentStatus(withCallbacks, referenceId); // a read after settlement sends nothing more
    await sleep(100);
    expect(received.filter((r) => (r.body as { referenceId: string }).referenceId === referenceId)).toHaveLength(1);
  });

  it('POSTs at once when the phone page declines a payment', async () => {
    const { referenceId, referenceNo } = await initiate(withCallbacks, '233260000004', { callbackId: 'cb-decline' });
    const declined = await send(withCallbacks, 'POST', `/__sandbox/phone/payments/${referenceId}/decline`);
    expect(declined.status).toBe(303);
    const hit = await eventually(async () => received.find((r) => (r.body as { referenceId: string }).referenceId === referenceId));
    expect(hit.body).toEqual({ callbackId: 'cb-decline', referenceId, referenceNo, status: 'CANCELLED' });
  });

  it('sends nothing for a payment that stays PENDING', async () => {
    const { referenceId } = await initiate(withCallbacks, '233260000004');
    await sleep(150);
    expect(received.some((r) => (r.body as { referenceId: string }).referenceId === referenceId)).toBe(false);
  });
});
