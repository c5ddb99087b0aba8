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
      await orders.callback(String(req.params.callbackId ?? ''), namedReferenceId(req.body));
    } catch (err) {
      ctx.logger.warn({ err: describeError(err) }, 'payment callback hint not delivered');
    }
    res.status(204).end();
  }));
}

/**
 * The referenceId a callback's body names (`referenceId`, or `data.referenceId`), if any: never believed, only
 * read by, where the provider reads status by referenceId only. The body arrives as raw bytes.
 */
function namedReferenceId(body: unknown): string | undefined {
  let json: unknown = body;
  if (Buffer.isBuffer(body)) {
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  }
  const named = json as { referenceId?: unknown; data?: { referenceId?: unknown } } | null;
  const id = typeof named?.referenceId === 'string' ? named.referenceId : named?.data?.referenceId;
  return typeof id === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : undefined;
}
