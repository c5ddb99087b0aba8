import type { Request, Router } from 'express';
import { PROXY_PATHS, checkoutCreateRequest } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError } from '../errors.js';
import { withToken } from '../middleware/require-token.js';
import { isFinalCheckoutStatus, toCheckoutSnapshot, type CheckoutRecord } from '../payments/checkout-record.js';
import { createCheckout } from '../payments/create-checkout.js';
import { subject } from '../payments/keys.js';
import type { Relay } from '../relay/relay.js';
import { serveEvents } from '../relay/serve-events.js';
import type { CheckoutClaims } from '../tokens/claims.js';
import { clientIp, clientKey } from '../client-address.js';
import { sendJson } from '../respond.js';

/**
 * POST /checkouts (the token's hosted session, created once), GET /checkouts/:checkoutId (snapshot) and
 * GET /checkouts/:checkoutId/events (SSE), all with a checkout-scope token.
 */
export function checkoutsRoutes(router: Router, ctx: ProxyContext, relay: Relay): void {
  router.post(PROXY_PATHS.checkouts, withToken(ctx, 'checkout', async (req, res, claims) => {
    parseInput(checkoutCreateRequest, req.body);
    sendJson(res, 201, await createCheckout(ctx, relay, claims));
  }));

  router.get('/checkouts/:checkoutId', withToken(ctx, 'checkout', async (req, res, claims) => {
    const record = await ownedCheckout(relay, claims, req);
    if (!isFinalCheckoutStatus(record.status)) relay.checkouts.tracker.track(record.checkoutId);
    sendJson(res, 200, toCheckoutSnapshot(record));
  }));

  router.get('/checkouts/:checkoutId/events', withToken(ctx, 'checkout', async (req, res, claims) => {
    const record = await ownedCheckout(relay, claims, req);
    const tracker = relay.checkouts.tracker;
    serveEvents(ctx, relay, req, res, {
      subject: subject.checkout(record.checkoutId),
      client: `${claims.jti}|${clientIp(req)}`,
      address: clientKey(req, ctx.config.ipv6PrefixLength),
      read: async () => {
        const current = await tracker.read(record.checkoutId);
        if (!current) return null;
        const final = isFinalCheckoutStatus(current.status);
        if (!final) tracker.track(current.checkoutId);
        return { seq: current.seq, snapshot: toCheckoutSnapshot(current), final };
      },
    });
  }));

}

/** The session named in the path, when it was made for the token's reference; NOT_FOUND otherwise. */
async function ownedCheckout(relay: Relay, claims: CheckoutClaims, req: Request): Promise<CheckoutRecord> {
  const checkoutId = String(req.params.checkoutId ?? '');
  const record = checkoutId ? await relay.checkouts.tracker.read(checkoutId) : null;
  if (!record || record.reference !== claims.reference) throw new ProxyError('NOT_FOUND', 'No such checkout session.');
  return record;
}
