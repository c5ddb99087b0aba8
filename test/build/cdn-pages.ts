// Pages that load the CDN files (scripts/build/cdn.ts, built in memory) from a folder served under a deep
// path, on loopback, each under the Content-Security-Policy its address asks for, and Chromium opening them
// with the network log and every console error, page error and CSP violation kept.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import type { OrderView } from '../../src/protocol/index.js';
import { strictCsp } from '../proof/browser-shop.js';

/** Where the CDN folder is served: any path will do, so a deep one. */
export const CDN_PATH = '/static/shop/v1/merchant-elements/cdn';

/**
 * A JWT-shaped token: the elements only read its claims; the one call made before a person acts,
 * `<pay-by-mobile>`'s read of its order, is answered by the page's server.
 */
function token(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ exp: Math.floor(Date.now() / 1000) + 900, ...claims })}.signature`;
}

/** The three elements' markup, with tokens. */
export const MARKUP = {
  'otp-verify': `<otp-verify token="${token({ scope: 'otp', purpose: 'sign-in' })}"></otp-verify>`,
  'pay-by-mobile': `<pay-by-mobile token="${token({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-1', narration: 'Order', payee: 'Shop', maxAttempts: 3 })}"></pay-by-mobile>`,
  'checkout-button': `<checkout-button token="${token({ scope: 'checkout', title: 'Order', reference: 'CO-1', amount: 25, description: 'An order', returnUrl: 'https://shop.example/' })}"></checkout-button>`,
};

/** A page: its `<html lang>`, what goes in its head after the CSP watch, and its body. */
export interface TestPage {
  lang?: string;
  head: string;
  body: string;
}

/** What a test page may load: the CDN folder (`cdn`, on this origin or `cdnOrigin`) and page scripts (`/js/<name>.js`). */
export interface CdnServer {
  url: string;
  /** The same server under another site's name (`localhost`): a CDN host for the page on `url`. */
  otherSite: string;
  /** Answers 503 to the next request for `file` of the CDN folder. */
  failNext(file: string): void;
  close(): Promise<void>;
}

/** A nonce for the pages served with a nonce-based policy (`?csp=nonce`). */
export const NONCE = 'a-test-nonce-0123';

/** The policy `csp` names: the strict one of docs/csp.md, with Trusted Types, with a CDN host, or nonce-based. */
function policy(csp: string | undefined, cdnOrigin: string): string | undefined {
  if (csp === 'strict') return strictCsp();
  if (csp === 'tt') return strictCsp({ trustedTypes: true });
  if (csp === 'cdn') return strictCsp().replace("script-src 'self'", `script-src 'self' ${cdnOrigin}`);
  if (csp === 'nonce') return `script-src 'nonce-${NONCE}' 'strict-dynamic'; object-src 'none'; base-uri 'none'`;
  return undefined;
}

/**
 * Serves `files` under {@link CDN_PATH} (with `Access-Control-Allow-Origin: *`, as a CDN sends), the
 * `scripts` under /js/, and `pages` at /page/<name>?csp=…&cdn=other: `cdn=other` loads the CDN folder
 * from {@link CdnServer.otherSite}.
 */
export async function serveCdn(files: Map<string, string>, pages: Record<string, TestPage>, scripts: Record<string, string>): Promise<CdnServer> {
  const failing = new Set<string>();
  const app = express();
  const js = (res: express.Response, body: string) => res.type('text/javascript').set('cache-control', 'no-store').send(body);
  app.get(`${CDN_PATH}/:file`, (req, res) => {
    const code = files.get(req.params.file);
    res.set('access-control-allow-origin', '*');
    if (code === undefined) return void res.status(404).end();
    if (failing.delete(req.params.file)) return void res.status(503).end();
    js(res, code);
  });
  app.get('/js/:name.js', (req, res) => {
    const code = scripts[req.params.name];
    if (code === undefined) return void res.status(404).end();
    js(res, code);
  });
  // <pay-by-mobile> reads where its order stands as it loads (GET /order on its default proxy mount): an order
  // nothing was tried on yet.
  app.get('/merchant-elements/order', (_req, res) => {
    const view: OrderView = { orderReference: 'ORDER-1', payment: null, attemptsLeft: 3, next: 'open', otherMethod: null, chargeEstimate: null };
    res.set('cache-control', 'no-store').json(view);
  });
  app.get('/page/:name', (req, res) => {
    const page = pages[req.params.name];
    if (!page) return void res.status(404).end();
    const other = `http://localhost:${port}`;
    const csp = policy(req.query['csp'] as string | undefined, other);
    if (csp) res.set('content-security-policy', csp);
    const base = req.query['cdn'] === 'other' ? `${other}${CDN_PATH}` : CDN_PATH;
    const nonce = req.query['csp'] === 'nonce' ? ` nonce="${NONCE}"` : '';
    const head = page.head.replaceAll('CDN/', `${base}/`).replaceAll('<script', `<script${nonce}`);
    res.type('html').set('cache-control', 'no-store').send(`<!doctype html>
<html lang="${page.lang ?? 'en'}"><head><meta charset="utf-8"><title>${req.params.name}</title><link rel="icon" href="data:,">
<script${nonce} src="/js/watch.js"></script>
${head}
</head><body>
${page.body}
</body></html>`);
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    otherSite: `http://localhost:${port}`,
    failNext: (file) => void failing.add(file),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The page script that keeps CSP violations in `window.violations` (a classic script, first in the head). */
export const WATCH_JS = `window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective + ' ' + e.blockedURI), true);`;

/** An open page and what it did. */
export interface OpenPage {
  page: Page;
  /** Every URL the page requested, in order (the browser's network log). */
  requests: string[];
  /** Console errors and page errors. */
  errors: string[];
  /** The files of the CDN folder the page requested. */
  cdnFiles(): string[];
  violations(): Promise<string[]>;
}

/** Opens `url` in a new page of `browser`, logging its network requests and errors from the start. */
export async function openPage(browser: Browser, url: string): Promise<OpenPage> {
  const page = await browser.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  await page.goto(url);
  return {
    page,
    requests,
    errors,
    cdnFiles: () => requests.filter((r) => r.includes(`${CDN_PATH}/`)).map((r) => r.slice(r.lastIndexOf('/') + 1)),
    violations: () => page.evaluate(() => (window as unknown as { violations: string[] }).violations),
  };
}
