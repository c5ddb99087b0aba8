/**
 * The world of the browser-security suite: a sandbox, real Chromium, and three servers on loopback.
 *
 * - `strict` (origin A): the merchant's app with the proxy at /merchant-elements, default origins, and the
 *   shop page under a strict CSP (browser-shop.ts).
 * - `other` (origin B, one server reached under two names): `http://127.0.0.1:B` is another origin of the
 *   same site as A, `http://localhost:B` another site (the browser sends `Sec-Fetch-Site: cross-site`). It
 *   serves a bare page to attack from, and the shop page with the elements calling `open`'s proxy.
 * - `open` (origin A'): a second proxy instance that allowlists both of B's origins.
 *
 * Every request to a proxy is recorded with the proxy's verdict, so a test can show what the server did
 * with a request whose answer the browser hides.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { pino } from 'pino';
import { providerSettingsFromEnv } from '../../src/proxy/config-env.js';
import { createMerchantProxy, type MerchantProxy } from '../../src/proxy/create-proxy.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { shopRouter, type Violation } from './browser-shop.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Mount path of the proxies. */
export const MOUNT = '/merchant-elements';

/** A request a proxy received, and what it answered. */
export interface SeenRequest {
  method: string;
  /** Path under the mount (`/otp/send`). */
  path: string;
  origin: string | undefined;
  fetchSite: string | undefined;
  contentType: string | undefined;
  /** Whether an `Authorization: Bearer` header arrived. */
  bearer: boolean;
  status: number;
  /** The protocol error code of the answer, if it was one. */
  error: string | undefined;
  /** `Access-Control-Allow-Origin` of the answer. */
  allowOrigin: string | undefined;
}

/** A merchant server: its origin and the requests its proxy saw. */
export interface Site {
  origin: string;
  proxy: MerchantProxy;
  requests: SeenRequest[];
}

export interface BrowserWorld {
  sandbox: StartedSandbox;
  browser: Browser;
  strict: Site;
  open: Site;
  /** B under two names: another origin of A's site, and another site. */
  other: { sameSite: string; crossSite: string };
  /** CSP violations reported by the shop pages' watch script (all servers). */
  violations: Violation[];
  close(): Promise<void>;
}

/** Records each proxy request with its answer's status, error code and allowed origin. */
function recordRequests(log: SeenRequest[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    let error: string | undefined;
    // The proxy writes its JSON answers straight to res.end.
    const end = res.end.bind(res);
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if ((typeof chunk === 'string' || Buffer.isBuffer(chunk)) && /json/.test(String(res.getHeader('content-type')))) {
        try {
          const body = JSON.parse(chunk.toString()) as { error?: unknown };
          if (typeof body.error === 'string') error = body.error;
        } catch {
          // Not JSON after all: no error code to record.
        }
      }
      return (end as (...args: unknown[]) => Response)(chunk, ...rest);
    }) as Response['end'];
    res.on('close', () =>
      log.push({
        method: req.method,
        path: req.path,
        origin: req.get('origin'),
        fetchSite: req.get('sec-fetch-site'),
        contentType: req.get('content-type'),
        bearer: /^Bearer /.test(req.get('authorization') ?? ''),
        status: res.statusCode,
        error,
        allowOrigin: res.getHeader('access-control-allow-origin') as string | undefined,
      }),
    );
    next();
  };
}

async function listen(app: Express): Promise<{ server: Server; port: number }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** The three elements as merchants ship them: one minified ES module, Lit's production build, in memory. */
export async function bundleElements(): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [`${ROOT}src/elements/index.ts`],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    target: 'es2022',
    conditions: ['production'],
    // useDefineForClassFields false, as the package's own builds (reactive class fields).
    tsconfig: `${ROOT}tsconfig.json`,
    logLevel: 'silent',
  });
  return outputFiles[0]!.text;
}

/** Starts the sandbox, the three servers and Chromium. */
export async function startBrowserWorld(): Promise<BrowserWorld> {
  const [sandbox, elementsJs] = await Promise.all([startSandbox({ timeScale: 0.05 }), bundleElements()]);
  const violations: Violation[] = [];
  const providerPage = `${sandbox.url}/__sandbox/`;
  const servers: Server[] = [];
  const proxies: MerchantProxy[] = [];
  const proxyFor = (allowedOrigins: string[]) => {
    const proxy = createMerchantProxy({
      provider: providerSettingsFromEnv({ SANDBOX_URL: sandbox.url }),
      tokenSecret: 'browser-security-secret-of-32-bytes-or-more',
      payeeName: 'Test Shop',
      allowedOrigins,
      relay: { minIntervalMs: 100, maxIntervalMs: 400, deadlineMs: 60_000 },
      logger: pino({ level: 'silent' }),
    });
    proxies.push(proxy);
    return proxy;
  };
  const merchantApp = (proxy: MerchantProxy, requests: SeenRequest[]) => express().use(MOUNT, recordRequests(requests), proxy.router);

  // B listens first: the open proxy allowlists its origins.
  const otherApp = express();
  const otherListening = await listen(otherApp);
  servers.push(otherListening.server);
  const other = { sameSite: `http://127.0.0.1:${otherListening.port}`, crossSite: `http://localhost:${otherListening.port}` };

  const open: Site = { origin: '', proxy: proxyFor([other.sameSite, other.crossSite]), requests: [] };
  const openListening = await listen(merchantApp(open.proxy, open.requests));
  servers.push(openListening.server);
  open.origin = `http://127.0.0.1:${openListening.port}`;

  const strict: Site = { origin: '', proxy: proxyFor([]), requests: [] };
  const strictApp = merchantApp(strict.proxy, strict.requests).use(
    shopRouter({ proxy: strict.proxy, proxyUrl: MOUNT, connectSrc: [], providerPage, elementsJs, violations }),
  );
  const strictListening = await listen(strictApp);
  servers.push(strictListening.server);
  strict.origin = `http://127.0.0.1:${strictListening.port}`;

  otherApp.get('/attacker', (_req, res) => void res.type('html').send('<!doctype html><title>Another site</title><iframe name="sink"></iframe>'));
  otherApp.use(shopRouter({ proxy: open.proxy, proxyUrl: open.origin + MOUNT, connectSrc: [open.origin], providerPage, elementsJs, violations }));

  const browser = await chromium.launch({
    // The system's Chromium: nothing here may download a browser.
    ...chromiumLaunchOptions(),
  });

  return {
    sandbox,
    browser,
    strict,
    open,
    other,
    violations,
    async close() {
      await browser.close();
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      await Promise.all(proxies.map((p) => p.close()));
      await sandbox.close();
    },
  };
}

/** A page in light mode that collects its console errors and uncaught exceptions (with the page's URL). */
export async function newWatchedPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ colorScheme: 'light' });
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => void (m.type() == 'error' && errors.push(`${m.location().url}: ${m.text()}`)));
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return { page, errors };
}
