import type { Request, Response, Router } from 'express';
import { PROXY_PATHS, type HealthResponse } from '../../protocol/index.js';
import { PROVIDER_INTERFACES, type CircuitCalls, type CircuitStateName, type ProviderInterface } from '../../provider/types.js';
import type { ProxyContext } from '../context.js';
import { answering } from '../errors.js';
import { sendJson } from '../respond.js';

/** The state of each provider interface's circuit for one kind of call; without `calls`, the worse of its two. */
export function circuitsOf(ctx: ProxyContext, calls?: CircuitCalls): Record<ProviderInterface, CircuitStateName> {
  return Object.fromEntries(PROVIDER_INTERFACES.map((name) => [name, ctx.client.circuitState(name, calls)])) as Record<ProviderInterface, CircuitStateName>;
}

/**
 * GET /health, liveness: 200 whenever the process answers, with what it sees (each interface's circuit, the
 * store and whether it answers a ping). A store or provider outage is not a reason to restart this process
 * (a restart brings neither back), so it never turns this answer into a 503: readiness (`/ready`) does that.
 */
export function healthRoutes(router: Router, ctx: ProxyContext): void {
  router.get(PROXY_PATHS.health, answering(async (_req: Request, res: Response) => {
    const storeOk = await ctx.store.ping().catch(() => false);
    const answer: HealthResponse = { ok: true, upstream: { circuits: circuitsOf(ctx), store: ctx.store.kind, storeOk } };
    sendJson(res, 200, answer);
  }));
}
