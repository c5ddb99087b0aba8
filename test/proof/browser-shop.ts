/**
 * A merchant's shop page under a strict Content-Security-Policy (the one docs/csp.md recommends): no inline
 * script or style anywhere, the elements loaded as an external module, the tokens set by an external page
 * script, and every CSP violation reported to the server by an external watch script.
 */
import express, { Router, type Request, type Response } from 'express';
import type { MerchantProxy } from '../../src/proxy/create-proxy.js';

/** A `securitypolicyviolation` the watch script reported. */
export interface Violation {
  /** The page's origin and path. */
  page: string;
  directive: string;
  blocked: string;
}

export interface ShopOptions {
  /** Mints the page's tokens (the merchant's server). */
  proxy: MerchantProxy;
  /** The elements' `proxy` attribute. */
  proxyUrl: string;
  /** Sources `connect-src` allows besides 'self' (the proxy's origin when it is another). */
  connectSrc: string[];
  /** A page on the provider's origin, where the shop's own form is redirected (POST /shop/pay-elsewhere). */
  providerPage: string;
  /** The elements bundle, served at /elements.js. */
  elementsJs: string;
  /** Where reported violations go. */
  violations: Violation[];
}

/** What may widen the strict policy. */
export interface CspOptions {
  /** `connect-src` sources besides 'self'. */
  connect?: readonly string[];
  /** `form-action` sources besides 'self'. */
  formAction?: readonly string[];
  /** Enforce Trusted Types, allowing Lit's `lit-html` policy only. */
  trustedTypes?: boolean;
}

/** The strict policy (docs/csp.md), widened as `o` says. */
export function strictCsp(o: CspOptions = {}): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    ["connect-src 'self'", ...(o.connect ?? [])].join(' '),
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ["form-action 'self'", ...(o.formAction ?? [])].join(' '),
    ...(o.trustedTypes ? ["require-trusted-types-for 'script'", 'trusted-types lit-html'] : []),
  ].join('; ');
}

const EVENTS = [
  'otp-sent', 'otp-verified', 'otp-failed',
  'payment-pending', 'payment-completed', 'payment-failed', 'payment-cancelled',
  'checkout-opened', 'checkout-completed', 'checkout-failed', 'checkout-cancelled', 'checkout-expired',
];

// A classic script, first in <head>: violations in the shadow roots reach the document (the event is composed).
const WATCH_JS = `document.addEventListener('securitypolicyviolation', (e) => {
  fetch('/__csp', { method: 'POST', keepalive: true, headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ page: location.origin + location.pathname, directive: e.effectiveDirective, blocked: e.blockedURI }) });
}, true);`;

// The merchant's page script: fresh tokens from its server, the checkout mode from the address, and the
// elements' events kept for the test.
const SHOP_JS = `window.seen = [];
for (const type of ${JSON.stringify(EVENTS)}) document.addEventListener(type, (e) => seen.push({ type, detail: e.detail }));
const tokens = await (await fetch('/shop/tokens')).json();
for (const kind of ['otp', 'payment', 'checkout']) document.getElementById(kind).token = tokens[kind];
document.getElementById('checkout').mode = new URLSearchParams(location.search).get('mode') || 'redirect';
document.body.dataset.ready = 'yes';`;

const page = (proxyUrl: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="/csp-watch.js"></script>
<script type="module" src="/elements.js"></script>
<script type="module" src="/shop.js"></script>
</head><body>
<otp-verify id="otp" proxy="${proxyUrl}"></otp-verify>
<pay-by-mobile id="payment" proxy="${proxyUrl}"></pay-by-mobile>
<checkout-button id="checkout" proxy="${proxyUrl}"></checkout-button>
<form method="post" action="/shop/pay-elsewhere"><button id="pay-elsewhere">Pay on the provider's page</button></form>
</body></html>`;

/** The policy a request for the page asks for: `?connect=self`, `?tt=1`, `?form-action=<origin>`. */
function cspOf(req: Request, o: ShopOptions): string {
  const { connect, tt, 'form-action': formAction } = req.query;
  return strictCsp({
    connect: connect == 'self' ? [] : o.connectSrc,
    formAction: typeof formAction == 'string' ? [formAction] : [],
    trustedTypes: tt == '1',
  });
}

/**
 * The shop's routes: GET /shop (the page, its policy widened or narrowed by its query, see `cspOf`; the
 * checkout-button's `mode` from `?mode=`), its scripts, GET /shop/tokens (an OTP, a payment and a checkout
 * token; the checkout returns to /shop?returned=<reference>), POST /shop/pay-elsewhere (a form the
 * merchant's server answers with a redirect to the provider's origin) and POST /__csp (the watch's reports).
 */
export function shopRouter(o: ShopOptions): Router {
  let order = 0;
  const js = (body: string) => (_req: Request, res: Response) => void res.type('js').send(body);
  return Router()
    .get('/shop', (req, res) => {
      res.setHeader('content-security-policy', cspOf(req, o));
      res.type('html').send(page(o.proxyUrl));
    })
    .get('/csp-watch.js', js(WATCH_JS))
    .get('/shop.js', js(SHOP_JS))
    .get('/elements.js', js(o.elementsJs))
    .get('/shop/tokens', async (req, res) => {
      const reference = `CSP-${process.pid}-${++order}`;
      res.json({
        otp: await o.proxy.tokens.otp({ purpose: 'sign-in' }),
        payment: await o.proxy.tokens.payment({ amount: 12.5, referenceNo: reference, narration: `Order ${reference}` }),
        checkout: await o.proxy.tokens.checkout({
          title: 'Test Shop',
          reference,
          amount: 50,
          description: 'Basket',
          returnUrl: `${req.protocol}://${req.get('host')}/shop?returned=${reference}`,
        }),
      });
    })
    .post('/shop/pay-elsewhere', (_req, res) => res.redirect(303, o.providerPage))
    .post('/__csp', express.json({ type: () => true }), (req, res) => {
      o.violations.push(req.body as Violation);
      res.status(204).end();
    });
}
