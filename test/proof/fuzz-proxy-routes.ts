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
import { bodyPlan, contentType, headerJunk, jsonText, junkString, shapedJson } from './fuzz-arbitraries.js';
import { fixedPath, lastEventId, noHeaders, paramPath, pathParam, sometimes, type RouteSpec } from './fuzz-requests.js';

/** What the proxy suite prepared before fuzzing: tokens of each kind, and identifiers that exist. */
export interface ProxyFuzzWorld {
  mount: string;
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
}

/** A proxy route to fuzz, and the schema of its 2xx JSON answers. */
export interface ProxyRouteSpec extends RouteSpec {
  success?: z.ZodType | undefined;
}

/** Ghanaian mobile prefixes by network (MTN, Telecel, AirtelTigo). */
const PREFIXES = ['24', '25', '53', '54', '55', '59', '20', '50', '26', '27', '56', '57'];

/** Numbers as people type them: the test numbers, random valid numbers in every format, foreign ones. */
const phone: Arbitrary<string> = fc.oneof(
  fc.constantFrom('0240000001', '233240000001', '+233240000001', '+233 24 000 0001', '024-000-0001', '(024) 000 0001', '00233240000001', '0240000404', '0240000002', '0200000003', '0260000004'),
  fc
    .tuple(fc.constantFrom(...PREFIXES), fc.stringMatching(/^\d{7}$/), fc.constantFrom('0', '233', '+233 ', '00233', '+233-'))
    .map(([prefix, rest, lead]) => `${lead}${prefix}${rest}`),
  fc.constantFrom('+14155550123', '+2348012345678', '+447700900123', '0000000000', '1234', '+', '+233', '233000000000'),
);

const phoneJson = phone.map((p) => JSON.stringify(p));
const codeJson = fc.oneof(fc.stringMatching(/^\d{6}$/), fc.constantFrom('000000', '123456', ' 123456 ', '12345678901'), junkString).map((c) => JSON.stringify(c));

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

/** Every route of the browser-to-proxy protocol (DESIGN's table), with its generators. */
export function proxyRoutes(world: ProxyFuzzWorld): ProxyRouteSpec[] {
  const { mount } = world;
  const events = sometimes('accept', ['text/event-stream', '*/*', 'application/json'], 2).chain((accept) => lastEventId.map((id) => [...accept, ...id]));
  const json = (fields: Record<string, Arbitrary<string>>) => bodyPlan(shapedJson(fields));
  return [
    { name: 'POST /otp/send', method: 'POST', path: fixedPath(mount, '/otp/send'), auth: bearer(world, 'otp'), body: json({ recipient: phoneJson }), success: otpSendResponse },
    {
      name: 'POST /otp/verify',
      method: 'POST',
      path: fixedPath(mount, '/otp/verify'),
      auth: bearer(world, 'otp'),
      body: json({ recipient: phoneJson, code: codeJson }),
      success: otpVerifyResponse,
    },
    {
      name: 'POST /accounts/lookup',
      method: 'POST',
      path: fixedPath(mount, '/accounts/lookup'),
      auth: bearer(world, 'payment'),
      body: json({ msisdn: phoneJson }),
      success: accountLookupResponse,
    },
    { name: 'POST /payments', method: 'POST', path: fixedPath(mount, '/payments'), auth: bearer(world, 'payment'), body: json({ msisdn: phoneJson }), success: paymentSnapshot },
    { name: 'POST /checkouts', method: 'POST', path: fixedPath(mount, '/checkouts'), auth: bearer(world, 'checkout'), body: json({}), success: checkoutCreateResponse },
    {
      name: 'GET /payments/:reference',
      method: 'GET',
      path: paramPath(mount, pathParam(world.references), (p) => `/payments/${p}`),
      auth: bearer(world, 'payment'),
      body: bodyPlan(jsonText),
      success: paymentSnapshot,
    },
    {
      name: 'GET /payments/:reference/events',
      method: 'GET',
      path: paramPath(mount, pathParam(world.references), (p) => `/payments/${p}/events`),
      auth: bearer(world, 'payment'),
      extra: events,
    },
    {
      name: 'GET /checkouts/:checkoutId',
      method: 'GET',
      path: paramPath(mount, pathParam(world.checkoutIds), (p) => `/checkouts/${p}`),
      auth: bearer(world, 'checkout'),
      success: checkoutSnapshot,
    },
    {
      name: 'GET /checkouts/:checkoutId/events',
      method: 'GET',
      path: paramPath(mount, pathParam(world.checkoutIds), (p) => `/checkouts/${p}/events`),
      auth: bearer(world, 'checkout'),
      extra: events,
    },
    {
      name: 'GET /otp/:otpId/delivery',
      method: 'GET',
      path: paramPath(mount, pathParam(world.otpIds), (p) => `/otp/${p}/delivery`),
      auth: bearer(world, 'otp'),
      success: otpDeliveryResponse,
    },
    {
      name: 'POST /callbacks/payments/:callbackId',
      method: 'POST',
      path: paramPath(mount, pathParam(world.callbackIds), (p) => `/callbacks/payments/${p}`),
      // The provider's callback carries no browser token; whatever comes is ignored.
      auth: fc.oneof({ weight: 3, arbitrary: noHeaders }, { weight: 1, arbitrary: bearer(world, 'payment') }),
      body: bodyPlan(
        shapedJson({
          callbackId: fc.constantFrom(...world.callbackIds).map((c) => JSON.stringify(c)),
          referenceNo: junkString.map((s) => JSON.stringify(s)),
          status: fc.constantFrom('"COMPLETED"', '"FAILED"', '"PENDING"', 'null'),
        }),
      ),
      contentType: fc.oneof(contentType, fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded')),
    },
    { name: 'GET /health', method: 'GET', path: fixedPath(mount, '/health'), auth: fc.oneof(noHeaders, bearer(world, 'otp')), success: healthResponse },
  ];
}
