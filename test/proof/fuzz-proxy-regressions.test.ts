import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyErrorBody } from '../../src/protocol/index.js';
import type { Harness } from '../proxy/helpers.js';
import { rawClient, type FuzzRequest, type RawClient } from './fuzz-http.js';
import type { ProxyFuzzWorld } from './fuzz-proxy-routes.js';
import { prepareWorld, startCanaryHarness } from './fuzz-proxy-world.js';

/** Cases the proxy fuzz (fuzz-proxy.test.ts) found answering 5xx, kept as plain tests once fixed. */

let h: Harness;
let world: ProxyFuzzWorld;
let client: RawClient;

beforeAll(async () => {
  h = await startCanaryHarness();
  world = await prepareWorld(h);
  client = rawClient(h.origin);
});

afterAll(async () => {
  client?.close();
  await h?.close();
});

async function answer(req: FuzzRequest): Promise<{ status: number; body: unknown }> {
  const res = await client.send(req);
  return { status: res.status, body: JSON.parse(res.body.toString('utf8')) };
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('proxy regressions found by fuzzing', () => {
  it('answers 400 INVALID_INPUT to a body that claims gzip but is plain JSON (was 500 INTERNAL)', async () => {
    const res = await answer({
      method: 'POST',
      path: '/merchant-elements/accounts/lookup',
      headers: [
        ['authorization', `Bearer ${world.tokens.payment[0]}`],
        ['content-type', 'application/json'],
        ['content-encoding', 'gzip'],
      ],
      body: bytes('{"msisdn":"0240000001"}'),
    });
    expect(res.status).toBe(400);
    expect(proxyErrorBody.parse(res.body).error).toBe('INVALID_INPUT');
  });

  it('answers 400 INVALID_INPUT to a provider callback whose body claims gzip but is plain (was 500 INTERNAL)', async () => {
    const res = await answer({
      method: 'POST',
      path: `/merchant-elements/callbacks/payments/${world.callbackIds[0]}`,
      headers: [
        ['content-type', 'application/json'],
        ['content-encoding', 'gzip'],
      ],
      body: bytes('{"status":"COMPLETED"}'),
    });
    expect(res.status).toBe(400);
    expect(proxyErrorBody.parse(res.body).error).toBe('INVALID_INPUT');
  });

  it.each(['%', '%C3%28', '%E0%A4%A'])('answers 400 INVALID_INPUT to a path parameter that does not percent-decode (%s, was 500)', async (param) => {
    for (const [path, token] of [
      [`/payments/${param}`, world.tokens.payment[0]],
      [`/checkouts/${param}/events`, world.tokens.checkout[0]],
      [`/otp/${param}/delivery`, world.tokens.otp[0]],
    ] as const) {
      const res = await answer({ method: 'GET', path: `/merchant-elements${path}`, headers: [['authorization', `Bearer ${token}`]] });
      expect(res.status).toBe(400);
      expect(proxyErrorBody.parse(res.body).error).toBe('INVALID_INPUT');
    }
  });
});
