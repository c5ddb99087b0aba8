import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pino } from 'pino';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { configFromEnv, createMerchantProxy } from '../../src/proxy/index.js';
import { sandboxNetworks } from './sandbox-networks.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { cdnFolder } from './cdn-build.js';
import { SHOP_NAME } from './catalogue.js';
import { embedRoutes } from './embed-routes.js';
import { orderRoutes } from './order-pages.js';
import { OrderBook } from './orders.js';
import { sessions } from './sessions.js';
import type { ShopContext } from './shop-context.js';
import { shopRoutes } from './shop-routes.js';
import { signInRoutes } from './sign-in-routes.js';

/** Options of {@link startDemo}. */
export interface DemoOptions {
  /** Port to listen on; 0 picks a free one (tests). */
  port: number;
  /** Address to bind; 127.0.0.1 by default. */
  host?: string;
  /** The sandbox's time scale: 1 is real time, 0.01 makes payments settle 100 times faster. */
  timeScale?: number;
  /** Level of the proxy's logs (pino), `warn` by default; `silent` in tests. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  /**
   * A Vite from {@link createDemoVite} to serve the pages' modules, instead of one of the shop's own (with
   * live reload): a test suite that starts many shops shares one, and its transforms. The shop leaves it open.
   */
  vite?: ViteDevServer;
}

/** A running demo: the shop, the proxy and the sandbox on one origin. */
export interface RunningDemo {
  /** The shop's origin, e.g. `http://127.0.0.1:5173`. */
  url: string;
  /** Where each part lives, for the banner. */
  urls: { shop: string; phone: string; sandbox: string; proxy: string; proxyHealth: string; embedding: string };
  /** Stops the proxy, the sandbox, Vite and the HTTP server. */
  close(): Promise<void>;
}

const DEMO_ROOT = new URL('../', import.meta.url);
/** Mount paths of the two servers the shop runs beside it. */
export const PROXY_PATH = '/merchant-elements';
export const SANDBOX_PATH = '/sandbox';

/**
 * Starts the demo: the provider sandbox under `/sandbox`, a merchant proxy under `/merchant-elements`
 * (sandbox credentials, a generated token secret) that reaches the sandbox over loopback HTTP like any
 * provider, and the shop with Vite in middleware mode for its modules. Resolves once it listens.
 *
 * The port opens only once the shop answers: a connection accepted before the request handler was attached
 * would wait forever (a script that waits for the port, then fetches). Port 0 must be bound first to learn
 * its number; nobody can know that port before this resolves.
 */
