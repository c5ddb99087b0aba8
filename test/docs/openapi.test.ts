// The OpenAPI document the server package ships, held against a running proxy: it is what `npm run docs`
// generates from the zod schemas; it names every route the router has and no other; and every answer the
// proxy gives, success and refusal, on every documented route, validates against it (JSON Schema 2020-12,
// by ajv), status included. A route added to the router without its entry in src/protocol/openapi.ts fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/protocol/openapi.js';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { eventually, openStream } from '../proxy/sse-client.js';
import { startReceiver, type TestReceiver } from '../proxy/webhook-receiver.js';
import { ROOT } from './markdown.js';

const DOCUMENT = join(ROOT, 'packages/merchant-elements-server/openapi.json');
const SERVER_KEY = 'openapi-test-server-key-0123456789-abcdef';
const WEBHOOK_SECRET = `whsec_${Buffer.from('openapi-test-secret-of-32-bytes!').toString('base64')}`;

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object; 'x-event-data'?: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>>; info: { version: string }; components: { schemas: Record<string, object> } };

const version = JSON.parse(readFileSync(join(ROOT, 'packages/merchant-elements-server/package.json'), 'utf8')).version as string;
const shipped = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as Document;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
/** A schema of the document, compiled with the document's components beside it (its `$ref`s point there). */
const compile = (schema: object) => ajv.compile({ ...schema, components: shipped.components });

