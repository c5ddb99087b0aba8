import fc, { type Arbitrary } from 'fast-check';
import { ghanaNational, headerJunk, jsonText, junkKey, junkString, percentEncode, shapedJson } from './fuzz-arbitraries.js';
import { fixedPath, noHeaders, paramPath, pathParam, sometimes, type RouteSpec } from './fuzz-requests.js';
import { GOOD, type SandboxFuzzWorld } from './fuzz-sandbox-world.js';

/** The JSON text of a value usually drawn from `good`, else of any string. */
const text = (...good: string[]): Arbitrary<string> =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: junkString }).map((s) => JSON.stringify(s));

/** Phone numbers as the provider takes them (digits), and as it must refuse them. */
const digits = fc
  .oneof(
    { weight: 4, arbitrary: fc.constantFrom('233240000001', '233240000002', '233200000003', '233260000004', '233240000404') },
    { weight: 4, arbitrary: ghanaNational.map((n) => `233${n}`) },
    { weight: 2, arbitrary: fc.constantFrom('14155550123', '+233240000001', '0240000001', '2332400000011', '233990000001', '1234567', '') },
    { weight: 1, arbitrary: junkString },
  )
  .map((s) => JSON.stringify(s));

/** Amounts: ordinary, with too many decimals, negative, zero, tiny, and near the float overflow. */
const amount = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('12.5', '0.01', '1', '100', '25') },
  { weight: 2, arbitrary: fc.constantFrom('0', '-0', '-1', '12.345', '0.001', '5e-324', '1e306', '1.79e306', '1e308', '1e999', '9007199254740993', '"12.50"') },
  { weight: 1, arbitrary: fc.double().map((n) => JSON.stringify(n)) },
);

const bool = fc.constantFrom('false', 'false', 'true', '"true"', '1', 'null');
const int = (...good: number[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good).map(String) }, { weight: 1, arbitrary: fc.constantFrom('0', '-1', '4.5', '1e308', '11', '"6"', '9007199254740993') });
const smsText = fc.oneof(
  { weight: 4, arbitrary: text('Hello from the shop', 'Ça va? Привет 🙂') },
  { weight: 1, arbitrary: fc.integer({ min: 1590, max: 1700 }).map((n) => JSON.stringify('x'.repeat(n))) },
);
// Not the sandbox's fail.sandbox.invalid: a recipient there is its documented trigger of a provider 502.
const email = text('a@shop.example', 'Shop <no-reply@shop.example>');
const emails = fc.oneof(email, fc.array(email, { maxLength: 4 }).map((items) => `[${items.join(',')}]`));

/** Messaging credentials: usually right, else the limited key, wrong or missing halves, or junk. */
const messagingAuth: Arbitrary<[string, string][]> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(GOOD.messaging) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<[string, string][]>(
      [['x-api-key', 'test-limited-key'], ['x-api-secret', 'test-limited-secret']],
      [GOOD.messaging[0]!, ['x-api-secret', 'wrong']],
      [['x-api-key', 'wrong'], GOOD.messaging[1]!],
      [GOOD.messaging[0]!],
      [GOOD.messaging[1]!],
      [],
      [GOOD.messaging[0]!, GOOD.messaging[0]!, GOOD.messaging[1]!],
    ),
  },
  { weight: 1, arbitrary: fc.tuple(headerJunk, headerJunk).map(([k, s]) => [['x-api-key', k], ['x-api-secret', s]] as [string, string][]) },
);

/** One Authorization scheme's credentials: usually right, else bent, foreign or junk. */
function authorization(good: string, scheme: 'Basic' | 'Bearer'): Arbitrary<[string, string][]> {
  const junkBasic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  const value = fc.oneof(
    { weight: 12, arbitrary: fc.constant(good) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        good.toLowerCase(), `${good} `, `${good}x`, good.replace(' ', '  '), good.slice(scheme.length + 1), `${scheme}`, `${scheme} `,
        junkBasic('no-colon'), junkBasic(':'), junkBasic('ü:ß'), junkBasic('\u0000:\u0000'), 'Basic !!!', 'Basic ===', 'Bearer ', 'Bearer a b', `${good},${good}`,
      ),
    },
    { weight: 1, arbitrary: headerJunk.chain((j) => fc.constantFrom(j, `${scheme} ${j}`, junkBasic(j))) },
  );
  return fc.oneof({ weight: 12, arbitrary: value.map((v) => [['authorization', v]] as [string, string][]) }, { weight: 1, arbitrary: noHeaders });
}