export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const host = options.host ?? '127.0.0.1';
  // 10 s for a request's headers and 30 s for the whole request (Node's 300 s let a trickled body hold a
  // socket for five minutes); answers and event streams take as long as they need.
  const server = createHttpServer({ headersTimeout: 10_000, requestTimeout: 30_000 });
  if (options.port === 0) await listen(server, 0, host);
  // Everything below needs the real origin: checkout pages and callbacks are absolute.
  const port = options.port === 0 ? (server.address() as AddressInfo).port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let demo: RunningDemo;
  try {
    demo = await assemble(server, url, options);
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  if (!server.listening) {
    try {
      await listen(server, options.port, host);
    } catch (err) {
      await demo.close();
      throw err;
    }
  }
  return demo;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function assemble(server: Server, url: string, options: DemoOptions): Promise<RunningDemo> {
  const timeScale = options.timeScale ?? 1;
  const sandbox = createSandbox({
    timeScale,
    publicUrl: `${url}${SANDBOX_PATH}`,
    paymentCallbackUrl: `${url}${PROXY_PATH}/callbacks/payments/{callbackId}`,
  });

  const orders = new OrderBook();
  const proxy = createMerchantProxy({
    // Sandbox credentials and a random token secret, as configFromEnv gives them in the sandbox environment.
    // PROXY_SERVER_KEY, when set, turns on the server API at /merchant-elements/server/ (to try a PHP or
    // Python backend against the demo); without it that API answers 503 SERVER_API_DISABLED.
    ...configFromEnv({
      PROVIDER_ENV: 'sandbox',
      SANDBOX_URL: `${url}${SANDBOX_PATH}`,
      PAYEE_NAME: SHOP_NAME,
      OTP_SENDER: 'Makola',
      PROXY_SERVER_KEY: process.env.PROXY_SERVER_KEY,
    }),
    logger: pino({ name: 'demo', level: options.logLevel ?? 'warn' }),
    hooks: {
      onPaymentUpdate: ({ snapshot }) => orders.recordPayment(snapshot),
      onCheckoutUpdate: ({ snapshot }) => orders.recordCheckout(snapshot),
    },
    // Everyone trying the demo pays the same few test numbers: a prompt limit per number meant for a real
    // phone would stop the tenth try within the hour. The wait between two codes to one number runs on the
    // sandbox's clock, as the codes' own lifetime does (60 s in real time).
    limits: {
      paymentPromptsPerNumber: { points: 1_000, durationSec: 3_600 },
      paymentsInFlightPerNumber: { points: 50, durationSec: 3_600 },
      otpSendCooldown: { points: 1, durationSec: Math.max(1, Math.round(60 * Math.min(timeScale, 1))) },
    },
    // The sandbox's charge and its networks' prompt lifetimes, so that the customer reads the charge before Pay
    // and until when the prompt on their phone can be approved.
    payments: sandboxNetworks(timeScale),
    // The relay polls as fast as the sandbox's clock runs.
    relay: {
      minIntervalMs: Math.max(50, Math.round(1_000 * Math.min(timeScale, 1))),
      maxIntervalMs: Math.max(200, Math.round(10_000 * Math.min(timeScale, 1))),
    },
  });

  const vite = options.vite ?? (await createDemoVite(options.logLevel, server));

  const ctx: ShopContext = {
    proxy,
    orders,
    url,
    async send(req, res, page, status = 200) {
      // Pages loading modules of the demo go through Vite (its client, module preloading); the CDN page,
      // whose one module is the package's loader, needs none.
      const body = /<script type="module" src="\/(?!cdn\/)/.test(page) ? await vite.transformIndexHtml(req.originalUrl, page) : page;
      res.status(status).set('cache-control', 'no-store').type('html').send(body);
    },
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(SANDBOX_PATH, sandbox);
  app.use(PROXY_PATH, proxy.router);
  app.get('/cdn/:file', async (req, res) => {
    // Built on the first request of the process (the CDN page's), then kept.
    const code = (await cdnFolder()).get(req.params.file);
    if (code === undefined) return void res.status(404).type('text').send('Not found');
    res.type('text/javascript').set('cache-control', 'no-cache').send(code);
  });
  app.use(express.static(fileURLToPath(new URL('public/', DEMO_ROOT)), { index: false }));
  app.use(sessions());
  app.use(shopRoutes(ctx));
  app.use(signInRoutes(ctx));
  app.use(orderRoutes(ctx));
  app.use(embedRoutes(ctx));
  app.use(vite.middlewares);
  app.use((_req: Request, res: Response) => {
    res.status(404).type('text').send('Not found');
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    proxy.logger.error({ err }, 'demo page failed');
    if (!res.headersSent) res.status(500).type('text').send('Something went wrong in the demo server; see its log.');
  });
  server.on('request', app);

  let closed: Promise<void> | undefined;
  return {
    url,
    urls: {
      shop: `${url}/`,
      phone: `${url}${SANDBOX_PATH}/__sandbox/phone`,
      sandbox: `${url}${SANDBOX_PATH}`,
      proxy: `${url}${PROXY_PATH}`,
      proxyHealth: `${url}${PROXY_PATH}/health`,
      embedding: `${url}/embed`,
    },
    close: () =>
      (closed ??= (async () => {
        await proxy.close();
        sandbox.sandbox.close();
        if (vite !== options.vite) await vite.close();
        await closeServer(server);
      })()),
  };
}

/**
 * The demo's Vite in middleware mode, with live reload over WebSocket upgrades of `server`; without one (a
 * Vite serving several shops, its pages' modules transformed once for all), over a loopback server of its own.
 */
export async function createDemoVite(logLevel?: DemoOptions['logLevel'], server?: Server): Promise<ViteDevServer> {
  const own = server ? undefined : createHttpServer();
  if (own) await listen(own, 0, '127.0.0.1');
  const vite = await createViteServer({
    configFile: fileURLToPath(new URL('vite.config.ts', DEMO_ROOT)),
    appType: 'custom',
    logLevel: logLevel === 'silent' ? 'silent' : 'warn',
    server: {
      middlewareMode: true,
      ws: own ? { server: own, clientPort: (own.address() as AddressInfo).port } : { server: server! },
    },
  });
  if (own) {
    const close = vite.close.bind(vite);
    vite.close = async () => {
      await close();
      await closeServer(own);
    };
  }
  return vite;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
