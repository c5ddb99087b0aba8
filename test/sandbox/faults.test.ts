import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import { FAULT_KINDS, type FaultKind } from '../../src/sandbox/options.js';
import { CHECKOUT_AUTH, eventually, gateway, paymentBody, send, start } from './gateway-fixtures.js';

const GATEWAY_5XX = {
  '500': { statusCode: '0500', statusMessage: 'Internal Server Error', transactionId: null, data: null, links: [] },
  '502': { statusCode: '0502', statusMessage: 'Bad Gateway', transactionId: null, data: null, links: [] },
  '503': { statusCode: '0503', statusMessage: 'Service Unavailable', transactionId: null, data: null, links: [] },
} as const;
const ERROR_CODES = { '500': 'INTERNAL_ERROR', '502': 'BAD_GATEWAY', '503': 'SERVICE_UNAVAILABLE' } as const;

let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await start({ faultLatencyMs: 150, hangMs: 150 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.app.sandbox.reset();
});

/** Initiates a payment with a fault header; resolves to the answer or the network error. */
async function faultedPayment(on: StartedSandbox, fault: string | undefined, referenceNo: string) {
  const headers: Record<string, string> = fault ? { 'x-sandbox-fault': fault } : {};
  return gateway(on, 'POST', '/v1/payment', paymentBody('233240000001', { referenceNo }), headers).then(
    (reply) => ({ reply, error: undefined }),
    (error: unknown) => ({ reply: undefined, error }),
  );
}

function created(on: StartedSandbox, referenceNo: string): boolean {
  return on.app.sandbox.paymentsByNo.has(referenceNo);
}

function count(on: StartedSandbox, name: string): number {
  return on.app.sandbox.requestCounts.get(name) ?? 0;
}

