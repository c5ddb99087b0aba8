import type { Server } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import { pino, type Logger } from 'pino';
import { DEFAULT_PROXY_PATH, PROXY_PATHS, SERVER_PATHS } from '../protocol/index.js';
import { ConfigError, configFromEnv, createMerchantProxy, type MerchantProxy, type ProxyConfig } from '../proxy/index.js';
import { holdBodyToDeadline } from '../proxy/middleware/body.js';
import { READY_PATH } from '../proxy/routes/ready.js';
import { CliConfigError } from './errors.js';
import { createServiceServer, SERVICE_TIMEOUTS, type DrainReport, type ServiceServer } from './service-server.js';

export { SERVICE_TIMEOUTS } from './service-server.js';

/** Where the server API's own listener answers Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** Where and how the service listens, from the flags and the environment. */
export interface ServiceOptions {
  port: number;
  host: string;
  /** Mount path of the proxy router (`/merchant-elements` by default). */
  path: string;
  /** Express `trust proxy` (TRUST_PROXY): false, true, a hop count, or addresses and subnets. */
  trustProxy: boolean | number | string;
  /** pino level (LOG_LEVEL, `info` by default). */
  logLevel: string;
  /**
   * Where the server API listens apart from the browser routes (SERVER_API_PORT, SERVER_API_HOST): then
   * `port` serves no `/server/` path at all. Absent: the server API is under the mount path of `port`.
   */
  serverApi?: { port: number; host: string } | undefined;
  /**
   * The pre-stop window (PRE_STOP_SECONDS, 0 by default): on SIGTERM, `/ready` answers 503 this long while
   * every request is still served as usual, so that a balancer probing readiness stops sending here before
   * any connection closes.
   */
  preStopMs?: number;
  /** The environment (DESIGN's configuration table). */
  env: NodeJS.ProcessEnv;
  /** A logger to use instead of JSON lines on stdout (tests). */
  logger?: Logger;
  /** How the pre-stop window is waited out (tests end it when they choose). */
  sleep?: (ms: number) => Promise<void>;
}

/** A running `merchant-elements serve`. */
export interface RunningService {
  /** `http://host:port` the service listens on. */
  url: string;
  /** `http://host:port` of the server API's own listener, when it has one. */
  serverApiUrl: string | undefined;
  proxy: MerchantProxy;
  server: Server;
  logger: Logger;
  /**
   * Graceful shutdown: `/ready` answers 503 from now on, and for the pre-stop window (`preStopMs`) nothing
   * else changes; then it stops accepting connections, answers every request already received, closes idle
   * connections, ends the event streams, lets requests in flight finish (at most `shutdownGraceMs`), then
   * stops the proxy (`proxy.close()`: pollers, deliveries in flight, the store).
   */
  close(): Promise<void>;
}

/**
 * The problems of the proxy's configuration in the environment, each under its variable (none: empty).
 * `merchant-elements serve` reports them with its own variables' in one go.
 */
export function serviceConfigProblems(env: NodeJS.ProcessEnv): string[] {
  try {
    configFromEnv(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

/**
 * The proxy configuration from the environment, checked in full now (so a mistake stops start-up, naming
 * each variable): throws CliConfigError (exit 3) with one sentence per problem.
 */
export function serviceConfig(env: NodeJS.ProcessEnv, logger: Logger): ProxyConfig {
  try {
    return { ...configFromEnv(env), logger };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliConfigError(err.problems);
    throw err;
  }
}

/**
 * Parses TRUST_PROXY as Express takes `trust proxy`: empty or `false` → false; `true` → true (trust every
 * hop: only behind a proxy that overwrites X-Forwarded-For); a whole number → that many hops; anything else
 * → addresses, subnets or `loopback`/`linklocal`/`uniquelocal`, comma-separated (checked by Express).
 * @throws Error whose message says what is wrong (without the variable's name).
 */
export function parseTrustProxy(raw: string | undefined): boolean | number | string {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const probe = express();
  try {
    probe.set('trust proxy', value);
  } catch (err) {
    throw new Error(`${(err as Error).message}; give true, a hop count, or addresses and subnets (10.0.0.0/8, loopback)`);
  }
  return value;
}

/**
 * Starts the proxy as a service: JSON logs (pino), the router at `options.path`, `/health` and `/ready` at
 * the root for probes, server timeouts set, `trust proxy` as configured, and the server API on a listener
 * of its own when `options.serverApi` says so. Listens only once the proxy is ready (the store answers); a
 * store that does not answer within `readyTimeoutMs` fails start-up.
 */
export async function startProxyService(options: ServiceOptions): Promise<RunningService> {
  const logger = options.logger ?? pino({ name: 'merchant-elements', level: options.logLevel });
  const proxy = createMerchantProxy(serviceConfig(options.env, logger));
  const log = proxy.logger;
  try {
    await withTimeout(proxy.ready(), SERVICE_TIMEOUTS.readyTimeoutMs, 'the store did not answer in time (check REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES)');
  } catch (err) {
    await proxy.close();
    throw err;
  }
  warnAboutDefaults(options.env, proxy, log);

  const split = options.serverApi;
  const listeners: Array<{ server: ServiceServer; port: number; host: string }> = [
    { server: createServiceServer(publicApp(proxy, options, split !== undefined)), port: options.port, host: options.host },
  ];
  if (split) listeners.push({ server: createServiceServer(serverApiApp(proxy, options)), ...split });
  const urls: string[] = [];
  try {
    for (const { server, port, host } of listeners) urls.push(urlOf(host, (await server.listen(port, host)).port));
  } catch (err) {
    for (const { server } of listeners) server.server.close();
    await proxy.close();
    throw err;
  }
  const servers = listeners.map((l) => l.server);
  const [url, serverApiUrl] = urls as [string, string | undefined];
  log.info(
    {
      url,
      proxy: `${url}${options.path}`,
      health: `${url}${PROXY_PATHS.health}`,
      ready: `${url}${READY_PATH}`,
      serverApi: `${serverApiUrl ?? url}${options.path}${SERVER_PATHS.prefix}`,
      // Only on the server API's own port: without one, nothing serves them (set SERVER_API_PORT).
      metrics: serverApiUrl ? `${serverApiUrl}${METRICS_PATH}` : null,
      trustProxy: options.trustProxy,
      store: proxy.config.redisUrl || proxy.config.redisSentinel || proxy.config.redisCluster ? 'redis' : 'memory',
    },
    'listening',
  );

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      proxy.markDraining();
      const preStopMs = options.preStopMs ?? 0;
      if (preStopMs > 0) {
        log.info({ preStopMs }, 'shutting down: /ready answers 503 for the pre-stop window, requests are still served');
        await (options.sleep ?? sleep)(preStopMs);
      }
      log.info(
        { graceMs: SERVICE_TIMEOUTS.shutdownGraceMs },
        'shutting down: no new connections, idle ones closed, event streams ended, requests in flight finishing',
      );
      const deadline = Date.now() + SERVICE_TIMEOUTS.shutdownGraceMs;
      const reports = await Promise.all(servers.map((s) => s.drain(deadline)));
      log.info(sum(reports), 'connections closed');
      // Only now: requests in flight were still reading and writing the store.
      await proxy.close();
      log.info('stopped');
    })());
  return { url, serverApiUrl, proxy, server: servers[0]!.server, logger: log, close };
}

