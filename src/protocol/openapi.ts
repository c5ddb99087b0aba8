// The OpenAPI 3.1 document of the proxy's HTTP interface (the browser's routes, the server API, health and
// the provider's callback), built from the zod schemas every route parses and answers with, so it cannot
// say other than the code. `npm run docs` writes it to packages/merchant-elements-server/openapi.json (the
// server package ships it); test/docs/openapi.test.ts checks it against a running proxy, route by route.
import { z } from 'zod';
import { type ProxyErrorCode } from './codes.js';
import { proxyErrorBody } from './errors.js';
import { OPERATOR_PATHS, SERVER_PATHS, PROXY_PATHS } from './paths.js';
import {
  accountLookupRequest,
  accountLookupResponse,
  checkoutCreateRequest,
  checkoutCreateResponse,
  checkoutSnapshot,
  healthResponse,
  orderView,
  otpDeliveryResponse,
  otpSendRequest,
  otpSendResponse,
  otpVerifyRequest,
  otpVerifyResponse,
  paymentCreateRequest,
  paymentSnapshot,
  readinessResponse,
} from './schemas.js';
import {
  checkoutTokenInput,
  mintedToken,
  orderResolution,
  otpTokenInput,
  paymentTokenInput,
  redeemOtpProofRequest,
  redeemOtpProofResponse,
  unresolvedOrder,
  unresolvedOrderList,
  unresolvedOrdersQuery,
  webhookList,
  webhookListQuery,
  webhookReplayed,
  webhookBulkReplay,
  webhookBulkReplayed,
  webhookRetrying,
} from './server-schemas.js';
import { ERROR_STATUS } from './statuses.js';

/** Who may call a route, and with what. */
type Caller = 'element' | 'server' | 'provider' | 'operator';

/** One operation of the document. */
export interface ApiRoute {
  method: 'get' | 'post';
  /** OpenAPI's form, `{name}` for a parameter, relative to the mount path. */
  path: string;
  caller: Caller;
  summary: string;
  /** The JSON body, when the route takes one. */
  body?: z.ZodType;
  query?: z.ZodObject;
  /** The success answer: its status, its JSON schema (none: no body), or the data of its `status` events. */
  ok: { status: number; json?: z.ZodType; events?: z.ZodType; description: string };
  /** Error codes this route may answer besides its caller's common ones. */
  errors?: ProxyErrorCode[];
  /** Codes this route answers with another status than their usual one (a refused proof is a 400, not a 401). */
  statusOf?: Partial<Record<ProxyErrorCode, number>>;
  /** A second answer with the success schema (GET /health: 503 with the same body). */
  alsoAnswers?: number;
}

/** `PROXY_PATHS.payment` and friends with OpenAPI's `{name}` in place of the argument. */
function template(path: (arg: string) => string, name: string): string {
  return path('\u0000').replace(encodeURIComponent('\u0000'), `{${name}}`);
}

const ELEMENT_COMMON: ProxyErrorCode[] = [
  'TOKEN_INVALID', 'TOKEN_EXPIRED', 'ORIGIN_NOT_ALLOWED', 'RATE_LIMITED', 'NOT_FOUND', 'UPSTREAM_UNAVAILABLE', 'INTERNAL',
];
const SERVER_COMMON: ProxyErrorCode[] = ['SERVER_KEY_INVALID', 'SERVER_API_DISABLED', 'RATE_LIMITED', 'NOT_FOUND', 'UPSTREAM_UNAVAILABLE', 'INTERNAL'];
/** What any POST may meet before its route: a body that is not JSON, too large, unparsable or too slow. */
const BODY_ERRORS: ProxyErrorCode[] = ['INVALID_INPUT', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];

