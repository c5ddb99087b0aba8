import fc, { type Arbitrary } from 'fast-check';
import { checkoutSnapshot, mintedToken, paymentSnapshot, redeemOtpProofResponse, webhookList, webhookReplayed } from '../../src/protocol/index.js';
import { headerJunk, junkString } from './fuzz-arbitraries.js';
import type { ProxyFuzzWorld, ProxyRouteSpec } from './fuzz-proxy-routes.js';
import { fixedPath, noHeaders, paramPath, pathParam } from './fuzz-requests.js';

/** The server key mostly; element tokens, proofs, refused tokens, bent and garbage keys otherwise. */
function serverAuth(world: ProxyFuzzWorld): Arbitrary<[string, string][]> {
  const key = world.serverKey;
  const tokens = [...world.tokens.otp, ...world.tokens.payment, ...world.tokens.checkout, ...world.tokens.refused];
  const value = fc.oneof(
    { weight: 14, arbitrary: fc.constant(`Bearer ${key}`) },
    { weight: 2, arbitrary: fc.constantFrom(...tokens).map((t) => `Bearer ${t}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(`bearer ${key}`, `Bearer ${key} `, `Bearer\t${key}`, key, `Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`, `Basic ${key}`, `Bearer ${key}, Bearer ${key}`, `Bearer ${key.toUpperCase()}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', `Bearer ${'a'.repeat(5000)}`, 'Basic dXNlcjpwYXNz') },
    { weight: 1, arbitrary: headerJunk.chain((j) => fc.constantFrom(j, `Bearer ${j}`)) },
  );
  return fc.oneof(
    { weight: 20, arbitrary: value.map((v) => [['authorization', v]] as [string, string][]) },
    { weight: 1, arbitrary: noHeaders },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => [['authorization', a], ['authorization', b]] as [string, string][]) },
  );
}

const json = (value: unknown) => JSON.stringify(value);
const str = (...good: string[]) => fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...good).map(json) }, { weight: 1, arbitrary: junkString.map(json) });
const num = (...good: number[]) => fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...good).map(json) }, { weight: 1, arbitrary: fc.constantFrom('0.001', '-1', '1e309', '"5"', 'null', '0.30000000000000004', '1000000001') });

/**
 * A body with these fields (a value now and then junk, a field now and then left out), now and then an extra
 * field or not an object at all: mostly valid, so most plausible requests reach the route's own code.
 */
function body(fields: Record<string, Arbitrary<string>>): Arbitrary<string> {
  const entries = Object.entries(fields).map(([name, value]) => fc.option(value.map((v) => `${json(name)}:${v}`), { freq: 20 }));
  const object = fc.tuple(...entries, fc.option(fc.constantFrom('"extra":1', '"__proto__":{"x":1}', '"constructor":{}'), { freq: 1 })).map(
    (parts) => `{${parts.filter((p): p is string => p !== null).join(',')}}`,
  );
  return fc.oneof({ weight: 12, arbitrary: object }, { weight: 1, arbitrary: fc.constantFrom('[]', 'null', '"x"', '{', '{}') });
}

/** The server API's routes (the merchant's backend), fuzzed like the browser's, with the server key. */
export function serverRoutes(world: ProxyFuzzWorld): ProxyRouteSpec[] {
  const { mount } = world;
  const auth = { auth: serverAuth(world), goodAuth: fc.constant<[string, string][]>([['authorization', `Bearer ${world.serverKey}`]]) };
  const expiresIn = num(60, 900, 86_400);
  return [
    {
      name: 'POST /server/tokens/otp',
      method: 'POST',
      path: fixedPath(mount, '/server/tokens/otp'),
      ...auth,
      body: body({ purpose: str('sign-in', 'checkout'), recipient: str('0240000001', '233240000001', '+14155550123'), expiresIn }),
      success: mintedToken,
    },
    {
      name: 'POST /server/tokens/payment',
      method: 'POST',
      path: fixedPath(mount, '/server/tokens/payment'),
      ...auth,
      body: body({
        amount: num(12.5, 1, 999.99),
        referenceNo: str('FUZZ-1', 'ORDER-2', 'a.b:c_d-e'),
        narration: str('Order'),
        payee: str('Shop'),
        msisdn: str('0240000001'),
        maxAttempts: num(1, 3, 10),
        expiresIn,
      }),
      success: mintedToken,
    },
    {
      name: 'POST /server/tokens/checkout',
      method: 'POST',
      path: fixedPath(mount, '/server/tokens/checkout'),
      ...auth,
      body: body({ title: str('Order'), reference: str('CO-1'), amount: num(25), description: str('An order'), returnUrl: str('https://shop.example/r', 'http://127.0.0.1/return'), expiresIn }),
      success: mintedToken,
    },
    {
      name: 'POST /server/otp-proofs/redeem',
      method: 'POST',
      path: fixedPath(mount, '/server/otp-proofs/redeem'),
      ...auth,
      body: body({ proof: str(...world.proofs), purpose: str('sign-in', 'checkout') }),
      success: redeemOtpProofResponse,
    },
    {
      name: 'GET /server/orders/:reference/payment',
      method: 'GET',
      path: paramPath(mount, pathParam(world.references), (p) => `/server/orders/${p}/payment`),
      ...auth,
      success: paymentSnapshot,
    },
    {
      name: 'GET /server/payments/:attemptReference',
      method: 'GET',
      path: paramPath(mount, pathParam(world.references), (p) => `/server/payments/${p}`),
      ...auth,
      success: paymentSnapshot,
    },
    {
      name: 'GET /server/orders/:reference/checkout',
      method: 'GET',
      path: paramPath(mount, pathParam(world.checkoutReferences), (p) => `/server/orders/${p}/checkout`),
      ...auth,
      success: checkoutSnapshot,
    },
    {
      name: 'GET /server/checkouts/:checkoutId',
      method: 'GET',
      path: paramPath(mount, pathParam(world.checkoutIds), (p) => `/server/checkouts/${p}`),
      ...auth,
      success: checkoutSnapshot,
    },
    {
      name: 'GET /server/webhooks',
      method: 'GET',
      path: fc.tuple(fixedPath(mount, '/server/webhooks'), fc.constantFrom('', '?state=dead', '?state=pending&limit=5', '?state=delivered', '?state=nope', '?limit=0', '?limit=x&state=')).map(
        ([path, query]) => (path.includes('?') ? path : path + query),
      ),
      ...auth,
      success: webhookList,
    },
    {
      name: 'POST /server/webhooks/:id/replay',
      method: 'POST',
      path: paramPath(mount, pathParam(world.webhookIds), (p) => `/server/webhooks/${p}/replay`),
      ...auth,
      body: fc.constantFrom('{}', '{"x":1}', '[]'),
      success: webhookReplayed,
    },
  ];
}
