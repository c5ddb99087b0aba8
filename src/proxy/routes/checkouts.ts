import type { Request, Router } from 'express';
import { PROXY_PATHS, checkoutCreateRequest, FINAL_CHECKOUT_VIEW_STATUSES } from '../../protocol/index.js';
import { clientIp, clientKey } from '../client-address.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError } from '../errors.js';
import { withToken } from '../middleware/require-token.js';
import { checkoutStartRoutes } from './checkout-start.js';
import type { CheckoutTry, Order } from '../order/order-record.js';
import type { Orders } from '../order/orders.js';
import { serveEvents } from '../notify/serve-events.js';
import { sendJson } from '../respond.js';
import type { CheckoutClaims } from '../tokens/claims.js';

/**
 * POST /checkouts (the order's hosted session, one live at a time), GET /checkouts/:checkoutId (snapshot) and
 * GET /checkouts/:checkoutId/events (SSE), all with a checkout-scope token; and POST /checkouts/start, the
 * fallback form's way to the same session (checkout-start.ts).
 */
export function checkoutsRoutes(router: Router, ctx: ProxyContext, orders: Orders): void {
  checkoutStartRoutes(router, ctx, orders);
  router.post(PROXY_PATHS.checkouts, withToken(ctx, 'checkout', async (req, res, claims) => {
    parseInput(checkoutCreateRequest, req.body);
    sendJson(res, 201, await orders.checkout(claims));
  }));

  router.get('/checkouts/:checkoutId', withToken(ctx, 'checkout', async (req, res, claims) => {
    const found = await ownedCheckout(orders, claims, req);
    orders.track(found.order.ref);
    sendJson(res, 200, orders.queries.checkoutSnapshot(found));
  }));

  router.get('/checkouts/:checkoutId/events', withToken(ctx, 'checkout', async (req, res, claims) => {
    const found = await ownedCheckout(orders, claims, req);
    const checkoutId = found.s.checkoutId as string;
    serveEvents(ctx, orders, req, res, {
      subject: `checkout:${checkoutId}`,
      client: `${claims.jti}|${clientIp(req)}`,
      address: clientKey(req, ctx.config.ipv6PrefixLength),
      read: async () => {
        const current = await orders.queries.session(checkoutId);
        const snapshot = current ? orders.queries.checkoutSnapshot(current) : null;
        if (!current || !snapshot) return null;
        const final = FINAL_CHECKOUT_VIEW_STATUSES.includes(snapshot.status);
        if (!final) orders.track(current.order.ref);
        return { seq: current.s.seq, snapshot, final };
      },
    });
  }));
}

/** The session named in the path, when it was made for the token's reference; NOT_FOUND otherwise. */
async function ownedCheckout(orders: Orders, claims: CheckoutClaims, req: Request): Promise<{ order: Order; s: CheckoutTry }> {
  const checkoutId = String(req.params.checkoutId ?? '');
  const found = checkoutId ? await orders.queries.session(checkoutId) : null;
  if (!found || found.order.ref !== claims.reference) throw new ProxyError('NOT_FOUND', 'No such checkout session.');
  return found;
}
