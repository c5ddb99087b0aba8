import { Router, type Express } from 'express';
import { PROXY_PATHS } from '../protocol/index.js';
import { createProviderClient } from '../provider/client.js';
import { type ProxyConfig, resolveConfig } from './config.js';
import type { ProxyContext } from './context.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { createLimiterFactory } from './limits.js';
import { accessLogger, createProxyLogger } from './logger.js';
import { countedStore, createMetrics } from './metrics.js';
import { OutageLog, registerOutageLog } from './outage-log.js';
import { anyBody, formBodies, holdBodyToDeadline, jsonBodies } from './middleware/body.js';
import { originPolicy } from './middleware/origins.js';
import { createOrders } from './order/orders.js';
import { accountsRoutes } from './routes/accounts.js';
import { callbacksRoutes } from './routes/callbacks.js';
import { checkoutsRoutes } from './routes/checkouts.js';
import { healthRoutes } from './routes/health.js';
import { readyRoutes } from './routes/ready.js';
import { otpRoutes } from './routes/otp.js';
import { paymentsRoutes } from './routes/payments.js';
import { serverApiRoutes } from './routes/server-api.js';
import { expressHost, notExpress } from './not-express.js';
import { createStore } from './store/index.js';
import { acknowledgedBy, logStoreCheck, needsDurability } from './store/store-checks.js';
import { createStoreCheck, shardedStoreCheck } from './store/store-checker.js';
import { FormatGate, gatedStore, STORE_FORMAT } from './store/store-format.js';
import { StoreClock } from './store/store-clock.js';
import { storeShards } from './store/store-shards.js';
import type { ProxyStore } from './store/types.js';
import { createTokenService } from './tokens/service.js';
import { webhookAdmin } from './notify/webhook-admin.js';
import type { MerchantProxy } from './merchant-proxy.js';
import { webhookConsumer } from './notify/webhook-consumer.js';

export type { MerchantProxy } from './merchant-proxy.js';

/**
 * Builds the merchant proxy. Validates `config` (throws a ConfigError naming each problem), builds the
 * provider client, store, limiters, token service and relay, and an Express router with the hardening
 * middleware (logs, origins and CORS, JSON-only bodies), every protocol route, a JSON 404 and one error
 * handler. Behind a load balancer, set the merchant app's `trust proxy` so the per-IP limits and the
 * same-origin check see the client's address and scheme.
 */