/** Every route of the proxy's router, in the order a reader meets them. */
export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'post', path: PROXY_PATHS.otpSend, caller: 'element', summary: 'Send a code by SMS to the number (OTP token)',
    body: otpSendRequest, ok: { status: 200, json: otpSendResponse, description: 'The code was sent; the number comes back masked' },
    errors: ['HUMAN_CHECK_FAILED', 'INVALID_PHONE_NUMBER', 'OTP_LOCKED', 'UPSTREAM_ERROR'],
  },
  {
    method: 'post', path: PROXY_PATHS.otpVerify, caller: 'element', summary: 'Check a code; a right one is answered with a proof for the shop',
    body: otpVerifyRequest, ok: { status: 200, json: otpVerifyResponse, description: 'Verified: the proof to redeem on the server' },
    errors: ['OTP_INVALID', 'OTP_EXPIRED', 'OTP_LOCKED', 'INVALID_PHONE_NUMBER', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', path: template(PROXY_PATHS.otpDelivery, 'otpId'), caller: 'element', summary: "The code's SMS delivery status",
    ok: { status: 200, json: otpDeliveryResponse, description: 'From the provider’s delivery receipt' }, errors: ['UPSTREAM_ERROR'],
  },
  {
    method: 'post', path: PROXY_PATHS.accountLookup, caller: 'element', summary: "The mobile-money account holder's name (payment token)",
    body: accountLookupRequest, ok: { status: 200, json: accountLookupResponse, description: 'The account, its holder’s name shortened unless configured' },
    errors: ['ACCOUNT_NOT_FOUND', 'INVALID_PHONE_NUMBER', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', path: PROXY_PATHS.order, caller: 'element', summary: "Where the token's order stands: its payment, the tries left, what a new try would meet, the charge to expect",
    ok: { status: 200, json: orderView, description: 'The order as a page should show it from its first paint' },
    errors: ['ORDER_CHANGED'],
  },
  {
    method: 'post', path: PROXY_PATHS.payments, caller: 'element', summary: "Start (or rejoin) the token's order payment on a number",
    body: paymentCreateRequest, ok: { status: 202, json: paymentSnapshot, description: 'The attempt, pending on the phone (or the order’s live one)' },
    errors: ['INVALID_PHONE_NUMBER', 'INSUFFICIENT_FUNDS', 'PAYMENT_FAILED', 'ATTEMPTS_EXHAUSTED', 'ORDER_CHANGED', 'PAYMENT_IN_PROGRESS',
      'ORDER_IN_OTHER_PAYMENT', 'PAYMENT_UNCONFIRMED', 'REFERENCE_CONFLICT', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', path: template(PROXY_PATHS.payment, 'reference'), caller: 'element', summary: 'An attempt of the token’s order',
    ok: { status: 200, json: paymentSnapshot, description: 'The attempt as the proxy reads it' },
  },
  {
    method: 'get', path: template(PROXY_PATHS.paymentEvents, 'reference'), caller: 'element', summary: 'Server-sent `status` events of an attempt until it is final',
    ok: { status: 200, events: paymentSnapshot, description: '`text/event-stream`: a `status` event (a payment snapshot) per change, a comment every 20 s' },
  },
  {
    method: 'post', path: PROXY_PATHS.checkouts, caller: 'element', summary: "Create (or reuse) the token's hosted checkout session",
    body: checkoutCreateRequest, ok: { status: 201, json: checkoutCreateResponse, description: 'The session and the page to send the customer to' },
    errors: ['ORDER_CHANGED', 'ORDER_IN_OTHER_PAYMENT', 'PAYMENT_UNCONFIRMED', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', path: template(PROXY_PATHS.checkout, 'checkoutId'), caller: 'element', summary: 'A checkout session of the token’s order',
    ok: { status: 200, json: checkoutSnapshot, description: 'The session as the proxy reads it' },
  },
  {
    method: 'get', path: template(PROXY_PATHS.checkoutEvents, 'checkoutId'), caller: 'element', summary: 'Server-sent `status` events of a session until it is final',
    ok: { status: 200, events: checkoutSnapshot, description: '`text/event-stream`: a `status` event (a checkout snapshot) per change' },
  },
  {
    method: 'post', path: template(PROXY_PATHS.paymentCallback, 'callbackId'), caller: 'provider', summary: 'The provider’s payment callback: a hint to read the payment now',
    ok: { status: 204, description: 'Heard; the body is never believed' },
  },
  {
    method: 'get', path: PROXY_PATHS.health, caller: 'operator', summary: 'Liveness: the process answers (the store and the circuits are reported, never a reason to restart it)',
    ok: { status: 200, json: healthResponse, description: 'Alive' },
  },
  {
    method: 'get', path: OPERATOR_PATHS.ready, caller: 'operator', summary: 'Readiness: the store answers and each provider interface answered a cheap read',
    ok: { status: 200, json: readinessResponse, description: 'Ready' }, alsoAnswers: 503,
  },
  {
    method: 'post', path: SERVER_PATHS.otpToken, caller: 'server', summary: 'Mint an `<otp-verify>` token',
    body: otpTokenInput, ok: { status: 201, json: mintedToken, description: 'The token and its expiry' },
  },
  {
    method: 'post', path: SERVER_PATHS.paymentToken, caller: 'server', summary: 'Mint a `<pay-by-mobile>` token: the amount and the order reference are yours',
    body: paymentTokenInput, ok: { status: 201, json: mintedToken, description: 'The token and its expiry' },
  },
  {
    method: 'post', path: SERVER_PATHS.checkoutToken, caller: 'server', summary: 'Mint a `<checkout-button>` token',
    body: checkoutTokenInput, ok: { status: 201, json: mintedToken, description: 'The token and its expiry' },
  },
  {
    method: 'post', path: SERVER_PATHS.redeemOtpProof, caller: 'server', summary: 'Redeem the proof a verified `<otp-verify>` put in your form, once',
    body: redeemOtpProofRequest, ok: { status: 200, json: redeemOtpProofResponse, description: 'The verified number (digits, no +) and the purpose' },
    errors: ['TOKEN_INVALID', 'PROOF_USED'], statusOf: { TOKEN_INVALID: 400 },
  },
  {
    method: 'get', path: template(SERVER_PATHS.orderPayment, 'reference'), caller: 'server', summary: 'Your order’s payment: its completed attempt, else its current one',
    ok: { status: 200, json: paymentSnapshot, description: 'The order’s payment' },
  },
  {
    method: 'get', path: template(SERVER_PATHS.payment, 'attemptReference'), caller: 'server', summary: 'One attempt, by its own reference (`ORDER-1042-2`)',
    ok: { status: 200, json: paymentSnapshot, description: 'The attempt' },
  },
  {
    method: 'get', path: template(SERVER_PATHS.orderCheckout, 'reference'), caller: 'server', summary: 'Your order’s checkout: its completed session, else its latest',
    ok: { status: 200, json: checkoutSnapshot, description: 'The order’s checkout' },
  },
  {
    method: 'get', path: template(SERVER_PATHS.checkout, 'checkoutId'), caller: 'server', summary: 'One checkout session, by its id',
    ok: { status: 200, json: checkoutSnapshot, description: 'The session' },
  },
  {
    method: 'get', path: SERVER_PATHS.unresolvedOrders, caller: 'server', summary: 'Orders whose money state is not final, with what is known of each open try and session',
    query: unresolvedOrdersQuery, ok: { status: 200, json: unresolvedOrderList, description: 'The orders' }, errors: ['INVALID_INPUT'],
  },
  {
    method: 'post', path: template(SERVER_PATHS.resolveOrder, 'reference'), caller: 'server',
    summary: "Resolve an order's unknown try or session with the provider's word (a referenceId or checkoutId read and checked, or absent)",
    body: orderResolution, ok: { status: 200, json: unresolvedOrder, description: 'The order as it stands after' }, errors: ['REFERENCE_CONFLICT', 'PAYMENT_UNCONFIRMED'],
  },
  {
    method: 'get', path: SERVER_PATHS.webhooks, caller: 'server', summary: 'Signed webhooks by state, newest first',
    query: webhookListQuery, ok: { status: 200, json: webhookList, description: 'The deliveries' }, errors: ['INVALID_INPUT'],
  },
  {
    method: 'post', path: template(SERVER_PATHS.webhookReplay, 'id'), caller: 'server',
    summary: 'Deliver a webhook again, with the same `webhook-id` (no body; send `Content-Type: application/json` as on every POST)',
    ok: { status: 202, json: webhookReplayed, description: 'Queued for delivery' },
  },
  {
    method: 'post', path: SERVER_PATHS.webhooksReplay, caller: 'server', summary: 'Deliver every dead (or delivered) webhook again, each with its `webhook-id`',
    body: webhookBulkReplay, ok: { status: 202, json: webhookBulkReplayed, description: 'The ids queued again, oldest first' },
  },
  {
    method: 'post', path: SERVER_PATHS.webhooksRetry, caller: 'server', summary: 'Try every pending webhook now rather than at the end of its backoff (no body)',
    ok: { status: 202, json: webhookRetrying, description: 'How many were pending' },
  },
];

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without the `$schema` line. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** Every error code a route may answer: its caller's common ones, a POST's body refusals, its own. */
export function routeErrors(route: ApiRoute): ProxyErrorCode[] {
  if (route.caller === 'operator') return [];
  const common = route.caller === 'element' ? ELEMENT_COMMON : route.caller === 'server' ? SERVER_COMMON : ['INTERNAL' as const];
  return [...new Set<ProxyErrorCode>([...common, ...(route.method === 'post' ? BODY_ERRORS : []), ...(route.errors ?? [])])];
}

/** The error codes a route may answer, by HTTP status (a body that arrives too slowly: 408 INVALID_INPUT). */
function errorsByStatus(route: ApiRoute): Map<number, ProxyErrorCode[]> {
  const byStatus = new Map<number, ProxyErrorCode[]>();
  const add = (status: number, code: ProxyErrorCode) => byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of routeErrors(route)) add(route.statusOf?.[code] ?? ERROR_STATUS[code], code);
  if (route.method === 'post') add(408, 'INVALID_INPUT');
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** The whole OpenAPI 3.1 document. */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of API_ROUTES) {
    const name = (route.path.match(/\{(\w+)\}/g) ?? []).map((p) => p.slice(1, -1));
    const responses: Record<string, unknown> = {};
    const ok = route.ok;
    const content = ok.json
      ? { 'application/json': { schema: jsonSchema(ok.json, 'output') } }
      : ok.events
        ? { 'text/event-stream': { schema: { type: 'string' }, 'x-event-name': 'status', 'x-event-data': jsonSchema(ok.events, 'output') } }
        : undefined;
    responses[String(ok.status)] = { description: ok.description, ...(content ? { content } : {}) };
    if (route.alsoAnswers) responses[String(route.alsoAnswers)] = { description: 'Not healthy (the same body)', ...(content ? { content } : {}) };
    for (const [status, codes] of errorsByStatus(route)) {
      const body = jsonSchema(proxyErrorBody, 'output') as { properties: Record<string, unknown> };
      body.properties.error = { type: 'string', enum: codes };
      responses[String(status)] = { description: codes.join(', '), content: { 'application/json': { schema: body } } };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      summary: route.summary,
      tags: [route.caller],
      ...(route.caller === 'element' ? { security: [{ elementToken: [] }] } : route.caller === 'server' ? { security: [{ serverKey: [] }] } : { security: [] }),
      parameters: [
        ...name.map((n) => ({ name: n, in: 'path', required: true, schema: { type: 'string' } })),
        ...Object.entries((route.query ? jsonSchema(route.query, 'input') : { properties: {} }).properties as Record<string, unknown>).map(([n, schema]) => ({
          name: n, in: 'query', required: false, schema,
        })),
      ],
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'merchant-elements proxy',
      version,
      description:
        'The merchant proxy of merchant-elements: the routes its elements call with an element token, the server API your backend ' +
        'calls with its server key (under /server/), the provider’s payment callback and /health. Paths are relative to the mount path. ' +
        'Every error answers { error, message, details } with a stable code. Generated from the zod schemas of src/protocol.',
    },
    servers: [{ url: '/merchant-elements', description: 'the default mount path (PROXY_PATH)' }],
    tags: [
      { name: 'element', description: 'Called by the elements, with the token your server minted for the page (Authorization: Bearer)' },
      { name: 'server', description: 'The server API: your backend only, with Authorization: Bearer <PROXY_SERVER_KEY>' },
      { name: 'provider', description: 'Called by the provider' },
      { name: 'operator', description: 'For probes and operators' },
    ],
    components: {
      securitySchemes: {
        elementToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An element token (docs/tokens.md)' },
        serverKey: { type: 'http', scheme: 'bearer', description: 'PROXY_SERVER_KEY' },
      },
    },
    paths,
  };
}
