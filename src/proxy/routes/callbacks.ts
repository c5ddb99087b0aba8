import type { Request, Response, Router } from 'express';
import type { ProxyContext } from '../context.js';
import { answering } from '../errors.js';
import { KEYS, subject } from '../payments/keys.js';
import type { Relay } from '../relay/relay.js';
import { describeError } from '../relay/relay-core.js';

/**
 * POST /callbacks/payments/:callbackId: the provider's status callback, taken only as a hint to poll
 * now (DESIGN: the body is never trusted; the specification says nothing of its payload or signing).
 * Always 204, for a known callbackId or not, so the route tells a prober nothing. The wake goes through
 * the store, so whichever instance polls the payment reads it at once.
 */
export function callbacksRoutes(router: Router, ctx: ProxyContext, relay: Relay): void {

  router.post('/callbacks/payments/:callbackId', answering(async (req: Request, res: Response) => {
    const callbackId = String(req.params.callbackId ?? '');
    try {
      const reference = /^[A-Za-z0-9_-]{1,64}$/.test(callbackId) ? await ctx.store.get(KEYS.callback(callbackId)) : null;
      if (reference) await relay.hint(subject.payment(reference));
    } catch (err) {
      ctx.logger.warn({ err: describeError(err) }, 'payment callback hint not delivered');
    }
    res.status(204).end();
  }));

}