/** A form body as the hosted page posts it, with junk fields, encodings and repeats now and then. */
const formBody: Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constant('msisdn') }, { weight: 1, arbitrary: junkKey.map(percentEncode) }, { weight: 1, arbitrary: fc.constantFrom('msisdn[]', 'msisdn[a]', '%zz', '') }),
      fc.oneof(
        { weight: 4, arbitrary: digits.map((d) => percentEncode(String(JSON.parse(d)))) },
        { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%C3%28', '+233+24+000+0001', '', '&&', '=') },
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

const formTypes = fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8');

/** The 13 endpoints of the specification and the hosted checkout page, with their generators. */
export function sandboxRoutes(world: SandboxFuzzWorld): RouteSpec[] {
  const messaging = { auth: messagingAuth, goodAuth: fc.constant(GOOD.messaging), extra: sometimes('x-api-version', [GOOD.version[1]]) };
  // Email requires x-api-version: good requests carry it, others mostly do.
  const emailAuth = {
    auth: fc.tuple(messagingAuth, sometimes('x-api-version', [GOOD.version[1]], 1)).map(([a, v]) => [...a, ...v]),
    goodAuth: fc.constant<[string, string][]>([...GOOD.messaging, GOOD.version]),
  };
  const gateway = { auth: authorization(GOOD.gateway, 'Basic'), goodAuth: fc.constant<[string, string][]>([['authorization', GOOD.gateway]]) };
  const checkout = { auth: authorization(GOOD.checkout, 'Bearer'), goodAuth: fc.constant<[string, string][]>([['authorization', GOOD.checkout]]) };
  const hosted = { auth: fc.oneof({ weight: 4, arbitrary: noHeaders }, { weight: 1, arbitrary: checkout.auth }), goodAuth: noHeaders };
  const quick = { to: digits, from: text('SHOP', 'A'), type: text('Quick', 'OTP'), message: smsText, isGlobal: bool };
  const { to, from, type, message } = quick;
  const bulkMessage = shapedJson({ to, from, type, message });
  const sessions = pathParam(world.checkoutIds);
  const hostedBody = fc.oneof({ weight: 4, arbitrary: formBody }, { weight: 1, arbitrary: jsonText });

  return [
    { name: 'POST /v1/external/sms/quick', method: 'POST', path: fixedPath('', '/v1/external/sms/quick'), ...messaging, body: shapedJson(quick) },
    {
      name: 'POST /v1/external/sms/bulk',
      method: 'POST',
      path: fixedPath('', '/v1/external/sms/bulk'),
      ...messaging,
      body: shapedJson({ messages: fc.array(bulkMessage, { maxLength: 5 }).map((items) => `[${items.join(',')}]`), isGlobal: bool }),
    },
    {
      name: 'POST /v1/external/sms/quick/:messageId/resend',
      method: 'POST',
      path: paramPath('', pathParam(world.messageIds), (p) => `/v1/external/sms/quick/${p}/resend`),
      ...messaging,
      body: shapedJson({ message: smsText }),
    },
    { name: 'GET /v1/external/sms/logs/:sequenceNo', method: 'GET', path: paramPath('', pathParam(world.sequenceNos), (p) => `/v1/external/sms/logs/${p}`), ...messaging },
    {
      name: 'POST /v1/external/generate/otp',
      method: 'POST',
      path: fixedPath('', '/v1/external/generate/otp'),
      ...messaging,
      body: shapedJson({
        recipient: digits,
        from: text('SHOP'),
        message: text('Your code is {code}. It expires in {amount} {duration}.', '{code}', 'no placeholder'),
        pinLength: int(4, 6, 10),
        pinType: text('NUMERIC', 'ALPHANUMERIC', 'ALPHABETIC'),
        expiry: shapedJson({ amount: int(1, 5, 59), duration: text('seconds', 'minutes', 'hours') }),
        maxAmountOfValidationRetries: int(1, 3, 5),
      }),
    },
    {
      name: 'POST /v1/external/validate/otp',
      method: 'POST',
      path: fixedPath('', '/v1/external/validate/otp'),
      ...messaging,
      body: shapedJson({ code: text('123456', '000000', 'ABCDEF'), recipient: digits }),
    },
    {
      name: 'POST /v1/external/email/send',
      method: 'POST',
      path: fixedPath('', '/v1/external/email/send'),
      ...emailAuth,
      body: shapedJson({
        from: text('Shop <no-reply@shop.example>', 'no-reply@shop.example', 'not an address'),
        to: emails,
        subject: text('Your order', ''),
        text: text('Thanks'),
        html: text('<p>Thanks</p>'),
        cc: emails,
        attachments: fc.constantFrom('[]', '[{"filename":"a.txt","content":"aGk="}]', '[{"content":"x"}]', '[null]'),
        tags: fc.constantFrom('{"order":"1"}', '{"__proto__":"x"}', '{"a":1}'),
        scheduledAt: text('2030-01-01T00:00:00Z', 'tomorrow'),
      }),
    },
    { name: 'GET /v1/external/account/balance', method: 'GET', path: fixedPath('', '/v1/external/account/balance'), ...messaging },
    {
      name: 'POST /gateway/v1/payment',
      method: 'POST',
      path: fixedPath('/gateway', '/v1/payment'),
      ...gateway,
      body: shapedJson({
        amount,
        referenceNo: fc.oneof({ weight: 6, arbitrary: fc.uuid().map((u) => JSON.stringify(`FUZZ-${u}`)) }, { weight: 1, arbitrary: text('FUZZ-REF-1') }),
        payee: text('Shop'),
        narration: text('Order 1'),
        msisdn: digits,
        callbackId: text('cb-fuzz'),
        payer: text('Ama'),
      }),
    },
    { name: 'GET /gateway/v1/payment/:reference/status', method: 'GET', path: paramPath('/gateway', pathParam(world.references), (p) => `/v1/payment/${p}/status`), ...gateway },
    {
      name: 'GET /gateway/v1/accountholders/:accountHolderId',
      method: 'GET',
      path: paramPath('/gateway', pathParam(['233240000001', '233240000404', '233270000009', '233990000001']), (p) => `/v1/accountholders/${p}`),
      ...gateway,
    },
    {
      name: 'POST /v1/checkout/initialize',
      method: 'POST',
      path: fixedPath('', '/v1/checkout/initialize'),
      ...checkout,
      body: shapedJson({
        title: text('Order'),
        reference: text('CO-1'),
        amount,
        description: text('An order'),
        returnUrl: text('https://shop.example/return', 'http://localhost:3000/', 'javascript:alert(1)', 'ftp://x', '/relative'),
      }),
    },
    { name: 'GET /v1/checkout/:checkoutId/status', method: 'GET', path: paramPath('', sessions, (p) => `/v1/checkout/${p}/status`), ...checkout },
    { name: 'GET /checkout/:checkoutId', method: 'GET', path: paramPath('', sessions, (p) => `/checkout/${p}`), ...hosted },
    { name: 'POST /checkout/:checkoutId/pay', method: 'POST', path: paramPath('', sessions, (p) => `/checkout/${p}/pay`), ...hosted, body: hostedBody, goodType: formTypes },
    { name: 'POST /checkout/:checkoutId/cancel', method: 'POST', path: paramPath('', sessions, (p) => `/checkout/${p}/cancel`), ...hosted, body: hostedBody, goodType: formTypes },
  ];
}
