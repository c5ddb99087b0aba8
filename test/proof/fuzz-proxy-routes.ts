import fc, { type Arbitrary } from 'fast-check';
import type { z } from 'zod';
import {
  accountLookupResponse,
  checkoutCreateResponse,
  checkoutSnapshot,
  healthResponse,
  otpDeliveryResponse,
  otpSendResponse,
  otpVerifyResponse,
  paymentSnapshot,
} from '../../src/protocol/index.js';
import { contentType, ghanaNational, headerJunk, junkString, shapedJson } from './fuzz-arbitraries.js';
import { fixedPath, lastEventId, noHeaders, paramPath, pathParam, sometimes, type RouteSpec } from './fuzz-requests.js';
import { serverRoutes } from './fuzz-server-routes.js';

/** What the proxy suite prepared before fuzzing: tokens of each kind, and identifiers that exist. */
export interface ProxyFuzzWorld {
  mount: string;
  /** The token that owns the first otpId, the references and the first checkoutId. */
  owners: { otp: string; payment: string; checkout: string };
  tokens: {
    otp: string[];
    payment: string[];
    checkout: string[];
    /** Tokens that must be refused everywhere: expired, foreign secret, alg none, wrong audience, a proof. */
    refused: string[];
  };
  otpIds: string[];
  references: string[];
  checkoutIds: string[];
  callbackIds: string[];
  /** The server API's key, and what its routes read or redeem: checkout order references, OTP proofs (sign-in). */
  serverKey: string;
  checkoutReferences: string[];
  proofs: string[];
  /** Signed webhooks the proxy recorded (their receiver is down), for the replay route. */
  webhookIds: string[];
}

/** A proxy route to fuzz, and the schemas of its 2xx answers. */
export interface ProxyRouteSpec extends RouteSpec {
  success?: z.ZodType | undefined;
  /** Schema of the `data` of each event in the first bytes of a 200 event stream. */
  streamed?: z.ZodType | undefined;
}

/** Numbers as people type them: the test numbers, random valid numbers in every format, foreign ones. */
const phone: Arbitrary<string> = fc.oneof(
  fc.constantFrom('0240000001', '233240000001', '+233240000001', '+233 24 000 0001', '024-000-0001', '(024) 000 0001', '00233240000001', '0240000404', '0240000002', '0200000003', '0260000004'),
  fc.tuple(fc.constantFrom('0', '233', '+233 ', '00233', '+233-'), ghanaNational).map(([lead, national]) => `${lead}${national}`),
  fc.constantFrom('+14155550123', '+2348012345678', '+447700900123', '0000000000', '1234', '+', '+233', '233000000000'),
);

const phoneJson = phone.map((p) => JSON.stringify(p));
const codeJson = fc.oneof(fc.stringMatching(/^\d{6}$/), fc.constantFrom('000000', '123456', ' 123456 ', '12345678901'), junkString).map((c) => JSON.stringify(c));

/** A valid token, one of `tokens`. */
function goodBearer(tokens: readonly string[]): Arbitrary<[string, string][]> {
  return fc.constantFrom(...tokens).map((t) => [['authorization', `Bearer ${t}`]] as [string, string][]);
}

