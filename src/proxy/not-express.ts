import express, { type Express, type Router } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/**
 * True when the router was handed a plain Node request rather than one an Express app prepared: the
 * routes rely on Express's request and response extensions (`req.get`, `req.ip`, `req.protocol`,
 * `res.status`), which only an Express app adds. Fastify's `@fastify/middie`, Connect, or a bare
 * `node:http` handler calling `router(req, res, next)` give plain objects.
 */
export function notExpress(req: IncomingMessage, res: ServerResponse): boolean {
  return typeof (req as { get?: unknown }).get !== 'function' || typeof (res as { status?: unknown }).status !== 'function';
}

/**
 * A small Express app of the router's own, for a router handed plain Node objects: Express's app sets the
 * request's and response's prototypes to its own (`req.get`, `req.ip`, `res.status`, `res.json`) and runs
 * the router. `trust proxy` is the proxy's `trustProxy` (no merchant app is there to set it); no
 * `X-Powered-By`. Logged once at info, so an operator sees how the router runs.
 */
export function expressHost(router: Router, trustProxy: boolean | number | string, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.use(router);
  logger.info({ trustProxy }, 'the merchant proxy router runs outside an Express app (middie, Connect, node:http): in an Express app of its own');
  return app;
}
