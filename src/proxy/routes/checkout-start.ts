import type { Request, Response, Router } from 'express';
import { PROXY_PATHS, checkoutStartForm } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError, sendError, toProxyError } from '../errors.js';
import type { Orders } from '../order/orders.js';

/**
 * POST /checkouts/start: `<checkout-button>`'s fallback, a plain HTML form that works before (and without) the
 * element's script. The token comes in the form's hidden field instead of a bearer header; the rest is
 * `POST /checkouts`: the origin rule (before the route), the token's checks, and the order's one live session
 * by the same order flow, so a second press, or the element's own call after its upgrade, gets the same
 * session. The browser is sent there with `303 See Other`. A refusal goes to a browser as a short page that says
 * what went wrong and links back to the page the form was on (reloading it mints a fresh token: an expired
 * one is the likely refusal of a page left open); to any other client in the error shape.
 */
export function checkoutStartRoutes(router: Router, ctx: ProxyContext, orders: Orders): void {
  router.post(PROXY_PATHS.checkoutStart, async (req, res, next) => {
    try {
      const { token } = parseInput(checkoutStartForm, req.body);
      const created = await orders.checkout(await ctx.tokens.verify(token, 'checkout'));
      res.setHeader('cache-control', 'no-store');
      res.redirect(303, created.checkoutUrl);
    } catch (err) {
      if (res.headersSent) return next(err);
      if (req.accepts(['application/json', 'text/html']) !== 'text/html') {
        if (err instanceof ProxyError) sendError(res, err);
        else next(err);
        return;
      }
      sendErrorPage(req, res, err instanceof ProxyError ? err : toProxyError(err, ctx.logger));
    }
  });
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** What the customer should do next, by refusal. */
function advice(code: string): string {
  if (code === 'TOKEN_EXPIRED' || code === 'TOKEN_INVALID' || code === 'ORDER_CHANGED') return 'Go back to the page and reload it, then press the button again.';
  if (code === 'RATE_LIMITED' || code === 'UPSTREAM_UNAVAILABLE' || code === 'UPSTREAM_ERROR' || code === 'INTERNAL') return 'Go back and try again in a moment.';
  return 'Go back to the page to see your order.';
}

/**
 * The refusal as a page, with its status and the error code in a `data-error` attribute (for a shop's
 * tests). The link back is the `Referer` when it is of the form's own origin (the origin rule has passed
 * it): never an address of another site.
 */
function sendErrorPage(req: Request, res: Response, error: ProxyError): void {
  let back: string | undefined;
  try {
    const referer = new URL(req.get('referer') ?? '');
    if (referer.origin === (req.get('origin') ?? `${req.protocol}://${req.get('host')}`)) back = referer.href;
  } catch {
    back = undefined;
  }
  const retryAfter = error.details.retryAfter;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  res
    .status(error.status)
    .set({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>The payment did not start</title><style>body{font:1rem/1.5 system-ui,sans-serif;margin:2rem auto;max-width:32rem;padding:0 1rem}</style></head>` +
        `<body><main data-error="${escape(error.code)}"><h1>The payment did not start</h1><p>${escape(error.message)}</p><p>${escape(advice(error.code))}</p>` +
        (back ? `<p><a href="${escape(back)}">Back to the page</a></p>` : '') +
        `</main></body></html>`,
    );
}