/** Credentials of a route: a token of `scope` mostly; refused, bent and garbage Authorization otherwise. */
function bearer(world: ProxyFuzzWorld, scope: 'otp' | 'payment' | 'checkout'): Arbitrary<[string, string][]> {
  const right = fc.constantFrom(...world.tokens[scope]);
  const others = (['otp', 'payment', 'checkout'] as const).filter((s) => s !== scope).flatMap((s) => world.tokens[s]);
  const value = fc.oneof(
    { weight: 14, arbitrary: right.map((t) => `Bearer ${t}`) },
    { weight: 2, arbitrary: fc.constantFrom(...others, ...world.tokens.refused).map((t) => `Bearer ${t}`) },
    {
      weight: 2,
      arbitrary: right.chain((t) =>
        fc.constantFrom(`bearer ${t}`, `BEARER  ${t}`, `Bearer ${t} `, `Bearer\t${t}`, t, `Bearer ${t}x`, `Bearer ${t.slice(0, -2)}`, `Bearer ${t}.${t}`, `Basic ${t}`, `Bearer ${t}, Bearer ${t}`, `Bearer ${t.replace(/\./, '.e30.')}`),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(right, fc.nat(), fc.constantFrom('A', '_', '-', '.')).map(([t, at, c]) => `Bearer ${t.slice(0, at % t.length)}${c}${t.slice((at % t.length) + 1)}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer null', 'Bearer a.b.c', 'Bearer ...', `Bearer ${'a'.repeat(5000)}`, 'Basic dXNlcjpwYXNz', 'Digest x') },
    { weight: 1, arbitrary: headerJunk.chain((j) => fc.constantFrom(j, `Bearer ${j}`)) },
  );
  return fc.oneof(
    { weight: 20, arbitrary: value.map((v) => [['authorization', v]] as [string, string][]) },
    { weight: 1, arbitrary: noHeaders },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => [['authorization', a], ['authorization', b]] as [string, string][]) },
  );
}

/** Every route of the browser-to-proxy protocol (DESIGN's table), then the server API's, with its generators. */
export function proxyRoutes(world: ProxyFuzzWorld): ProxyRouteSpec[] {
  const { mount } = world;
  const events = sometimes('accept', ['text/event-stream', '*/*', 'application/json'], 2).chain((accept) => lastEventId.map((id) => [...accept, ...id]));
  const json = shapedJson;
  const scoped = (scope: 'otp' | 'payment' | 'checkout') => ({ auth: bearer(world, scope), goodAuth: goodBearer(world.tokens[scope]) });
  // Routes reading an identifier: plausible requests carry the token that owns it.
  const owned = (scope: 'otp' | 'payment' | 'checkout') => ({ auth: bearer(world, scope), goodAuth: goodBearer([world.owners[scope]]) });
  return [
    { name: 'POST /otp/send', method: 'POST', path: fixedPath(mount, '/otp/send'), ...scoped('otp'), body: json({ recipient: phoneJson }), success: otpSendResponse },
    {
      name: 'POST /otp/verify',
      method: 'POST',
      path: fixedPath(mount, '/otp/verify'),
      ...scoped('otp'),
      body: json({ recipient: phoneJson, code: codeJson }),
      success: otpVerifyResponse,
    },
    {
      name: 'POST /accounts/lookup',
      method: 'POST',
      path: fixedPath(mount, '/accounts/lookup'),
      ...scoped('payment'),
      body: json({ msisdn: phoneJson }),
      success: accountLookupResponse,
    },
    { name: 'POST /payments', method: 'POST', path: fixedPath(mount, '/payments'), ...scoped('payment'), body: json({ msisdn: phoneJson }), success: paymentSnapshot },
    { name: 'POST /checkouts', method: 'POST', path: fixedPath(mount, '/checkouts'), ...scoped('checkout'), body: json({}), success: checkoutCreateResponse },
    {
      name: 'GET /payments/:reference',
      method: 'GET',
      path: paramPath(mount, pathParam(world.references), (p) => `/payments/${p}`),
      ...owned('payment'),
      success: paymentSnapshot,
    },
    {
      name: 'GET /payments/:reference/events',
      method: 'GET',
      path: paramPath(mount, pathParam(world.references), (p) => `/payments/${p}/events`),
      ...owned('payment'),
      extra: events,
      streamed: paymentSnapshot,
    },
    {
      name: 'GET /checkouts/:checkoutId',
      method: 'GET',
      path: paramPath(mount, pathParam(world.checkoutIds), (p) => `/checkouts/${p}`),
      ...owned('checkout'),
      success: checkoutSnapshot,
    },
    {
      name: 'GET /checkouts/:checkoutId/events',
      method: 'GET',
      path: paramPath(mount, pathParam(world.checkoutIds), (p) => `/checkouts/${p}/events`),
      ...owned('checkout'),
      extra: events,
      streamed: checkoutSnapshot,
    },
    {
      name: 'GET /otp/:otpId/delivery',
      method: 'GET',
      path: paramPath(mount, pathParam(world.otpIds), (p) => `/otp/${p}/delivery`),
      ...owned('otp'),
      success: otpDeliveryResponse,
    },
    {
      name: 'POST /callbacks/payments/:callbackId',
      method: 'POST',
      path: paramPath(mount, pathParam(world.callbackIds), (p) => `/callbacks/payments/${p}`),
      // The provider's callback carries no browser token; whatever comes is ignored.
      auth: fc.oneof({ weight: 3, arbitrary: noHeaders }, { weight: 1, arbitrary: bearer(world, 'payment') }),
      goodAuth: noHeaders,
      body: shapedJson({
        callbackId: fc.constantFrom(...world.callbackIds).map((c) => JSON.stringify(c)),
        referenceNo: junkString.map((s) => JSON.stringify(s)),
        status: fc.constantFrom('"COMPLETED"', '"FAILED"', '"PENDING"', 'null'),
      }),
      contentType: fc.oneof(contentType, fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded')),
    },
    { name: 'GET /health', method: 'GET', path: fixedPath(mount, '/health'), auth: fc.oneof(noHeaders, bearer(world, 'otp')), goodAuth: noHeaders, success: healthResponse },
    ...serverRoutes(world),
  ];
}
