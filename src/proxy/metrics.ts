import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CIRCUIT_CALLS, PROVIDER_INTERFACES, type CallRecord, type CircuitCalls, type CircuitStateName, type ProviderInterface } from '../provider/types.js';
import { readStoreFigures, type OutboxReader, type StoreFigures } from './metrics-state.js';
import { STARTED } from './logger.js';
import type { ProxyStore } from './store/types.js';
import { HOST_RUNTIME } from './runtime.js';

/** What the metrics read when scraped: accessors the proxy already has. */
export interface MetricSources {
  circuitState(upstream: ProviderInterface, calls: CircuitCalls): CircuitStateName;
  /** The stores orders are kept in: the whole store, or its shards (DESIGN: Redis Cluster). */
  orderStores: readonly ProxyStore[];
  outbox: OutboxReader;
  /** The reconciler's pollers (orders this process reads on a schedule) and its read gate. */
  reconciler: { pollers(): number; readsInFlight(): number; readsWaiting(): number };
  /** Status streams open in this process. */
  streams(): number;
  now(): number;
}

/** The proxy's metrics (DESIGN: metrics): its own registry, the sinks the proxy's parts call, and the scrape. */
export interface ProxyMetrics {
  /** This proxy's registry (Node's default metrics are added on first use): merge or scrape it as you like. */
  readonly registry: Registry;
  /** Answers a scrape with the Prometheus text format: mount it where only your scraper reaches. */
  handler(req: IncomingMessage, res: ServerResponse): void;
  /** Counts an answer once its response closes (called per request by the router). */
  observe(req: IncomingMessage & { route?: { path?: unknown } }, res: ServerResponse): void;
  /** A provider call (the client's `onCall`). */
  providerCall(call: CallRecord): void;
  /** A store operation that threw, and a commit the store refused because the record had changed. */
  storeError(operation: string): void;
  commitConflict(): void;
}

const CIRCUIT_VALUE: Record<CircuitStateName, number> = { closed: 0, 'half-open': 1, open: 2 };

