import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino, type Logger } from 'pino';
import { DEFAULT_PROXY_PATH } from '../protocol/index.js';
import { ConfigError, configFromEnv, createMerchantProxy, resolveConfig, type MerchantProxy, type ProxyConfig } from '../proxy/index.js';
import { CliConfigError } from './errors.js';

/** Server timeouts of `merchant-elements serve` (DESIGN: the proxy as a service). */
export const SERVICE_TIMEOUTS = {
  /** A request's headers must arrive within 10 s (slowloris). */
  headersTimeoutMs: 10_000,
  /** A whole request (headers and body) within 30 s; answers and event streams take as long as they need. */
  requestTimeoutMs: 30_000,
  /**
   * An idle keep-alive connection is kept 65 s: longer than the 60 s idle timeout of the usual load
   * balancers (AWS ALB, nginx), so the balancer, not the proxy, closes it and never sends on a closed socket.
   */
  keepAliveTimeoutMs: 65_000,
  /** On SIGTERM, requests in flight get this long to finish before their connections are cut. */
  shutdownGraceMs: 10_000,
  /** How long start-up waits for the store (Redis) to answer before giving up. */
  readyTimeoutMs: 15_000,
} as const;

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
  /** The environment (DESIGN's configuration table). */
  env: NodeJS.ProcessEnv;
  /** A logger to use instead of JSON lines on stdout (tests). */
  logger?: Logger;
}

/** A running `merchant-elements serve`. */
export interface RunningService {
  /** `http://host:port` the service listens on. */
  url: string;
  proxy: MerchantProxy;
  server: Server;
  logger: Logger;
  /**
   * Graceful shutdown: stops accepting connections, ends the event streams, lets requests in flight finish
   * (at most `shutdownGraceMs`), waits for the deliveries in flight (`proxy.close()`).
   */
  close(): Promise<void>;
}

/** The variable behind each configuration field, so a problem names what the operator sets. */
const VARIABLE_OF: ReadonlyArray<readonly [RegExp, string]> = [
  [/^tokenSecret\b/, 'PROXY_TOKEN_SECRET'],
  [/^serverKey\b/, 'PROXY_SERVER_KEY'],
  [/^allowedOrigins\b(\.\d+)?/, 'PROXY_ALLOWED_ORIGINS'],
  [/^redisUrl\b/, 'REDIS_URL'],
  [/^redisPrefix\b/, 'REDIS_PREFIX'],
  [/^defaultCountry\b/, 'DEFAULT_COUNTRY'],
  [/^payeeName\b/, 'PAYEE_NAME'],
  [/^otp\.sender\b/, 'OTP_SENDER'],
  [/^otp\.template\b/, 'OTP_TEMPLATE'],
  [/^provider\.messagingBaseUrl\b/, 'MESSAGING_BASE_URL'],
  [/^provider\.paymentBaseUrl\b/, 'PAYMENT_BASE_URL'],
];

function byVariable(problem: string): string {
  for (const [field, variable] of VARIABLE_OF) if (field.test(problem)) return problem.replace(field, variable);
  return problem;
}

/**
 * The proxy configuration from the environment, checked in full now (so a mistake stops start-up, naming
 * each variable): throws CliConfigError (exit 3) with one sentence per problem.
 */
export function serviceConfig(env: NodeJS.ProcessEnv, logger: Logger): ProxyConfig {
  try {
    const config: ProxyConfig = { ...configFromEnv(env), logger };
    // createMerchantProxy validates again; here every problem is reported before anything starts.
    resolveConfig(config);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) throw new CliConfigError(err.problems.map(byVariable));
    throw err;
  }
}

/**
 * Parses TRUST_PROXY as Express takes `trust proxy`: empty or `false` → false; `true` → true (trust every
 * hop: only behind a proxy that overwrites X-Forwarded-For); a whole number → that many hops; anything else
 * → addresses, subnets or `loopback`/`linklocal`/`uniquelocal`, comma-separated (checked by Express).
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
    throw new CliConfigError([`TRUST_PROXY: ${(err as Error).message}; give true, a hop count, or addresses and subnets (10.0.0.0/8, loopback)`]);
  }
  return value;
}

/**
 * Starts the proxy as a service: JSON logs (pino), the router at `options.path`, `/health` at the root
 * for probes, server timeouts set, `trust proxy` as configured. Listens only once the proxy is ready (the
 * store answers); a store that does not answer within `readyTimeoutMs` fails start-up.
 */
export async function startProxyService(options: ServiceOptions): Promise<RunningService> {
  const logger = options.logger ?? pino({ name: 'merchant-elements', level: options.logLevel });
  const config = serviceConfig(options.env, logger);
  const proxy = createMerchantProxy(config);
  const log = proxy.logger;
  try {
    await withTimeout(proxy.ready(), SERVICE_TIMEOUTS.readyTimeoutMs, 'the store did not answer in time (check REDIS_URL)');
  } catch (err) {
    await proxy.close();
    throw err;
  }
  if (!options.env.PROXY_TOKEN_SECRET?.trim()) {
    log.warn('PROXY_TOKEN_SECRET is not set: a random secret signs tokens, so they die with this process and no other instance or language can mint them');
  }
  if (!proxy.config.serverKey) log.warn('PROXY_SERVER_KEY is not set: the server API answers 503 SERVER_API_DISABLED');
  if (proxy.config.allowedOrigins.length === 0) {
    log.warn('PROXY_ALLOWED_ORIGINS is empty: only pages served through the same origin (a reverse proxy or rewrite) can use this proxy');
  }

  let draining = false;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy);
  app.use((_req, res, next) => {
    // While shutting down, every answer asks the client to open its next request elsewhere.
    if (draining) res.setHeader('Connection', 'close');
    next();
  });
  // Probes at the root as well as under the mount path; the proxy answers both (store and circuit state).
  app.get('/health', (req, res, next) => proxy.router(req, res, next));
  app.use(options.path, proxy.router);
  app.use((_req, res) => {
    res.status(404).json({ error: 'NOT_FOUND', message: `There is nothing at this address; the proxy is at ${options.path}.`, details: {} });
  });

  const server = createServer({
    headersTimeout: SERVICE_TIMEOUTS.headersTimeoutMs,
    requestTimeout: SERVICE_TIMEOUTS.requestTimeoutMs,
    keepAliveTimeout: SERVICE_TIMEOUTS.keepAliveTimeoutMs,
  }, app);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  log.info({ url, proxy: `${url}${options.path}`, health: `${url}/health`, trustProxy: options.trustProxy, store: proxy.config.redisUrl ? 'redis' : 'memory' }, 'listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining = true;
      log.info('shutting down: no new connections, ending event streams, finishing requests and deliveries in flight');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Ends the event streams (their requests then finish), stops the pollers, drains the outbox.
      await proxy.close();
      const grace = setTimeout(() => server.closeAllConnections(), SERVICE_TIMEOUTS.shutdownGraceMs);
      grace.unref();
      await closed;
      clearTimeout(grace);
      log.info('stopped');
    })());
  return { url, proxy, server, logger: log, close };
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
