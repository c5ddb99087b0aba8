import type { Request, Response, Router } from 'express';
import { decodeJwt } from 'jose';
import {
  type MintedToken,
  orderResolution,
  type RedeemOtpProofResponse,
  unresolvedOrdersQuery,
  redeemOtpProofRequest,
  SERVER_PATHS,
  serverLookupParam,
} from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { answering, parseInput, ProxyError } from '../errors.js';
import { requireServerKey } from '../middleware/require-server-key.js';
import type { Orders } from '../order/orders.js';
import { sendJson } from '../respond.js';
import { webhookRoutes } from '../routes/webhook-routes.js';
import type { WebhookAdmin } from '../notify/webhook-admin.js';

/** `{ token, expiresAt }` of a freshly minted token (its `exp` as an ISO date). */
function minted(token: string): MintedToken {
  const { exp } = decodeJwt(token);
  return { token, expiresAt: new Date((exp ?? 0) * 1000).toISOString() };
}

/** A path parameter of a lookup, checked (INVALID_INPUT naming it) before the store is asked. */
function param(req: Request, name: string): string {
  return parseInput(serverLookupParam, String(req.params[name] ?? ''));
}

function found<T>(value: T | null, what: string): T {
  if (value === null) throw new ProxyError('NOT_FOUND', `No such ${what}.`);
  return value;
}

/**
 * The server API (DESIGN: the proxy as a service): the merchant's backend mints element tokens, redeems an
 * OTP proof once and reads payments and checkouts, authenticated by the server key (never an element token).
 * Mounted before the browser routes; the front layer of the router gives `/server/` JSON bodies and size
 * limits but not the browser's origin rule (server-to-server calls carry no Origin).
 *
 * | route | answer |
 * |---|---|
 * | POST /server/tokens/otp, /payment, /checkout | 201 `{ token, expiresAt }` |
 * | POST /server/otp-proofs/redeem `{ proof, purpose }` | 200 `{ msisdn, purpose }`; 409 PROOF_USED; 400 TOKEN_INVALID |
 * | GET /server/orders/:reference/payment, /server/payments/:attemptReference | 200 PaymentSnapshot; 404 |
 * | GET /server/orders/:reference/checkout, /server/checkouts/:checkoutId | 200 CheckoutSnapshot; 404 |
 * | GET /server/orders/unresolved?limit=, POST /server/orders/:reference/resolve | 200 `{ orders }`; 200 the order |
 * | GET /server/webhooks?state=&limit=, POST /server/webhooks/:id/replay | 200 `{ deliveries }`; 202; 404 |
 */
export function serverApiRoutes(router: Router, ctx: ProxyContext, relay: Orders, webhooks: WebhookAdmin): void {
  const key = requireServerKey(ctx);
  const route = (handler: (req: Request, res: Response) => Promise<void>) => [key, answering(handler)] as const;

  router.post(SERVER_PATHS.otpToken, ...route(async (req, res) => sendJson(res, 201, minted(await ctx.tokens.otp(req.body)))));
  router.post(SERVER_PATHS.paymentToken, ...route(async (req, res) => sendJson(res, 201, minted(await ctx.tokens.payment(req.body)))));
  router.post(SERVER_PATHS.checkoutToken, ...route(async (req, res) => sendJson(res, 201, minted(await ctx.tokens.checkout(req.body)))));

  router.post(
    SERVER_PATHS.redeemOtpProof,
    ...route(async (req, res) => {
      const { proof, purpose } = parseInput(redeemOtpProofRequest, req.body);
      const verified = await ctx.tokens.redeemOtpProof(proof, { purpose });
      const answer: RedeemOtpProofResponse = { msisdn: verified.recipient, purpose: verified.purpose };
      sendJson(res, 200, answer);
    }),
  );

  router.get('/server/orders/:reference/payment', ...route(async (req, res) => {
    sendJson(res, 200, found(await relay.payments.get(param(req, 'reference')), 'payment'));
  }));
  router.get('/server/payments/:attemptReference', ...route(async (req, res) => {
    sendJson(res, 200, found(await relay.payments.getAttempt(param(req, 'attemptReference')), 'payment'));
  }));
  router.get('/server/orders/:reference/checkout', ...route(async (req, res) => {
    sendJson(res, 200, found(await relay.checkouts.get(param(req, 'reference')), 'checkout'));
  }));
  router.get('/server/checkouts/:checkoutId', ...route(async (req, res) => {
    sendJson(res, 200, found(await relay.checkouts.getSession(param(req, 'checkoutId')), 'checkout'));
  }));

  // Orders whose money state is not final, and the provider's word on one of them (DESIGN: unknown blocks everything).
  router.get(SERVER_PATHS.unresolvedOrders, ...route(async (req, res) => {
    const { limit } = parseInput(unresolvedOrdersQuery, { ...(req.query as Record<string, unknown>) });
    sendJson(res, 200, { orders: await relay.unresolved(limit) });
  }));
  router.post('/server/orders/:reference/resolve', ...route(async (req, res) => {
    sendJson(res, 200, await relay.resolve(param(req, 'reference'), parseInput(orderResolution, req.body)));
  }));

  // Signed webhooks: list them by state, replay one with the same webhook-id.
  webhookRoutes(router, webhooks, key);

  // Anything else under /server/ is refused the same way before the 404, so the API's shape is not probed
  // without the key.
  router.use('/server', key, (_req: Request, res: Response) => {
    sendJson(res, 404, { error: 'NOT_FOUND', message: 'There is nothing at this address.', details: {} });
  });
}
