import type { NextFunction, Request, Response } from 'express';
import { ProxyError } from '../errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ALLOWED_HEADERS = 'Authorization, Content-Type, Last-Event-ID';
const ALLOWED_METHODS = 'GET, POST';

/** The request's own origin (`protocol://host`), as the browser of a same-origin page would send it. */
function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? ''}`;
}

/**
 * Origin allowlist and CORS (DESIGN: origins). Allowed: no Origin at all (server-to-server), the
 * request's own origin, and the configured `allowedOrigins`. Any other Origin → 403 ORIGIN_NOT_ALLOWED.
 * Unsafe methods with `Sec-Fetch-Site: cross-site` are refused unless the Origin is allowlisted.
 * Allowlisted origins get CORS headers; a preflight is answered 204 here.
 */
export function originPolicy(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return (req: Request, res: Response, next: NextFunction): void => {
    // Express's res.vary parses and merges an existing Vary; most answers have none yet.
    if (res.getHeader('Vary') === undefined) res.setHeader('Vary', 'Origin');
    else res.vary('Origin');
    const origin = req.get('origin');
    const listed = origin !== undefined && allowed.has(origin);
    const same = origin !== undefined && origin === ownOrigin(req);
    if (origin !== undefined && !listed && !same) {
      next(new ProxyError('ORIGIN_NOT_ALLOWED', 'This site may not use this service.'));
      return;
    }
    const fetchSite = req.get('sec-fetch-site');
    if (!SAFE_METHODS.has(req.method) && fetchSite === 'cross-site' && !listed) {
      next(new ProxyError('ORIGIN_NOT_ALLOWED', 'This site may not use this service.'));
      return;
    }
    if (listed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      // Date is not CORS-safelisted: without it a page on another origin cannot read the proxy's clock
      // (otp-verify's resend countdown).
      res.setHeader('Access-Control-Expose-Headers', 'Retry-After, Date');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