describe('faults by request header', () => {
  it.each(['500', '502', '503'] as const)('%s on the gateway answers a gateway envelope and creates nothing', async (kind) => {
    const { reply } = await faultedPayment(sandbox, kind, `H-${kind}`);
    expect(reply?.status).toBe(Number(kind));
    expect(reply?.body).toEqual(GATEWAY_5XX[kind]);
    expect(reply?.headers.get('x-sandbox-fault-injected')).toBe(kind);
    expect(created(sandbox, `H-${kind}`)).toBe(false);
    expect(count(sandbox, `fault.${kind}`)).toBe(1);
    expect(count(sandbox, 'payment.initiate')).toBe(0);
  });

  it.each(['500', '502', '503'] as const)('%s on messaging and checkout answers the error body', async (kind) => {
    const headers = { 'x-sandbox-fault': kind, authorization: CHECKOUT_AUTH };
    for (const path of ['/v1/external/account/balance', '/v1/checkout/some-id/status']) {
      const res = await send(sandbox, 'GET', path, { headers });
      expect(res.status).toBe(Number(kind));
      expect(res.body).toEqual({ error: ERROR_CODES[kind], message: expect.any(String), details: {} });
    }
  });

  it('malformed answers 200 application/json with a body that does not parse', async () => {
    const { reply } = await faultedPayment(sandbox, 'malformed', 'H-malformed');
    expect(reply?.status).toBe(200);
    expect(reply?.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply?.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(reply!.text)).toThrow(SyntaxError);
    expect(created(sandbox, 'H-malformed')).toBe(false);
  });

  it('reset drops the connection with no answer', async () => {
    const { reply, error } = await faultedPayment(sandbox, 'reset', 'H-reset');
    expect(reply).toBeUndefined();
    expect(error).toBeInstanceOf(TypeError);
    expect(created(sandbox, 'H-reset')).toBe(false);
    expect(count(sandbox, 'fault.reset')).toBe(1);
  });

  it('hang holds the request for hangMs, then drops it', async () => {
    const started = Date.now();
    const { reply, error } = await faultedPayment(sandbox, 'hang', 'H-hang');
    expect(reply).toBeUndefined();
    expect(error).toBeInstanceOf(TypeError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(created(sandbox, 'H-hang')).toBe(false);
  });

  it('latency waits faultLatencyMs, then answers normally', async () => {
    const started = Date.now();
    const { reply } = await faultedPayment(sandbox, 'latency', 'H-latency');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(reply?.status).toBe(200);
    expect(reply?.body.statusCode).toBe('0001');
    expect(count(sandbox, 'fault.latency')).toBe(1);
  });

  it('ignores an unknown kind', async () => {
    const { reply } = await faultedPayment(sandbox, 'explode', 'H-unknown');
    expect(reply?.status).toBe(200);
  });
});

describe('faults after processing (the answer is lost, the payment exists)', () => {
  it.each(['500', '502', '503'] as const)('%s;after creates the payment and answers that status', async (kind) => {
    const { reply } = await faultedPayment(sandbox, `${kind};after`, `A-${kind}`);
    expect(reply?.status).toBe(Number(kind));
    expect(reply?.body).toEqual(GATEWAY_5XX[kind]);
    expect(created(sandbox, `A-${kind}`)).toBe(true);
    expect(count(sandbox, 'payment.initiate')).toBe(1);
    const listed = await send(sandbox, 'GET', '/__sandbox/payments');
    expect(listed.body.payments.map((p: { referenceNo: string }) => p.referenceNo)).toContain(`A-${kind}`);
  });

  it('reset;after creates the payment and drops the connection', async () => {
    const { reply, error } = await faultedPayment(sandbox, 'reset;after', 'A-reset');
    expect(reply).toBeUndefined();
    expect(error).toBeInstanceOf(TypeError);
    expect(created(sandbox, 'A-reset')).toBe(true);
  });

  it('hang;after creates the payment and never answers', async () => {
    const { reply, error } = await faultedPayment(sandbox, 'HANG ; after', 'A-hang');
    expect(reply).toBeUndefined();
    expect(error).toBeInstanceOf(TypeError);
    expect(created(sandbox, 'A-hang')).toBe(true);
  });

  it('malformed;after answers the real answer cut in half', async () => {
    const { reply } = await faultedPayment(sandbox, 'malformed;after', 'A-malformed');
    expect(reply?.status).toBe(200);
    expect(reply?.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply?.text.startsWith('{"statusCode":"0001"')).toBe(true);
    expect(() => JSON.parse(reply!.text)).toThrow(SyntaxError);
    expect(created(sandbox, 'A-malformed')).toBe(true);
  });

  it('latency;after answers the real answer late', async () => {
    const started = Date.now();
    const { reply } = await faultedPayment(sandbox, 'latency;after', 'A-latency');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(reply?.body.statusCode).toBe('0001');
  });
});

describe('scripted faults', () => {
  it('fail the next `count` matching requests only, then stop', async () => {
    await send(sandbox, 'POST', '/__sandbox/faults', {
      body: { kind: '503', count: 2, method: 'POST', path: '/gateway/v1/payment' },
    });
    const status = await gateway(sandbox, 'GET', '/v1/payment/x/status'); // GET: not matched
    expect(status.status).toBe(404);
    expect((await faultedPayment(sandbox, undefined, 'S-1')).reply?.status).toBe(503);
    expect((await send(sandbox, 'GET', '/__sandbox/faults')).body.faults[0].remaining).toBe(1);
    expect((await faultedPayment(sandbox, undefined, 'S-2')).reply?.status).toBe(503);
    expect((await faultedPayment(sandbox, undefined, 'S-3')).reply?.status).toBe(200);
    expect((await send(sandbox, 'GET', '/__sandbox/faults')).body.faults).toEqual([]);
    expect([created(sandbox, 'S-1'), created(sandbox, 'S-2'), created(sandbox, 'S-3')]).toEqual([false, false, true]);
  });

  it('with after: true let the payment through and lose the answer', async () => {
    await send(sandbox, 'POST', '/__sandbox/faults', { body: { kind: 'reset', path: '/gateway/v1/payment', after: true } });
    const { error } = await faultedPayment(sandbox, undefined, 'S-after');
    expect(error).toBeInstanceOf(TypeError);
    expect(created(sandbox, 'S-after')).toBe(true);
  });

  it('without a path match any interface but never the inspection routes', async () => {
    await send(sandbox, 'POST', '/__sandbox/faults', { body: { kind: '500' } });
    expect((await send(sandbox, 'GET', '/__sandbox/payments')).status).toBe(200);
    expect((await send(sandbox, 'GET', '/__sandbox/faults')).body.faults[0].remaining).toBe(1);
    const res = await send(sandbox, 'GET', '/v1/checkout/x/status', { headers: { authorization: CHECKOUT_AUTH } });
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('INTERNAL_ERROR');
  });
});

describe('faults by rate', () => {
  it.each(FAULT_KINDS.filter((k): k is Exclude<FaultKind, 'latency'> => k !== 'latency'))(
    'faultRate 1 with only %s strikes every API request',
    async (kind) => {
      const faulty = await start({ faultRate: 1, faultKinds: [kind], hangMs: 100 });
      try {
        for (let i = 0; i < 3; i++) {
          const { reply } = await faultedPayment(faulty, undefined, `R-${kind}-${i}`);
          if (kind === 'reset' || kind === 'hang') expect(reply).toBeUndefined();
          else if (kind === 'malformed') {
            expect(reply?.status).toBe(200);
            expect(() => JSON.parse(reply!.text)).toThrow(SyntaxError);
          }
          else expect(reply?.status).toBe(Number(kind));
        }
        expect(count(faulty, `fault.${kind}`)).toBe(3);
        // Inspection and the hosted page are spared.
        expect((await send(faulty, 'GET', '/__sandbox/payments')).status).toBe(200);
        expect((await send(faulty, 'GET', '/checkout/unknown')).status).toBe(404);
      } finally {
        await faulty.close();
      }
    },
  );

  it('faultRate 1 with only latency delays every API request', async () => {
    const slow = await start({ faultRate: 1, faultKinds: ['latency'], faultLatencyMs: 100 });
    try {
      const started = Date.now();
      const { reply } = await faultedPayment(slow, undefined, 'R-latency');
      expect(Date.now() - started).toBeGreaterThanOrEqual(90);
      expect(reply?.status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('inspection routes ignore the fault header too', async () => {
    const res = await send(sandbox, 'GET', '/__sandbox/payments', { headers: { 'x-sandbox-fault': '503' } });
    expect(res.status).toBe(200);
  });
});

describe('closing the sandbox', () => {
  it('ends hung requests at once', async () => {
    const stuck = await start({ hangMs: 60_000 });
    const pending = faultedPayment(stuck, 'hang', 'C-hang');
    await eventually(async () => (count(stuck, 'fault.hang') > 0 ? true : undefined));
    const started = Date.now();
    await stuck.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    const { reply, error } = await pending;
    expect(reply).toBeUndefined();
    expect(error).toBeInstanceOf(TypeError);
  });
});