/** The browser routes (and the server API unless it listens apart), with `/health` and `/ready` at the root. */
function publicApp(proxy: MerchantProxy, options: ServiceOptions, serverApiApart: boolean): Express {
  const app = baseApp(proxy, options);
  // When the server API listens elsewhere, its paths here are like any unknown one.
  app.use(options.path, serverApiApart ? (req, res, next) => (isServerPath(req.path) ? next() : proxy.router(req, res, next)) : proxy.router);
  app.use(notFound(proxy, options.path));
  return app;
}

/**
 * The server API's own listener: `<path>/server/…` (the same URLs as on a single port), the probes, and
 * `/metrics` for the scraper: only here, never on the public port (DESIGN: metrics).
 */
function serverApiApp(proxy: MerchantProxy, options: ServiceOptions): Express {
  const app = baseApp(proxy, options);
  app.get(METRICS_PATH, (req, res) => proxy.metrics.handler(req, res));
  app.use(options.path, (req, res, next) => (isServerPath(req.path) ? proxy.router(req, res, next) : next()));
  app.use(notFound(proxy, `${options.path}${SERVER_PATHS.prefix}`));
  return app;
}

/** An app with the service's settings, and `/health` and `/ready` at the root, where probes look. */
function baseApp(proxy: MerchantProxy, options: ServiceOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy);
  const probe: RequestHandler = (req, res, next) => proxy.router(req, res, next);
  app.get(PROXY_PATHS.health, probe);
  app.get(READY_PATH, probe);
  return app;
}

function isServerPath(path: string): boolean {
  return path === '/server' || path.startsWith(SERVER_PATHS.prefix);
}

/** The JSON 404 of paths outside the proxy; a body sent with one is not waited for past the body deadline. */
function notFound(proxy: MerchantProxy, where: string): RequestHandler {
  return (req, res) => {
    holdBodyToDeadline(req, res, proxy.config.bodyTimeoutMs);
    res.status(404).json({ error: 'NOT_FOUND', message: `There is nothing at this address; the proxy is at ${where}.`, details: {} });
  };
}

function warnAboutDefaults(env: NodeJS.ProcessEnv, proxy: MerchantProxy, log: Logger): void {
  if (!env.PROXY_TOKEN_SECRET?.trim()) {
    log.warn('PROXY_TOKEN_SECRET is not set: a random secret signs tokens, so they die with this process and no other instance or language can mint them');
  }
  if (!proxy.config.serverKey) log.warn('PROXY_SERVER_KEY is not set: the server API answers 503 SERVER_API_DISABLED');
  if (proxy.config.allowedOrigins.length === 0) {
    log.warn('PROXY_ALLOWED_ORIGINS is empty: only pages served through the same origin (a reverse proxy or rewrite) can use this proxy');
  }
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function sum(reports: DrainReport[]): DrainReport {
  return reports.reduce((a, b) => ({ idle: a.idle + b.idle, inFlight: a.inFlight + b.inFlight, streams: a.streams + b.streams }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Default mount path, re-exported for the command's help. */
export const DEFAULT_SERVICE_PATH = DEFAULT_PROXY_PATH;