export function createMerchantProxy(input: ProxyConfig): MerchantProxy {
  const config = resolveConfig(input);
  const logger = createProxyLogger(config.logger);
  // Each kind of outage told once, then summarised per interval (DESIGN: logs); the proxy's code reports
  // through it by this logger.
  const outages = new OutageLog(logger, { intervalMs: config.outageSummaryIntervalMs });
  registerOutageLog(logger, outages);
  const clientLog = logger.child({ part: 'provider-client' });
  // Read when scraped: the accessors the client, the store and the relay already have.
  const metrics = createMetrics({
    circuitState: (upstream, calls) => client.circuitState(upstream, calls),
    get orderStores() {
      return orderStores;
    },
    outbox: { pending: () => relay.outbox.pending(), dead: () => relay.outbox.dead(), read: (id) => relay.outbox.read(id) },
    reconciler: {
      pollers: () => relay.reconciler.pool.size,
      readsInFlight: () => relay.reconciler.gate.active,
      readsWaiting: () => relay.reconciler.gate.waiting.urgent + relay.reconciler.gate.waiting.routine,
    },
    streams: () => relay.live.size,
    now: () => now(),
  });
  const client = createProviderClient({
    messaging: { baseUrl: config.provider.messagingBaseUrl, ...config.provider.messaging },
    payment: { baseUrl: config.provider.paymentBaseUrl, ...config.provider.payment },
    checkout: { baseUrl: config.provider.checkoutBaseUrl, ...config.provider.checkout },
    logger: {
      debug: (fields, msg) => clientLog.debug(fields, msg),
      error: (fields, msg) => clientLog.error(fields, msg),
      // A call the provider could not answer is told once per outage of its operation, not once per call
      // (the breaker's trials); the provider refusing a request in words stays a line of its own.
      warn: (fields, msg) =>
        msg === 'provider call failed' && 'reason' in fields
          ? outages.report(`provider-call:${String((fields as { operation?: unknown }).operation)}`, 'warn', fields, msg, clientLog)
          : clientLog.warn(fields, msg),
    },
    // Every provider failure becomes an answer and a log line of its fields: no stack is ever read.
    errorStacks: false,
    onCall: (call) => metrics.providerCall(call),
    ...(config.fetch ? { fetch: config.fetch } : {}),
    ...(config.timeouts ? { timeouts: config.timeouts } : {}),
    ...(config.circuitBreaker !== undefined ? { circuitBreaker: config.circuitBreaker } : {}),
  });
  const created = createStore({
    store: config.store,
    redisUrl: config.redisUrl,
    redisSentinel: config.redisSentinel,
    redisCluster: config.redisCluster,
    redisPrefix: config.redisPrefix,
    redisShards: config.redisCluster?.shards,
    redisReplicas: { acknowledge: config.redisReplicas.acknowledge, timeoutMs: config.redisReplicas.timeoutMs },
    logger,
  });
  // What fails in the store, and commits it refused, counted for the metrics.
  const store = countedStore(created.store, metrics);
  const owned = created.owned;
  // Nothing reads or writes an order before the store's format is known to be one this code reads
  // (DESIGN: the store's checks); a store of a newer format is refused by `ready()` and `/ready`.
  let stopping = false;
  // A Cluster store may split orders into shards (DESIGN: Redis Cluster), each seen as the whole store is.
  const shards = storeShards(created.store);
  const format = new FormatGate(store, { shards: shards.length, stopped: () => stopping });
  const setup = { durable: needsDurability(config.provider), acknowledge: acknowledgedBy(created.store), maxLagSeconds: config.redisReplicas.maxLagSeconds, allowMemory: config.allowMemoryStore };
  // The history's marker is raced on by every instance: not counted with the orders' commit conflicts.
  const wholeCheck = createStoreCheck(store, { ...setup, format: { shards: shards.length } }, { logger, historyStore: created.store });
  const shardStores = shards.length === 1 ? [] : shards.map((shard) => ({ raw: shard, counted: countedStore(shard, metrics) }));
  const storeCheck = shardedStoreCheck(
    wholeCheck,
    shardStores.map(({ raw, counted }, i) => ({
      name: (raw as { name?: string }).name ?? `shard ${i}`,
      check: createStoreCheck(counted, { ...setup, format: false }, { logger, historyStore: raw }),
    })),
  );
  // Watches the store's history from now on (DESIGN: a store that goes back in time).
  storeCheck.start();
  // Every process on one store judges the money's times on the store's clock (DESIGN: one clock).
  const clock = new StoreClock(store, logger);
  const now = clock.now;
  const tokens = createTokenService({
    secret: config.tokenSecret,
    acceptedSecrets: config.acceptedTokenSecrets,
    audience: config.audience,
    payeeName: config.payeeName,
    defaultCountry: config.defaultCountry,
    store,
    now,
    logger,
  });
  let draining = false;
  const ctx: ProxyContext = {
    draining: () => draining,
    config,
    client,
    store,
    tokens,
    logger,
    limiter: createLimiterFactory(store),
    hooks: config.hooks,
    now,
    clock,
  };
  // Signed webhooks read the same outbox as the in-process hooks: one more consumer with its own retries.
  // The order book and its outbox see the store through the format's gate.
  const book = gatedStore(store, format);
  const orderStores = shardStores.length === 0 ? [book] : shardStores.map(({ counted }) => gatedStore(counted, format));
  const relay = createOrders(
    { ...ctx, store: book, orderStores, storeFormat: () => format.claimed ?? STORE_FORMAT.writes },
    config.webhooks ? [webhookConsumer(config.webhooks, now)] : [],
  );
  const webhooks = webhookAdmin(relay.outbox, now);
  // A store gone back in time may hold records older than this process's copies: merged under a hold (of the
  // shard whose server moved back, when orders are split).
  const mergeCopies = (moved?: readonly ProxyStore[]) =>
    void relay.movedBack(moved).catch((err: unknown) => logger.warn({ err: String(err) }, 'copies not merged after the store moved back; merged on the next look'));
  if (shardStores.length === 0) storeCheck.onMovedBack(() => mergeCopies());
  storeCheck.onShardMovedBack((i) => mergeCopies([orderStores[i]!]));

  const router = Router();
  // A silent logger writes no access line: nothing is kept or listened to for it. Checked per request, so a
  // level raised at run time brings the access lines back.
  const accessLog = accessLogger(logger);
  const callbackBodies = anyBody(config.bodyTimeoutMs);
  const origins = originPolicy(config.allowedOrigins, logger);
  const bodies = jsonBodies(config.bodyTimeoutMs);
  const forms = formBodies(config.bodyTimeoutMs);
  // One layer in front of the routes (each layer is a path match and a hop per request): the access line,
  // then, for provider callbacks (server-to-server), any body (never trusted, still 10 kB at most) and no
  // origin rule; for the server API (the merchant's backend, no Origin) JSON bodies without the origin rule;
  // for everything else the origin rule and JSON bodies (a form for `<checkout-button>`'s fallback form).
  // First of all, a router called outside Express (Fastify's middie, Connect, a bare node:http server) runs
  // inside a small Express app of its own, which gives the plain Node request and response Express's extensions.
  let host: Express | undefined;
  router.use((req, res, next) => {
    if (notExpress(req, res)) {
      host ??= expressHost(router, config.trustProxy, logger);
      host(req, res, next);
      return;
    }
    holdBodyToDeadline(req, res, config.bodyTimeoutMs);
    metrics.observe(req, res);
    // The elements read the proxy's clock from `Date`: the store's, when this host's is off it.
    if (clock.offsetMs) res.setHeader('date', new Date(now()).toUTCString());
    // `req.path` is a getter that parses the URL again on each read.
    const path = req.path;
    const guard = (err?: unknown) => {
      if (err) next(err);
      else if (path.startsWith('/callbacks/')) callbackBodies(req, res, next);
      else if (path.startsWith('/server/')) bodies(req, res, next);
      else origins(req, res, (refused?: unknown) => (refused ? next(refused) : (path === PROXY_PATHS.checkoutStart && req.method === 'POST' ? forms : bodies)(req, res, next)));
    };
    if (logger.isLevelEnabled('error')) accessLog(req, res);
    guard();
  });
  // The browser's routes first: Express tries each route's path in turn, and an OTP check or a status read
  // should not be matched against the dozen server routes on its way (their paths never overlap).
  otpRoutes(router, ctx);
  paymentsRoutes(router, ctx, relay);
  accountsRoutes(router, ctx, relay);
  checkoutsRoutes(router, ctx, relay);
  callbacksRoutes(router, ctx, relay);
  healthRoutes(router, ctx);
  readyRoutes(router, ctx, storeCheck);
  // The server API (server key), its webhook routes included.
  serverApiRoutes(router, ctx, relay, webhooks);
  router.use(notFoundHandler);
  router.use(errorHandler(logger));

  let closed: Promise<void> | undefined;
  return {
    router,
    handler: (req, res, next) =>
      router(req as never, res as never, (err?: unknown) => {
        if (next) next(err);
        else if (!res.headersSent) res.writeHead(err ? 500 : 404).end();
      }),
    tokens: {
      otp: (i) => tokens.otp(i),
      payment: (i) => tokens.payment(i),
      checkout: (i) => tokens.checkout(i),
    },
    verifyOtpProof: (proof, expected) => tokens.verifyOtpProof(proof, expected),
    payments: { get: (orderReference) => relay.payments.get(orderReference), getAttempt: (reference) => relay.payments.getAttempt(reference) },
    checkouts: { get: (reference) => relay.checkouts.get(reference), getSession: (checkoutId) => relay.checkouts.getSession(checkoutId) },
    webhooks,
    metrics: {
      get registry() {
        return metrics.registry;
      },
      handler: (req, res) => metrics.handler(req, res),
    },
    config,
    logger,
    ready: async () => {
      if (!(await store.ping().catch(() => false))) {
        throw new Error(`the ${store.kind} store does not answer${store.kind === 'redis' ? ' (check REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES)' : ''}`);
      }
      await format.format;
      await relay.ready;
      await storeCheck.history.check().catch(() => undefined);
      logStoreCheck(logger, await storeCheck());
    },
    markDraining: () => void (draining = true),
    close: () =>
      (closed ??= (async () => {
        stopping = true;
        storeCheck.stop();
        await relay.close();
        if (owned) await store.close();
        await client.close();
        outages.close();
      })()),
  };
}
