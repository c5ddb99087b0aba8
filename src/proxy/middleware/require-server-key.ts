import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { clientKey } from '../client-address.js';
import type { ProxyContext } from '../context.js';
import { answerOrPass, ProxyError } from '../errors.js';
import { consume, peek } from '../limits.js';

/**
 * Compares two keys in constant time whatever their lengths: both are hashed with SHA-256 first, so
 * `timingSafeEqual` always compares 32 bytes and the time taken says nothing of the expected key's length.
 */
export function keysEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const POLICY = 'serverKeyFailuresPerIp';

/**
 * The gate of every server API route (the merchant's backend, never a browser): `Authorization: Bearer
 * <PROXY_SERVER_KEY>`, compared in constant time. No key configured → 503 SERVER_API_DISABLED; a missing or
 * wrong key (an element token included) → 401 SERVER_KEY_INVALID, counted per address: past
 * `limits.serverKeyFailuresPerIp` every server call from that address is 429 until the window ends, right
 * key or not (otherwise the answer would still tell a right guess from a wrong one).
 * Exported for the routes other parts add under `/server/` (webhooks).
 */
export function requireServerKey(ctx: ProxyContext) {
  const expected = ctx.config.serverKey;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      if (expected === undefined) {
        throw new ProxyError(
          'SERVER_API_DISABLED',
          'The server API is off: set PROXY_SERVER_KEY (serverKey in code) on the proxy to turn it on.',
        );
      }
      const address = clientKey(req, ctx.config.ipv6PrefixLength);
      const state = await peek(ctx, POLICY, address);
      if (state && state.consumedPoints >= ctx.config.limits[POLICY].points) await consume(ctx, POLICY, address);
      const given = BEARER.exec(req.headers.authorization ?? '')?.[1];
      if (given === undefined || !keysEqual(given, expected)) {
        const log = (req as Request & { log?: Logger }).log ?? ctx.logger;
        log.warn(
          { serverApi: { address, sent: given === undefined ? 'no bearer' : given.split('.').length === 3 ? 'a JWT (an element token?)' : 'a wrong key' } },
          'server API call refused: Authorization must be Bearer PROXY_SERVER_KEY',
        );
        await consume(ctx, POLICY, address).catch((err: unknown) => {
          // The point was counted; the answer to this call is still "wrong key". A store failure still refuses.
          if (err instanceof ProxyError && err.code === 'RATE_LIMITED') return;
          throw err;
        });
        throw new ProxyError('SERVER_KEY_INVALID', 'A valid server key is required: Authorization: Bearer <PROXY_SERVER_KEY>.');
      }
      next();
    } catch (err) {
      answerOrPass(err, res, next);
    }
  };
}