/** Builds one proxy's registry (never the global one: two proxies in a process keep apart). */
export function createMetrics(sources: MetricSources): ProxyMetrics {
  const registry = new Registry();
  const registers = [registry];
  let defaults = false;
  const withDefaults = () => {
    // Node's own (event loop lag, heap, GC) only once someone reads them: every proxy of a test suite would
    // otherwise start its own event-loop monitor.
    if (!defaults) collectDefaultMetrics({ register: registry });
    defaults = true;
    return registry;
  };

  const requests = new Counter({ name: 'merchant_proxy_http_requests_total', help: 'Answers of the proxy, by method, route and status code', labelNames: ['method', 'route', 'code'], registers });
  const requestSeconds = new Histogram({
    name: 'merchant_proxy_http_request_duration_seconds',
    help: 'Time to answer, by method and route (event streams excluded)',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const calls = new Counter({ name: 'merchant_proxy_provider_calls_total', help: 'Provider calls by interface, operation, kind of call and outcome (refused: not sent, the circuit open)', labelNames: ['interface', 'operation', 'calls', 'outcome'], registers });
  const callSeconds = new Histogram({
    name: 'merchant_proxy_provider_call_duration_seconds',
    help: 'Time of each provider call sent, by interface, kind of call and outcome',
    labelNames: ['interface', 'calls', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10],
    registers,
  });
  new Gauge({
    name: 'merchant_proxy_provider_circuit_state',
    help: 'Circuit of each provider interface and kind of call: 0 closed, 1 half-open (a trial call may go), 2 open',
    labelNames: ['interface', 'calls'],
    registers,
    collect() {
      for (const upstream of PROVIDER_INTERFACES) {
        for (const kind of CIRCUIT_CALLS) this.set({ interface: upstream, calls: kind }, CIRCUIT_VALUE[sources.circuitState(upstream, kind)]);
      }
    },
  });
  const storeErrors = new Counter({ name: 'merchant_proxy_store_errors_total', help: 'Store operations that failed (Redis down, timed out), by operation', labelNames: ['operation'], registers });
  const conflicts = new Counter({ name: 'merchant_proxy_store_commit_conflicts_total', help: 'Commits refused because the record changed meanwhile: each is read and run again (contention on one order)', registers });
  new Gauge({ name: 'merchant_proxy_reconciler_pollers', help: 'Orders this process reads on a schedule (its share of the backlog)', registers, collect() { this.set(sources.reconciler.pollers()); } });
  new Gauge({ name: 'merchant_proxy_reconciler_reads_in_flight', help: 'Reconciling reads of the provider under way in this process', registers, collect() { this.set(sources.reconciler.readsInFlight()); } });
  new Gauge({ name: 'merchant_proxy_reconciler_reads_waiting', help: 'Reconciling reads waiting for a free slot (relay.maxReadsInFlight)', registers, collect() { this.set(sources.reconciler.readsWaiting()); } });
  new Gauge({ name: 'merchant_proxy_event_streams_open', help: 'Status event streams open in this process', registers, collect() { this.set(sources.streams()); } });

  // The store's figures: read once per scrape, however many gauges show them.
  let figures: Promise<StoreFigures | null> | undefined;
  const storeFigures = () =>
    (figures ??= readStoreFigures(sources.orderStores, sources.outbox, sources.now())
      .catch(() => null)
      .finally(() => setImmediate(() => (figures = undefined))));
  const fromStore = (name: string, help: string, labelNames: string[], fill: (gauge: Gauge, f: StoreFigures) => void) =>
    new Gauge({
      name,
      help: `${help} (the store's, the same on every instance: aggregate with max)`,
      labelNames,
      registers,
      async collect() {
        const f = await storeFigures();
        this.reset();
        if (f) fill(this, f);
      },
    });
  fromStore('merchant_proxy_orders_unsettled', 'Orders whose money is not settled yet', [], (g, f) => g.set(f.unsettled));
  fromStore('merchant_proxy_orders_live', 'Live payment tries and checkout sessions of unsettled orders, by phase', ['kind', 'phase'], (g, f) => {
    for (const { kind, phase, count } of f.live) g.set({ kind, phase }, count);
  });
  fromStore('merchant_proxy_orders_unresolved', 'Orders left for the operator (orders unresolved)', [], (g, f) => g.set(f.unresolved));
  fromStore('merchant_proxy_outbox_pending', 'Notifications not yet delivered, per consumer (hooks, receipts, webhooks)', ['consumer'], (g, f) => {
    for (const { consumer, pending } of f.outbox) g.set({ consumer }, pending);
  });
  fromStore('merchant_proxy_outbox_oldest_pending_seconds', 'Age of the oldest notification not yet delivered, per consumer', ['consumer'], (g, f) => {
    for (const { consumer, oldestSeconds } of f.outbox) g.set({ consumer }, oldestSeconds);
  });
  fromStore('merchant_proxy_outbox_dead_letters', 'Notifications given up on (the dead-letter set; webhooks replayable)', [], (g, f) => g.set(f.deadLetters));

  function onClose(this: ServerResponse & { req: IncomingMessage & { route?: { path?: unknown } }; [STARTED]?: number }): void {
    const req = this.req;
    const route = typeof req.route?.path === 'string' ? req.route.path : 'unmatched';
    const method = req.method ?? 'GET';
    requests.inc({ method, route, code: String(this.statusCode) });
    const started = this[STARTED];
    if (started !== undefined && !String(this.getHeader('content-type') ?? '').startsWith('text/event-stream')) {
      requestSeconds.observe({ method, route }, (HOST_RUNTIME.now() - started) / 1000);
    }
  }

  return {
    get registry() {
      return withDefaults();
    },
    handler(_req, res) {
      withDefaults()
        .metrics()
        .then(
          (text) => {
            res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
            res.end(text);
          },
          () => {
            res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
            res.end('metrics could not be collected\n');
          },
        );
    },
    observe(_req, res) {
      // The access log's start, when it keeps one: a stream held for minutes carries one property, not two.
      (res as ServerResponse & { [STARTED]?: number })[STARTED] ??= HOST_RUNTIME.now();
      res.on('close', onClose);
    },
    providerCall(call) {
      calls.inc({ interface: call.upstream, operation: call.operation, calls: call.calls, outcome: call.outcome });
      if (call.outcome !== 'refused') callSeconds.observe({ interface: call.upstream, calls: call.calls, outcome: call.outcome }, call.seconds);
    },
    storeError: (operation) => storeErrors.inc({ operation }),
    commitConflict: () => conflicts.inc(),
  };
}


/** Async operations of the store counted when they throw; `commit` also when refused. */
const COUNTED = ['get', 'set', 'setIfAbsent', 'compareAndSet', 'commit', 'del', 'incr', 'addToSet', 'removeFromSet', 'members', 'publish', 'subscribe'] as const;

/**
 * The store as the proxy uses it, counting what fails: a proxy of the same object (so `instanceof RedisStore`
 * and its own properties hold), whose counted methods report a throw, and a commit refused (the record
 * changed: the order book reads again and retries), to the metrics.
 */
export function countedStore<S extends ProxyStore>(store: S, metrics: Pick<ProxyMetrics, 'storeError' | 'commitConflict'>): S {
  const wrapped = new Map<PropertyKey, unknown>();
  for (const name of COUNTED) {
    const original = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
    wrapped.set(name, async (...args: unknown[]) => {
      try {
        const result = await original(...args);
        if (name === 'commit' && result === false) metrics.commitConflict();
        return result;
      } catch (err) {
        metrics.storeError(name);
        throw err;
      }
    });
  }
  return new Proxy(store, { get: (target, prop, receiver) => (wrapped.has(prop) ? wrapped.get(prop) : Reflect.get(target, prop, receiver)) });
}
