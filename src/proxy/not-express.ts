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

/** What to do instead, in the answer and the log line. */
export const NOT_EXPRESS_FIX =
  'mount proxy.router on an Express app (app.use("/merchant-elements", proxy.router)); with Fastify register ' +
  '@fastify/express (not @fastify/middie) and mount it there; with Next.js or any other server, run ' +
  '`merchant-elements serve` and forward /merchant-elements to it (a rewrite or a reverse proxy)';

const warned = new WeakSet<Logger>();

/**
 * Answers 500 INTERNAL in the protocol's error shape with the fix in the message (written with Node's own
 * calls: Express's are missing), and logs the fix at error level once per proxy.
 */
export function refuseNotExpress(req: IncomingMessage, res: ServerResponse, logger: Logger): void {
  if (!warned.has(logger)) {
    warned.add(logger);
    logger.error({ fix: NOT_EXPRESS_FIX, path: (req.url ?? '').split('?')[0] }, 'the merchant proxy router runs only inside an Express app');
  }
  const body = JSON.stringify({
    error: 'INTERNAL',
    message: `The merchant proxy is mounted outside Express: ${NOT_EXPRESS_FIX}.`,
    details: { reason: 'NOT_EXPRESS' },
  });
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
