import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { clientKey } from '../client-address.js';
import type { ProxyContext } from '../context.js';
import { answerOrPass, ProxyError, rateLimited } from '../errors.js';
import { requestLog } from '../logger.js';

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
 * <PROXY_SERVER_KEY>`, compared in constant time. No key configured → 503 SERVER_API_DISABLED. The right key
 * always passes, whatever came from its address before: behind a rewrite or a shared egress every caller has
 * the backend's address, and a lock on the address let anyone stop the backend minting tokens. A missing or
 * wrong key (an element token included) → 401 SERVER_KEY_INVALID, counted per address; past
 * `limits.serverKeyFailuresPerIp` the wrong ones are answered 429 with Retry-After until the window ends and
 * logged once, not each. The limit keeps logs and work small; the key's size is what keeps a guesser out.
 * Exported for the routes other parts add under `/server/` (webhooks).
 */
export function requireServerKey(ctx: ProxyContext) {
  const expected = ctx.config.serverKey;
  const policy = ctx.config.limits[POLICY];
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      if (expected === undefined) {
        throw new ProxyError(
          'SERVER_API_DISABLED',
          'The server API is off: set PROXY_SERVER_KEY (serverKey in code) on the proxy to turn it on.',
        );
      }
      const given = BEARER.exec(req.headers.authorization ?? '')?.[1];
      if (given !== undefined && keysEqual(given, expected)) {
        next();
        return;
      }
      const address = clientKey(req, ctx.config.ipv6PrefixLength);
      const log = requestLog(ctx.logger, req);
      const sent = given === undefined ? 'no bearer' : given.split('.').length === 3 ? 'a JWT (an element token?)' : 'a wrong key';
      let refused: RateLimiterRes | undefined;
      try {
        await ctx.limiter(POLICY, policy).consume(address);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) refused = rejection;
        // A store that cannot count: the answer is still the truth, a wrong key.
        else log.error({ policy: POLICY, reason: rejection instanceof Error ? rejection.message : String(rejection) }, 'rate limit store failed: wrong server key not counted');
      }
      if (refused === undefined) {
        log.warn({ serverApi: { address, sent } }, 'server API call refused: Authorization must be Bearer PROXY_SERVER_KEY');
        throw new ProxyError('SERVER_KEY_INVALID', 'A valid server key is required: Authorization: Bearer <PROXY_SERVER_KEY>.');
      }
      if (refused.consumedPoints === policy.points + 1) {
        log.warn(
          { serverApi: { address, sent, failures: policy.points, retryAfterSec: Math.ceil(refused.msBeforeNext / 1000) } },
          'server API: too many wrong keys from this address; further wrong keys are answered 429 for the rest of the window (the right key still works)',
        );
      }
      const limited = rateLimited(refused.msBeforeNext);
      throw new ProxyError(limited.code, limited.message, { ...limited.details, scope: 'address' });
    } catch (err) {
      answerOrPass(err, res, next);
    }
  };
}
