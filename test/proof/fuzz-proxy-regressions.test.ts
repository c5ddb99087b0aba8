import { describe, expect, it } from 'vitest';
import { proxyErrorBody } from '../../src/protocol/index.js';
import type { FuzzRequest } from './fuzz-http.js';
import { answerOf, useFuzzTarget } from './fuzz-target.js';
import { prepareWorld, startCanaryHarness } from './fuzz-proxy-world.js';

/** Cases the proxy fuzz (fuzz-proxy.test.ts) found answering 5xx, kept as plain tests once fixed. */

const t = useFuzzTarget({ start: () => startCanaryHarness(), url: (h) => h.origin, prepare: prepareWorld });
const answer = (req: FuzzRequest) => answerOf(t.client, req);

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('proxy regressions found by fuzzing', () => {
  it('answers 400 INVALID_INPUT to a body that claims gzip but is plain JSON (was 500 INTERNAL)', async () => {
    const res = await answer({
      method: 'POST',
      path: '/merchant-elements/accounts/lookup',
      headers: [
        ['authorization', `Bearer ${t.world.tokens.payment[0]}`],
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
      path: `/merchant-elements/callbacks/payments/${t.world.callbackIds[0]}`,
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
      [`/payments/${param}`, t.world.tokens.payment[0]],
      [`/checkouts/${param}/events`, t.world.tokens.checkout[0]],
      [`/otp/${param}/delivery`, t.world.tokens.otp[0]],
    ] as const) {
      const res = await answer({ method: 'GET', path: `/merchant-elements${path}`, headers: [['authorization', `Bearer ${token}`]] });
      expect(res.status).toBe(400);
      expect(proxyErrorBody.parse(res.body).error).toBe('INVALID_INPUT');
    }
  });
});