/** The documented operation whose path template matches `path` (parameters are one segment each). */
function operationOf(method: string, path: string): [string, Operation] {
  for (const [template, methods] of Object.entries(shipped.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    const op = methods[method.toLowerCase()];
    if (op && pattern.test(path.split('?')[0]!)) return [`${method.toUpperCase()} ${template}`, op];
  }
  throw new Error(`${method} ${path} is not in the document`);
}

/** The answers seen, by operation and status. */
const seen = new Map<string, Set<number>>();

/** Checks an answer against the document; returns it. */
function validate(method: string, path: string, status: number, contentType: string | null, body: unknown, events?: unknown[]): void {
  const [name, op] = operationOf(method, path);
  const response = op.responses[String(status)];
  expect(response, `${name} answered ${status}, which the document does not list (${JSON.stringify(body)})`).toBeDefined();
  seen.set(name, (seen.get(name) ?? new Set()).add(status));
  const documented = Object.keys(response!.content ?? {});
  if (documented.length === 0) {
    expect(body, `${name} ${status} has no body in the document`).toBeUndefined();
    return;
  }
  const type = (contentType ?? '').split(';')[0]!.trim();
  expect(documented, `${name} ${status}: content type ${type}`).toContain(type);
  const media = response!.content![type]!;
  if (type === 'text/event-stream') {
    const check = compile(media['x-event-data']!);
    expect(events!.length, `${name}: no event`).toBeGreaterThan(0);
    for (const data of events!) expect(check(data) ? [] : check.errors, `${name} event ${JSON.stringify(data)}`).toEqual([]);
    return;
  }
  const check = compile(media.schema!);
  expect(check(body) ? [] : check.errors, `${name} ${status} ${JSON.stringify(body)}`).toEqual([]);
}

describe('the OpenAPI document (packages/merchant-elements-server/openapi.json)', () => {
  let h: Harness;
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness({
      config: {
        serverKey: SERVER_KEY,
        webhooks: { url: receiver.url, secret: WEBHOOK_SECRET },
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
  });

  /** A request under the mount path, its answer validated against the document. */
  async function call(method: 'GET' | 'POST', path: string, o: { token?: string; server?: boolean; body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = {
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...(o.server ? { authorization: `Bearer ${SERVER_KEY}` } : o.token ? { authorization: `Bearer ${o.token}` } : {}),
      ...o.headers,
    };
    const res = await h.request(method, path, { headers, ...(method === 'POST' ? { body: JSON.stringify(o.body ?? {}) } : {}) });
    validate(method, path, res.status, res.headers.get('content-type'), res.body);
    return res;
  }

  /** Opens an event stream, takes its first event, and validates it against the document. */
  async function stream(path: string, token: string) {
    const events = await openStream(`${h.baseUrl}${path}`, token);
    const first = await events.waitFor(() => true);
    events.close();
    validate('GET', path, events.status, events.headers.get('content-type'), undefined, [first.data]);
  }

  it('is what `npm run docs` generates from the zod schemas, for the package’s version', () => {
    expect(shipped).toEqual(JSON.parse(JSON.stringify(openApiDocument(version))));
    expect(shipped.info.version).toBe(version);
  });

  it('names every operation (operationId, once each) and every body and answer (a $ref into components.schemas)', () => {
    const operations = Object.values(shipped.paths).flatMap((methods) => Object.values(methods)) as (Operation & { operationId?: string; requestBody?: { content: Record<string, { schema: object }> } })[];
    const ids = operations.map((op) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)), ids.join()).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const schemas = operations.flatMap((op) => [
      ...Object.values(op.requestBody?.content ?? {}).map((m) => m.schema),
      ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).map((m) => m['x-event-data'] ?? m.schema)),
    ]);
    const inline = schemas.filter((schema) => {
      const text = JSON.stringify(schema);
      return !(text === '{"type":"string"}' || /^\{"(\$ref|allOf)":/.test(text)) || /"properties":\{"(?!error")/.test(text);
    });
    expect(inline).toEqual([]);
    const refs = new Set([...JSON.stringify(shipped).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!));
    expect([...refs].filter((name) => !(name in shipped.components.schemas))).toEqual([]);
    expect(Object.keys(shipped.components.schemas)).toEqual(expect.arrayContaining(['PaymentTokenInput', 'MintedToken', 'PaymentSnapshot', 'OrderResolution', 'ErrorBody']));
  });

  it('names every route of the router, and only those', () => {
    interface Layer {
      route?: { path: string; methods: Record<string, boolean> };
    }
    const routed = (h.proxy.router as unknown as { stack: Layer[] }).stack
      .filter((layer) => layer.route)
      .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`));
    const documented = Object.entries(shipped.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(routed.length).toBeGreaterThan(15);
    expect(new Set(documented)).toEqual(new Set(routed));
  });

  it('describes every answer of the routes the elements call: successes, refusals and event streams', async () => {
    const otp = await h.mintOtp();
    expect((await call('POST', '/otp/send', { body: { recipient: '024 000 0001' } })).status).toBe(401);
    expect((await call('POST', '/otp/send', { token: otp, body: { recipient: '024 000 0001', extra: 1 } })).status).toBe(400);
    expect((await call('POST', '/otp/send', { token: otp, headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await call('POST', '/otp/send', { token: otp, headers: { origin: 'https://elsewhere.example' }, body: { recipient: '0240000001' } })).status).toBe(403);
    const sent = await call('POST', '/otp/send', { token: otp, body: { recipient: '024 000 0001' } });
    expect(sent.status).toBe(200);
    expect((await call('POST', '/otp/verify', { token: otp, body: { recipient: '0240000001', code: '000000' } })).status).toBe(400);
    expect((await call('POST', '/otp/verify', { token: otp, body: { recipient: '0240000001', code: h.lastCode('233240000001') } })).status).toBe(200);
    const otpId = (sent.body as { otpId: string }).otpId;
    expect((await call('GET', `/otp/${otpId}/delivery`, { token: otp })).status).toBe(200);
    expect((await call('GET', '/otp/unknown/delivery', { token: otp })).status).toBe(404);

    const payment = await h.mintPayment();
    expect((await call('GET', '/order', { token: payment })).status).toBe(200);
    expect((await call('POST', '/accounts/lookup', { token: payment, body: { msisdn: '0240000001' } })).status).toBe(200);
    expect((await call('POST', '/accounts/lookup', { token: payment, body: { msisdn: '0240000404' } })).status).toBe(404);
    expect((await call('POST', '/accounts/lookup', { token: otp, body: { msisdn: '0240000001' } })).status).toBe(401);
    const created = await call('POST', '/payments', { token: payment, body: { msisdn: '0240000001' } });
    expect(created.status).toBe(202);
    const reference = (created.body as { reference: string }).reference;
    expect((await call('GET', `/payments/${reference}`, { token: payment })).status).toBe(200);
    expect((await call('GET', '/order', { token: payment })).status).toBe(200);
    expect((await call('GET', '/order', { token: await h.mintPayment({ referenceNo: (created.body as { orderReference: string }).orderReference, amount: 99 }) })).status).toBe(409);
    expect((await call('GET', '/payments/NOT-MINE-1', { token: payment })).status).toBe(404);
    await stream(`/payments/${reference}/events`, payment);
    expect((await call('POST', '/payments', { token: await h.mintPayment(), body: { msisdn: '0240000002' } })).status).toBe(402);

    const checkout = await h.mintCheckout();
    const session = await call('POST', '/checkouts', { token: checkout });
    expect(session.status).toBe(201);
    const checkoutId = (session.body as { checkoutId: string }).checkoutId;
    expect((await call('GET', `/checkouts/${checkoutId}`, { token: checkout })).status).toBe(200);
    await stream(`/checkouts/${checkoutId}/events`, checkout);
    // <checkout-button>'s fallback form: a form body, the browser sent on with 303; a refusal in the error shape.
    const form = async (token: string) => {
      const res = await fetch(`${h.baseUrl}/checkouts/start`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) });
      const text = await res.text();
      validate('POST', '/checkouts/start', res.status, res.headers.get('content-type'), res.status === 303 ? undefined : JSON.parse(text));
      return res;
    };
    expect((await form(checkout)).headers.get('location')).toBe((session.body as { checkoutUrl: string }).checkoutUrl);
    expect((await form('not-a-token')).status).toBe(401);

    expect((await call('POST', '/callbacks/payments/anything', { body: { status: 'COMPLETED' } })).status).toBe(204);
    expect((await call('GET', '/health')).status).toBe(200);
    expect((await call('GET', '/ready')).status).toBe(200);
  });

  it('describes every answer of the server API, webhooks included', async () => {
    expect((await call('POST', SERVER_PATHS.otpToken, { body: { purpose: 'sign-in' } })).status).toBe(401);
    expect((await call('POST', SERVER_PATHS.otpToken, { server: true, body: { purpose: 'sign-in' } })).status).toBe(201);
    expect((await call('POST', SERVER_PATHS.otpToken, { server: true, body: { purpose: '' } })).status).toBe(400);
    const minted = await call('POST', SERVER_PATHS.paymentToken, { server: true, body: { amount: 12.5, referenceNo: 'OPENAPI-1', narration: 'Order OPENAPI-1' } });
    expect(minted.status).toBe(201);
    expect(
      (await call('POST', SERVER_PATHS.checkoutToken, {
        server: true,
        body: { title: 'Order', reference: 'OPENAPI-CO-1', amount: 20, description: 'One', returnUrl: 'https://shop.example/r' },
      })).status,
    ).toBe(201);

    const otp = await h.mintOtp();
    // Another number than the test above's: its one-minute cooldown between codes still runs.
    await h.post('/otp/send', { recipient: '0240000005' }, { token: otp });
    const verified = await h.post('/otp/verify', { recipient: '0240000005', code: h.lastCode('233240000005') }, { token: otp });
    const proof = (verified.body as { proof: string }).proof;
    expect((await call('POST', SERVER_PATHS.redeemOtpProof, { server: true, body: { proof, purpose: 'sign-in' } })).status).toBe(200);
    expect((await call('POST', SERVER_PATHS.redeemOtpProof, { server: true, body: { proof, purpose: 'sign-in' } })).status).toBe(409);
    expect((await call('POST', SERVER_PATHS.redeemOtpProof, { server: true, body: { proof: 'a.b.c', purpose: 'sign-in' } })).status).toBe(400);

    const token = (minted.body as { token: string }).token;
    const paid = await h.post('/payments', { msisdn: '0240000001' }, { token });
    const attempt = (paid.body as { reference: string }).reference;
    expect((await call('GET', SERVER_PATHS.orderPayment('OPENAPI-1'), { server: true })).status).toBe(200);
    expect((await call('GET', SERVER_PATHS.orderPayment('NO-SUCH-ORDER'), { server: true })).status).toBe(404);
    expect((await call('GET', SERVER_PATHS.payment(attempt), { server: true })).status).toBe(200);

    const checkoutToken = await h.mintCheckout({ reference: 'OPENAPI-CO-2' });
    const session = await h.post('/checkouts', {}, { token: checkoutToken });
    const checkoutId = (session.body as { checkoutId: string }).checkoutId;
    expect((await call('GET', SERVER_PATHS.orderCheckout('OPENAPI-CO-2'), { server: true })).status).toBe(200);
    expect((await call('GET', SERVER_PATHS.checkout(checkoutId), { server: true })).status).toBe(200);

    // An order whose payment is still pending is listed; an attempt it does not have is no resolution.
    const pending = await h.post('/payments', { msisdn: '0260000004' }, { token: await h.mintPayment({ referenceNo: 'OPENAPI-2' }) });
    expect(pending.status).toBe(202);
    expect((await call('GET', `${SERVER_PATHS.unresolvedOrders}?limit=10`, { server: true })).status).toBe(200);
    expect((await call('GET', `${SERVER_PATHS.unresolvedOrders}?limit=0`, { server: true })).status).toBe(400);
    expect((await call('POST', SERVER_PATHS.resolveOrder('OPENAPI-2'), { server: true, body: { reference: 'OPENAPI-2-9', absent: true } })).status).toBe(404);
    // "Absent" for a payment the provider has is refused (the proxy reads it first); its referenceId is taken.
    expect((await call('POST', SERVER_PATHS.resolveOrder('OPENAPI-2'), { server: true, body: { reference: 'OPENAPI-2-1', absent: true } })).status).toBe(400);
    const upstream = [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === 'OPENAPI-2-1')!;
    expect((await call('POST', SERVER_PATHS.resolveOrder('OPENAPI-2'), { server: true, body: { reference: 'OPENAPI-2-1', referenceId: upstream.referenceId } })).status).toBe(200);
    expect((await call('POST', SERVER_PATHS.resolveOrder('OPENAPI-2'), { server: true, body: { reference: 'OPENAPI-2-1' } })).status).toBe(400);

    await eventually(() => (receiver.received.length > 0 ? true : undefined), 15_000);
    const listed = await call('GET', `${SERVER_PATHS.webhooks}?state=delivered&limit=5`, { server: true });
    expect(listed.status).toBe(200);
    expect((await call('GET', `${SERVER_PATHS.webhooks}?state=lost`, { server: true })).status).toBe(400);
    const id = (listed.body as { deliveries: { id: string }[] }).deliveries[0]!.id;
    expect((await call('POST', SERVER_PATHS.webhookReplay(id), { server: true })).status).toBe(202);
    expect((await call('POST', SERVER_PATHS.webhookReplay('payment:NOPE-1:COMPLETED'), { server: true })).status).toBe(404);
    expect((await call('POST', SERVER_PATHS.webhooksReplay, { server: true, body: { state: 'delivered', since: '2026-01-01T00:00:00Z' } })).status).toBe(202);
    expect((await call('POST', SERVER_PATHS.webhooksReplay, { server: true, body: { state: 'pending' } })).status).toBe(400);
    expect((await call('POST', SERVER_PATHS.webhooksRetry, { server: true })).status).toBe(202);
    expect((await call('GET', `${SERVER_PATHS.webhooks}?cursor=nonsense`, { server: true })).status).toBe(400);
  });

  it('had each documented operation answer its success at least once (the two tests above)', () => {
    const missing = Object.entries(shipped.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, op]) => {
        const success = Object.keys(op.responses).find((s) => /^[23]/.test(s))!;
        const name = `${method.toUpperCase()} ${path}`;
        return seen.get(name)?.has(Number(success)) ? [] : [`${name} ${success}`];
      }),
    );
    expect(missing).toEqual([]);
  });
});
