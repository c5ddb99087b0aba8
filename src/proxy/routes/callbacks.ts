import type { Request, Response, Router } from 'express';
import type { ProxyContext } from '../context.js';
import { answering } from '../errors.js';
import type { Orders } from '../order/orders.js';
import { describeError } from '../describe-error.js';

/**
 * POST /callbacks/payments/:callbackId: the provider's status callback, taken only as a hint to read now
 * (DESIGN: the body is never trusted; the specification says nothing of its payload or signing). Always 204,
 * for a known callbackId or not, so the route tells a prober nothing. The wake goes through the store, so
 * whichever instance reads the order reads it at once.
 */
export function callbacksRoutes(router: Router, ctx: ProxyContext, orders: Orders): void {
  router.post('/callbacks/payments/:callbackId', answering(async (req: Request, res: Response) => {
    try {
      await orders.callback(String(req.params.callbackId ?? ''), req.body);
    } catch (err) {
      ctx.logger.warn({ err: describeError(err) }, 'payment callback hint not delivered');
    }
    res.status(204).end();
  }));
}
