import type { Request, Response, Router } from 'express';
import { PROXY_PATHS, type HealthResponse } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { answering } from '../errors.js';
import { sendJson } from '../respond.js';

/**
 * GET /health: the circuit breaker's state and whether the store answers. 200 when both are fine, 503
 * (same body) when the store fails or the circuit is open, so a load balancer can act on the status.
 */
export function healthRoutes(router: Router, ctx: ProxyContext): void {
  router.get(PROXY_PATHS.health, answering(async (_req: Request, res: Response) => {
    const storeOk = await ctx.store.ping().catch(() => false);
    const circuit = ctx.client.circuitState();
    const ok = storeOk && circuit !== 'open';
    const answer: HealthResponse = { ok, upstream: { circuit, store: ctx.store.kind, storeOk } };
    sendJson(res, ok ? 200 : 503, answer);
  }));
}
