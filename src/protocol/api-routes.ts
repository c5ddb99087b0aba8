// The proxy's HTTP interface as a table: every route of its router, who calls it, the zod schemas it parses
// and answers with, and the errors it may answer. The OpenAPI document (openapi.ts), docs/server-api.md
// and the error-code table of docs/troubleshooting.md are all generated from it.
import { z } from 'zod';
import { type ProxyErrorCode } from './codes.js';
import { proxyErrorBody } from './errors.js';
import { OPERATOR_PATHS, SERVER_PATHS, PROXY_PATHS } from './paths.js';
import {
  accountLookupRequest,
  accountLookupResponse,
  checkoutCreateRequest,
  checkoutCreateResponse,
  checkoutStartForm,
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
  webhookBulkReplay,
  webhookBulkReplayed,
  webhookList,
  webhookListQuery,
  webhookReplayed,
  webhookRetrying,
} from './server-schemas.js';

/** Who may call a route, and with what. */
type Caller = 'element' | 'server' | 'provider' | 'operator';

/** One operation of the document. */
export interface ApiRoute {
  /** The operation's name in the document: a generated client's method and types are named after it. */
  operationId: string;
  method: 'get' | 'post';
  /** OpenAPI's form, `{name}` for a parameter, relative to the mount path. */
  path: string;
  caller: Caller;
  summary: string;
  /** The JSON body, when the route takes one. */
  body?: z.ZodType;
  /** The body is a form (`application/x-www-form-urlencoded`, a browser's plain form) carrying the token, not JSON with a bearer token. */
  form?: true;
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
    method: 'post', operationId: 'sendOtp', path: PROXY_PATHS.otpSend, caller: 'element', summary: 'Send a code by SMS to the number (OTP token)',
    body: otpSendRequest, ok: { status: 200, json: otpSendResponse, description: 'The code was sent; the number comes back masked' },
    errors: ['HUMAN_CHECK_FAILED', 'INVALID_PHONE_NUMBER', 'OTP_LOCKED', 'UPSTREAM_ERROR'],
  },
  {
    method: 'post', operationId: 'verifyOtp', path: PROXY_PATHS.otpVerify, caller: 'element', summary: 'Check a code; a right one is answered with a proof for the shop',
    body: otpVerifyRequest, ok: { status: 200, json: otpVerifyResponse, description: 'Verified: the proof to redeem on the server' },
    errors: ['OTP_INVALID', 'OTP_EXPIRED', 'OTP_LOCKED', 'INVALID_PHONE_NUMBER', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', operationId: 'getOtpDelivery', path: template(PROXY_PATHS.otpDelivery, 'otpId'), caller: 'element', summary: "The code's SMS delivery status",
    ok: { status: 200, json: otpDeliveryResponse, description: 'From the provider’s delivery receipt' }, errors: ['UPSTREAM_ERROR'],
  },
  {
    method: 'post', operationId: 'lookupAccount', path: PROXY_PATHS.accountLookup, caller: 'element', summary: "The mobile-money account holder's name (payment token)",
    body: accountLookupRequest, ok: { status: 200, json: accountLookupResponse, description: 'The account, its holder’s name shortened unless configured' },
    errors: ['ACCOUNT_NOT_FOUND', 'INVALID_PHONE_NUMBER', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', operationId: 'getOrder', path: PROXY_PATHS.order, caller: 'element', summary: "Where the token's order stands: its payment, the tries left, what a new try would meet, the charge to expect",
    ok: { status: 200, json: orderView, description: 'The order as a page should show it from its first paint' },
    errors: ['ORDER_CHANGED'],
  },
  {
    method: 'post', operationId: 'createPayment', path: PROXY_PATHS.payments, caller: 'element', summary: "Start (or rejoin) the token's order payment on a number",
    body: paymentCreateRequest, ok: { status: 202, json: paymentSnapshot, description: 'The attempt, pending on the phone (or the order’s live one)' },
    errors: ['INVALID_PHONE_NUMBER', 'INSUFFICIENT_FUNDS', 'PAYMENT_FAILED', 'ATTEMPTS_EXHAUSTED', 'ORDER_CHANGED', 'PAYMENT_IN_PROGRESS',
      'ORDER_IN_OTHER_PAYMENT', 'PAYMENT_UNCONFIRMED', 'REFERENCE_CONFLICT', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', operationId: 'getPayment', path: template(PROXY_PATHS.payment, 'reference'), caller: 'element', summary: 'An attempt of the token’s order',
    ok: { status: 200, json: paymentSnapshot, description: 'The attempt as the proxy reads it' },
  },
  {
    method: 'get', operationId: 'streamPaymentEvents', path: template(PROXY_PATHS.paymentEvents, 'reference'), caller: 'element', summary: 'Server-sent `status` events of an attempt until it is final',
    ok: { status: 200, events: paymentSnapshot, description: '`text/event-stream`: a `status` event (a payment snapshot) per change, a comment every 20 s' },
  },
  {
    method: 'post', operationId: 'createCheckout', path: PROXY_PATHS.checkouts, caller: 'element', summary: "Create (or reuse) the token's hosted checkout session",
    body: checkoutCreateRequest, ok: { status: 201, json: checkoutCreateResponse, description: 'The session and the page to send the customer to' },
    errors: ['ORDER_CHANGED', 'ORDER_IN_OTHER_PAYMENT', 'PAYMENT_UNCONFIRMED', 'UPSTREAM_ERROR'],
  },
  {
    method: 'post', operationId: 'startCheckout', path: PROXY_PATHS.checkoutStart, caller: 'element', form: true,
    summary: "`<checkout-button>`'s fallback form: the token's session as `POST /checkouts` makes it, the browser sent there",
    body: checkoutStartForm,
    ok: { status: 303, description: "`Location`: the session's `checkoutUrl`. A refusal is answered to a browser (`Accept: text/html`) as a page saying what to do, with a link back to the page it came from; to other clients in the error shape" },
    errors: ['ORDER_CHANGED', 'ORDER_IN_OTHER_PAYMENT', 'PAYMENT_UNCONFIRMED', 'UPSTREAM_ERROR'],
  },
  {
    method: 'get', operationId: 'getCheckout', path: template(PROXY_PATHS.checkout, 'checkoutId'), caller: 'element', summary: 'A checkout session of the token’s order',
    ok: { status: 200, json: checkoutSnapshot, description: 'The session as the proxy reads it' },
  },
  {
    method: 'get', operationId: 'streamCheckoutEvents', path: template(PROXY_PATHS.checkoutEvents, 'checkoutId'), caller: 'element', summary: 'Server-sent `status` events of a session until it is final',
    ok: { status: 200, events: checkoutSnapshot, description: '`text/event-stream`: a `status` event (a checkout snapshot) per change' },
  },
  {
    method: 'post', operationId: 'paymentCallback', path: template(PROXY_PATHS.paymentCallback, 'callbackId'), caller: 'provider', summary: 'The provider’s payment callback: a hint to read the payment now',
    ok: { status: 204, description: 'Heard; the body is never believed' },
  },
  {
    method: 'get', operationId: 'getHealth', path: PROXY_PATHS.health, caller: 'operator', summary: 'Liveness: the process answers (the store and the circuits are reported, never a reason to restart it)',
    ok: { status: 200, json: healthResponse, description: 'Alive' },
  },
  {
    method: 'get', operationId: 'getReady', path: OPERATOR_PATHS.ready, caller: 'operator', summary: 'Readiness: the store answers and each provider interface answered a cheap read',
    ok: { status: 200, json: readinessResponse, description: 'Ready' }, alsoAnswers: 503,
  },
  {
    method: 'post', operationId: 'mintOtpToken', path: SERVER_PATHS.otpToken, caller: 'server', summary: 'Mint an `<otp-verify>` token',
    body: otpTokenInput, ok: { status: 201, json: mintedToken, description: 'The token and its expiry' },
  },
  {
    method: 'post', operationId: 'mintPaymentToken', path: SERVER_PATHS.paymentToken, caller: 'server', summary: 'Mint a `<pay-by-mobile>` token: the amount and the order reference are yours',
    body: paymentTokenInput, ok: { status: 201, json: mintedToken, description: 'The token and its expiry' },
  },
  {
    method: 'post', operationId: 'mintCheckoutToken', path: SERVER_PATHS.checkoutToken, caller: 'server', summary: 'Mint a `<checkout-button>` token',
    body: checkoutTokenInput, ok: { status: 201, json: mintedToken, description: 'The token and its expiry' },
  },
  {
    method: 'post', operationId: 'redeemOtpProof', path: SERVER_PATHS.redeemOtpProof, caller: 'server', summary: 'Redeem the proof a verified `<otp-verify>` put in your form, once',
    body: redeemOtpProofRequest, ok: { status: 200, json: redeemOtpProofResponse, description: 'The verified number (digits, no +) and the purpose' },
    errors: ['TOKEN_INVALID', 'PROOF_USED'], statusOf: { TOKEN_INVALID: 400 },
  },
  {
    method: 'get', operationId: 'getOrderPayment', path: template(SERVER_PATHS.orderPayment, 'reference'), caller: 'server', summary: 'Your order’s payment: its completed attempt, else its current one',
    ok: { status: 200, json: paymentSnapshot, description: 'The order’s payment' },
  },
  {
    method: 'get', operationId: 'getPaymentAttempt', path: template(SERVER_PATHS.payment, 'attemptReference'), caller: 'server', summary: 'One attempt, by its own reference (`ORDER-1042-2`)',
    ok: { status: 200, json: paymentSnapshot, description: 'The attempt' },
  },
  {
    method: 'get', operationId: 'getOrderCheckout', path: template(SERVER_PATHS.orderCheckout, 'reference'), caller: 'server', summary: 'Your order’s checkout: its completed session, else its latest',
    ok: { status: 200, json: checkoutSnapshot, description: 'The order’s checkout' },
  },
  {
    method: 'get', operationId: 'getCheckoutSession', path: template(SERVER_PATHS.checkout, 'checkoutId'), caller: 'server', summary: 'One checkout session, by its id',
    ok: { status: 200, json: checkoutSnapshot, description: 'The session' },
  },
  {
    method: 'get', operationId: 'listUnresolvedOrders', path: SERVER_PATHS.unresolvedOrders, caller: 'server', summary: 'Orders whose money state is not final, with what is known of each open try and session',
    query: unresolvedOrdersQuery, ok: { status: 200, json: unresolvedOrderList, description: 'The orders' }, errors: ['INVALID_INPUT'],
  },
  {
    method: 'post', operationId: 'resolveOrder', path: template(SERVER_PATHS.resolveOrder, 'reference'), caller: 'server',
    summary: "Resolve an order's unknown try or session with the provider's word (a referenceId or checkoutId read and checked, or absent)",
    body: orderResolution, ok: { status: 200, json: unresolvedOrder, description: 'The order as it stands after' }, errors: ['REFERENCE_CONFLICT', 'PAYMENT_UNCONFIRMED'],
  },
  {
    method: 'get', operationId: 'listWebhooks', path: SERVER_PATHS.webhooks, caller: 'server', summary: 'Signed webhooks by state, newest first',
    query: webhookListQuery, ok: { status: 200, json: webhookList, description: 'The deliveries' }, errors: ['INVALID_INPUT'],
  },
  {
    method: 'post', operationId: 'replayWebhook', path: template(SERVER_PATHS.webhookReplay, 'id'), caller: 'server',
    summary: 'Deliver a webhook again, with the same `webhook-id` (no body; send `Content-Type: application/json` as on every POST)',
    ok: { status: 202, json: webhookReplayed, description: 'Queued for delivery' },
  },
  {
    method: 'post', operationId: 'replayWebhooks', path: SERVER_PATHS.webhooksReplay, caller: 'server', summary: 'Deliver every dead (or delivered) webhook again, each with its `webhook-id`',
    body: webhookBulkReplay, ok: { status: 202, json: webhookBulkReplayed, description: 'The ids queued again, oldest first' },
  },
  {
    method: 'post', operationId: 'retryWebhooks', path: SERVER_PATHS.webhooksRetry, caller: 'server', summary: 'Try every pending webhook now rather than at the end of its backoff (no body)',
    ok: { status: 202, json: webhookRetrying, description: 'How many were pending' },
  },
];


/** Every error code a route may answer: its caller's common ones, a POST's body refusals, its own. */
export function routeErrors(route: ApiRoute): ProxyErrorCode[] {
  if (route.caller === 'operator') return [];
  const common = route.caller === 'element' ? ELEMENT_COMMON : route.caller === 'server' ? SERVER_COMMON : ['INTERNAL' as const];
  return [...new Set<ProxyErrorCode>([...common, ...(route.method === 'post' ? BODY_ERRORS : []), ...(route.errors ?? [])])];
}

/**
 * The schemas the OpenAPI document names under `components.schemas`, which a generated client names its
 * types after: the bodies the routes parse (read as input) and what they answer (read as output). Every
 * body and answer of API_ROUTES is one of them, and one inside another is a `$ref` to it.
 */
export const REQUEST_SCHEMAS = {
  OtpSendRequest: otpSendRequest,
  OtpVerifyRequest: otpVerifyRequest,
  AccountLookupRequest: accountLookupRequest,
  PaymentCreateRequest: paymentCreateRequest,
  CheckoutCreateRequest: checkoutCreateRequest,
  CheckoutStartForm: checkoutStartForm,
  OtpTokenInput: otpTokenInput,
  PaymentTokenInput: paymentTokenInput,
  CheckoutTokenInput: checkoutTokenInput,
  RedeemOtpProofRequest: redeemOtpProofRequest,
  OrderResolution: orderResolution,
  WebhookBulkReplay: webhookBulkReplay,
} satisfies Record<string, z.ZodType>;

export const RESPONSE_SCHEMAS = {
  OtpSendResponse: otpSendResponse,
  OtpVerifyResponse: otpVerifyResponse,
  OtpDeliveryResponse: otpDeliveryResponse,
  AccountLookupResponse: accountLookupResponse,
  OrderView: orderView,
  PaymentSnapshot: paymentSnapshot,
  CheckoutCreateResponse: checkoutCreateResponse,
  CheckoutSnapshot: checkoutSnapshot,
  HealthResponse: healthResponse,
  ReadinessResponse: readinessResponse,
  MintedToken: mintedToken,
  RedeemOtpProofResponse: redeemOtpProofResponse,
  UnresolvedOrderList: unresolvedOrderList,
  UnresolvedOrder: unresolvedOrder,
  WebhookList: webhookList,
  WebhookReplayed: webhookReplayed,
  WebhookBulkReplayed: webhookBulkReplayed,
  WebhookRetrying: webhookRetrying,
  ErrorBody: proxyErrorBody,
} satisfies Record<string, z.ZodType>;
