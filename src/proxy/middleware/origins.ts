import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ProxyError } from '../errors.js';
import { logRequest } from '../logger.js';

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
 *
 * A refused origin may read the refusal of a simple request (a GET with no credential) and nothing else:
 * the browser hides an answer without CORS headers, so an element on a page the proxy does not allow
 * could only say "No connection", and the developer would learn neither the origin nor the setting. Its
 * preflights stay refused, so a call carrying a token never leaves the browser.
 */
export function originPolicy(allowedOrigins: readonly string[], logger?: Logger) {
  const allowed = new Set(allowedOrigins);
  return (req: Request, res: Response, next: NextFunction): void => {
    // Express's res.vary parses and merges an existing Vary; most answers have none yet.
    if (res.getHeader('Vary') === undefined) res.setHeader('Vary', 'Origin');
    else res.vary('Origin');
    const origin = req.get('origin');
    const listed = origin !== undefined && allowed.has(origin);
    const same = origin !== undefined && origin === ownOrigin(req);
    if (origin !== undefined && !listed && !same) {
      // Only the refusal: its body names the page's own origin; no header exposed, no credential allowed.
      if (req.method !== 'OPTIONS') res.setHeader('Access-Control-Allow-Origin', origin);
      next(refuse(req, origin, allowedOrigins, 'origin', logger));
      return;
    }
    const fetchSite = req.get('sec-fetch-site');
    if (!SAFE_METHODS.has(req.method) && fetchSite === 'cross-site' && !listed) {
      next(refuse(req, origin, allowedOrigins, 'cross-site', logger));
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

/**
 * The refusal, and a warning in the server's log that says what was refused, what is allowed and how to
 * allow it: the access line alone (`statusCode: 403`) left a developer behind a dev server's proxy guessing.
 * The page learns its own origin back, never the list.
 */
function refuse(req: Request, origin: string | undefined, allowedOrigins: readonly string[], why: 'origin' | 'cross-site', logger?: Logger): ProxyError {
  const own = ownOrigin(req);
  if (logger) {
    const fix =
      `add ${origin ?? "the page's origin"} to PROXY_ALLOWED_ORIGINS (allowedOrigins in code); or, when a dev server ` +
      `proxies the page's calls (Vite's server.proxy with changeOrigin: true rewrites Host to ${req.get('host') ?? 'the target'}), ` +
      'set changeOrigin: false so that the call stays same-origin';
    const said =
      why === 'origin'
        ? `origin not allowed: ${origin} is neither this server's own origin (${own}) nor in allowedOrigins`
        : `cross-site ${req.method} refused: Sec-Fetch-Site is cross-site and ${origin ? `${origin} is not in allowedOrigins` : 'the request has no Origin'}`;
    logRequest(logger, req, 'warn', { origin: origin ?? null, ownOrigin: own, allowedOrigins, secFetchSite: req.get('sec-fetch-site') ?? null, fix }, said);
  }
  const page = origin ? `This page's origin (${origin})` : 'This cross-site page';
  return new ProxyError('ORIGIN_NOT_ALLOWED', `${page} may not use this service: the merchant's proxy does not allow it.`);
}
