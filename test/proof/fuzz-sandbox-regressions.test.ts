import { describe, expect, it } from 'vitest';
import { gatewayErrorEnvelope, providerErrorBody } from '../../src/provider/schemas/index.js';
import type { FuzzRequest } from './fuzz-http.js';
import { answerOf, useFuzzTarget } from './fuzz-target.js';
import { GOOD, prepareSandboxWorld, startFuzzSandbox } from './fuzz-sandbox-world.js';

/** Cases the sandbox fuzz (fuzz-sandbox.test.ts) found answering 500, kept as plain tests once fixed. */

const t = useFuzzTarget({ start: () => startFuzzSandbox(), url: (sandbox) => sandbox.url, prepare: prepareSandboxWorld });
const answer = (req: FuzzRequest) => answerOf(t.client, req);

const json = (value: unknown) => new Uint8Array(Buffer.from(JSON.stringify(value)));
const quick = json({ to: '233240000001', from: 'SHOP', type: 'Quick', message: 'hi', isGlobal: false });
const payment = json({ amount: 1, referenceNo: 'R-REGRESSION', payee: 'Shop', narration: 'x', msisdn: '233240000001', callbackId: 'c', payer: 'p' });

describe('sandbox regressions found by fuzzing', () => {
  it.each([
    ['a gzip claim on a plain body', [['content-type', 'application/json'], ['content-encoding', 'gzip']]],
    ['a charset that is not UTF', [['content-type', 'application/json; charset=utf-42']]],
  ] as [string, [string, string][]][])('messaging answers 400 INVALID_JSON to %s (was 500)', async (_what, headers) => {
    const res = await answer({ method: 'POST', path: '/v1/external/sms/quick', headers: [...GOOD.messaging, ...headers], body: quick });
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('INVALID_JSON');
  });

  it('the gateway answers its 0400 envelope to a gzip claim on a plain body (was 500 in the messaging shape)', async () => {
    const res = await answer({
      method: 'POST',
      path: '/gateway/v1/payment',
      headers: [['authorization', GOOD.gateway], ['content-type', 'application/json'], ['content-encoding', 'gzip']],
      body: payment,
    });
    expect(res.status).toBe(400);
    expect(gatewayErrorEnvelope.parse(res.body).statusCode).toBe('0400');
  });

  it('the hosted page answers 400 to a form in a charset it cannot read (was 500)', async () => {
    const res = await answer({
      method: 'POST',
      path: `/checkout/${t.world.checkoutIds[0]}/cancel`,
      headers: [['content-type', 'application/x-www-form-urlencoded; charset=utf-7']],
      body: new Uint8Array(Buffer.from('msisdn=233240000001')),
    });
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('INVALID_JSON');
  });

  it('answers 400 to a path parameter that does not percent-decode, in each interface shape (was 500)', async () => {
    const messaging = await answer({ method: 'GET', path: '/v1/external/sms/logs/%', headers: GOOD.messaging });
    expect(messaging.status).toBe(400);
    expect(providerErrorBody.parse(messaging.body).error).toBe('VALIDATION_ERROR');
    const gateway = await answer({ method: 'GET', path: `/gateway/v1/payment/${t.world.references[0]}%zz/status`, headers: [['authorization', GOOD.gateway]] });
    expect(gateway.status).toBe(400);
    expect(gatewayErrorEnvelope.parse(gateway.body).statusCode).toBe('0400');
  });

  it.each([1.79e306, 1e306, 1e300])('the gateway refuses a payment of %d cedis with its 0400 envelope (1.79e306 was a 500: the total overflowed)', async (value) => {
    const res = await answer({
      method: 'POST',
      path: '/gateway/v1/payment',
      headers: [['authorization', GOOD.gateway], ['content-type', 'application/json']],
      body: json({ amount: value, referenceNo: `R-HUGE-${value}`, payee: 'Shop', narration: 'x', msisdn: '233240000001', callbackId: 'c', payer: 'p' }),
    });
    expect(res.status).toBe(400);
    expect(gatewayErrorEnvelope.parse(res.body).statusCode).toBe('0400');
  });
});
