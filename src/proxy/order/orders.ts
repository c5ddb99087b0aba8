import type { CheckoutCreateResponse, CheckoutSnapshot, OrderResolution, OrderView, PaymentSnapshot, UnresolvedOrder } from '../../protocol/index.js';
import { BoundedMap, Throttle } from '../bounded-map.js';
import type { ProxyContext } from '../context.js';
import type { ProxyStore } from '../store/types.js';
import { Outbox, type OutboxConsumer } from '../notify/outbox.js';
import { Outboxes } from '../notify/outboxes.js';
import { IncompleteSweep, Reconciler } from '../reconcile/reconciler.js';
import { findInShards, membersInShards, shardOf } from '../store/store-shards.js';
import { hooksConsumer, receiptsConsumer } from '../notify/consumers.js';
import { relayOptions, type RelayOptions } from '../config-relay.js';
import { StreamLimiter } from '../notify/stream-limiter.js';
import { LiveStreams } from '../notify/sse.js';
import { type Watcher, Watchers } from '../notify/watchers.js';
import type { CheckoutClaims, PaymentClaims } from '../tokens/claims.js';
import { CheckoutUpstream } from '../upstream/checkout-upstream.js';
import { checkoutUrlCheck } from '../upstream/checkout-url.js';
import { PaymentUpstream } from '../upstream/payment-upstream.js';
import { checkoutFlow } from './checkout-flow.js';
import { ORDER_KEYS, type Subject } from './keys.js';
import { OrderBook } from './order-book.js';
import type { OrderDeps } from './order-deps.js';
import { estimateCharge, OrderQueries } from './order-queries.js';
import { tryByReference, type CheckoutTry, type NumberLocks, type Order, type PaymentTry } from './order-record.js';
import { resolveOrder, unresolvedOrders } from './operator.js';
import { payFlow } from './pay-flow.js';
import { readPayment } from './reads.js';
import { checkPromptLimits } from '../prompt-limits.js';
import { reconcilePass } from '../reconcile/reconcile-flow.js';
import { references } from './references.js';
import { numberKeysOf, warnUnknownLocks } from '../number-keys.js';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';
import { LOCKED_NUMBERS_FORMAT } from '../store/store-format.js';

/**
 * The money side of one proxy instance (DESIGN: one order, one record, one transition): the book of orders,
 * the flows of the two ways to pay, the reconciler, the outbox, the queries, and the event streams' fan-out.
 */
export interface Orders {
  pay(claims: PaymentClaims, msisdn: string): Promise<PaymentSnapshot>;
  checkout(claims: CheckoutClaims): Promise<CheckoutCreateResponse>;
  view(claims: PaymentClaims): Promise<OrderView>;
  queries: OrderQueries;
  /** The merchant's reads (never the browser's word). */
  payments: { get(orderReference: string): Promise<PaymentSnapshot | null>; getAttempt(reference: string): Promise<PaymentSnapshot | null> };
  checkouts: { get(reference: string): Promise<CheckoutSnapshot | null>; getSession(checkoutId: string): Promise<CheckoutSnapshot | null> };
  /** A customer (or the merchant) looks at a try: one no page waits on anymore is read now. */
  look(order: Order, t: PaymentTry): void;
  /** Keeps the order read while a page watches it. */
  track(ref: string): void;
  /**
   * The provider's status callback: a hint to read now. `referenceId`: one its body named, believed only as far
   * as a read by it answers with the try's own reference.
   */
  callback(callbackId: string, referenceId?: string): Promise<void>;
  /** The account lookup saw this number's network (for the prompt's lifetime). */
  rememberNetwork(msisdn: string, network: string): void;
  unresolved(limit: number): Promise<UnresolvedOrder[]>;
  /** One reconciling pass over an order now (what the pollers run; a manual runtime's caller runs it). */
  reconcile(ref: string): Promise<unknown>;
  /** What a sweep reads: the store's unsettled orders and this process's unsettled copies. */
  unsettled(): Promise<string[]>;
  resolve(ref: string, input: OrderResolution): Promise<UnresolvedOrder>;
  /** The store's history moved back (its watch said so): every process merges its copies under a hold (`stores`: of those shards only). */
  movedBack(stores?: readonly ProxyStore[]): Promise<void>;
  /** `listener` is told each change of `subject` until `unwatch`. */
  watch(subject: Subject, listener: Watcher): void;
  unwatch(subject: Subject, listener: Watcher): void;
  outbox: Outboxes;
  reconciler: Reconciler;
  streams: StreamLimiter;
  /** The status streams open in this process, and their heartbeats. */
  live: LiveStreams;
  options: RelayOptions;
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * What a process runs the order on (DESIGN: the checker owns the world): its sleep, timers, randomness and
 * ids, and whether the reconciler runs by itself (pollers, the sweep's timer) or only when called (`manual`:
 * the model test owns time and order).
 */
export type OrdersRuntime = Pick<Runtime, 'sleep' | 'random' | 'newId' | 'timeout'> & { manual: boolean };

const REAL_RUNTIME: OrdersRuntime = { ...HOST_RUNTIME, manual: false };

/** Builds the money side of one instance and starts reconciling what the store holds. */
export function createOrders(ctx: ProxyContext, extraConsumers: readonly OutboxConsumer[] = [], runtime: OrdersRuntime = REAL_RUNTIME): Orders {
  const options = relayOptions(ctx.config);
  const { config, logger, store, client } = ctx;
  // Orders are kept in the whole store, or split into its shards (DESIGN: Redis Cluster), each with its outbox.
  const stores = ctx.orderStores ?? [store];
  const consumers = [hooksConsumer(ctx), receiptsConsumer(ctx), ...extraConsumers];
  const outbox = new Outboxes(stores.map((s) => new Outbox(s, consumers, logger, ctx.now, options.outbox, runtime)));
  const refs = references(config.referencePrefix);
  const payments = new PaymentUpstream(client, logger, config.provider.statusReference);
  const lists = config.provider.checkoutListing ?? config.provider.env === 'sandbox';
  const checkouts = new CheckoutUpstream(client, logger, lists, checkoutUrlCheck(config.provider, logger));
  const watchers = new Watchers();
  // The number a token locks is written as a lock once the store's format keeps it so (DESIGN: phone numbers at rest).
  const keys = numberKeysOf(config);
  const holds = warnUnknownLocks(keys, logger);
  const lockedNumbers: NumberLocks = { atRest: keys.lock, holds };
  const fullNumbers: NumberLocks = { atRest: null, holds };
  const format = ctx.storeFormat ?? (() => 1);
  const env = () => ({
    now: ctx.now(),
    numbers: format() >= LOCKED_NUMBERS_FORMAT ? lockedNumbers : fullNumbers,
    leaseMs: options.initiationLeaseMs,
    graceMs: options.unknownGraceMs,
    deadlineMs: options.deadlineMs,
    references: refs,
    readsByReferenceNo: payments.readsByReferenceNo,
    listsSessions: lists,
    reconcileWindowMs: options.reconcileWindowMs,
  });
  const newId = runtime.newId;
  const book = new OrderBook({
    store: stores[0]!,
    outbox: outbox.parts[0]!,
    ...(stores.length > 1 ? { shards: stores.map((s, i) => ({ store: s, outbox: outbox.parts[i]! })) } : {}),
    logger,
    env,
    readable: { payments: payments.readsByReferenceNo, sessions: lists },
    newId,
    numberKey: keys.of,
    changed: (subject) => watchers.emit(subject),
    recoveryMs: 3 * options.sweepIntervalMs,
    ...(ctx.clock ? { clockRead: () => ctx.clock!.ensure() } : {}),
  });
  const networks = new BoundedMap<string, string>(10_000);
  const lifetimes = config.payments.promptLifetimeSeconds;
  let reconciler: Reconciler;
  const deps: OrderDeps = {
    book,
    payments,
    checkouts,
    references: refs,
    payeeName: config.payeeName,
    logger,
    env,
    now: ctx.now,
    sleep: runtime.sleep,
    newId,
    random: runtime.random,
    initiationWaitMs: options.initiationWaitMs,
    checkPromptLimits: (msisdn, reference) => checkPromptLimits(ctx, refs, (ref) => book.read(ref), msisdn, reference, stores),
    async promptLifetimeMs(msisdn) {
      if (!lifetimes) return null;
      let network = networks.get(msisdn);
      if (network === undefined) {
        network = await client.payments.accountHolder(msisdn).then((r) => r.data.network, () => undefined);
        if (network !== undefined) networks.set(msisdn, network);
      }
      const seconds = network === undefined ? undefined : lifetimes[network];
      return seconds === undefined ? null : seconds * 1_000;
    },
    readSoon: (ref) => reconciler.readSoon(ref),
  };
  const pass = (ref: string) => reconcilePass(deps, ref, options.lateIntervalMs);
  // Each shard's unsettled orders; a shard that does not answer leaves the others' to be read.
  const unsettled = async () => {
    const listed = await Promise.allSettled(
      stores.map(async (s, i) => {
        await book.guard(i);
        return s.members(ORDER_KEYS.pending);
      }),
    );
    const found = [...new Set([...listed.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])), ...book.unsettledCopies()])];
    const failed = listed.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failed) return found;
    // None answered: the store's outage, as on one server; some did: the others' orders are still read.
    if (listed.every((r) => r.status === 'rejected')) throw failed.reason;
    throw new IncompleteSweep(found, failed.reason);
  };
  reconciler = new Reconciler(
    { store, leases: (ref) => shardOf(stores, ref), outbox, logger, options, pass, unsettled, manual: runtime.manual, now: ctx.now, runtime },
    (subject) => watchers.emit(subject),
  );
  const queries = new OrderQueries(book, refs, env, (checkoutId) => findInShards(stores, ORDER_KEYS.checkout(checkoutId)));
  const live = new LiveStreams(options.heartbeatMs);

  const look = (order: Order, t: PaymentTry) => reconciler.look(order.ref, queries.isLate(order, t));
  // What the merchant reads is looked at too: a try no page waits on anymore is read now, a session kept read.
  const shownPayment = (found: { order: Order; t: PaymentTry } | null) => {
    if (found) look(found.order, found.t);
    return found && queries.paymentSnapshot(found);
  };
  const shownCheckout = (found: { order: Order; s: CheckoutTry } | null) => {
    if (found) reconciler.track(found.order.ref);
    return found && queries.checkoutSnapshot(found);
  };
  // A try read final is read again for its callbacks at most once per interval.
  const finalReads = new Throttle(options.maxIntervalMs, ctx.now);

  return {
    pay: (claims, msisdn) => payFlow(deps, claims, msisdn),
    checkout: (claims) => checkoutFlow(deps, claims),
    view: (claims) => queries.view(claims, estimateCharge(claims.amount, config.payments.chargePercent)),
    queries,
    payments: {
      get: async (ref) => shownPayment(await queries.payment(ref)),
      getAttempt: async (reference) => shownPayment(await queries.attempt(reference)),
    },
    checkouts: {
      get: async (ref) => shownCheckout(await queries.checkout(ref)),
      getSession: async (checkoutId) => shownCheckout(await queries.session(checkoutId)),
    },
    look,
    track: (ref) => void reconciler.track(ref),
    async callback(callbackId, referenceId) {
      const reference = /^[A-Za-z0-9_-]{1,64}$/.test(callbackId) ? await findInShards(stores, ORDER_KEYS.callback(callbackId)) : null;
      const parsed = reference ? refs.parseAttempt(reference) : null;
      if (!reference || !parsed) return;
      // Kept on the try only where no read can see it without its referenceId (status by referenceId only).
      if (referenceId !== undefined && !payments.readsByReferenceNo) {
        await book.apply(parsed.orderReference, { type: 'hinted', reference, referenceId }, { keep: true });
      }
      await readFinalAgain(deps, parsed.orderReference, reference, finalReads);
      await reconciler.hint(parsed.orderReference);
    },
    rememberNetwork: (msisdn, network) => void networks.set(msisdn, network),
    unresolved: (limit) => unresolvedOrders(deps, (key) => membersInShards(stores, key), limit),
    reconcile: pass,
    unsettled,
    resolve: (ref, input) => resolveOrder(deps, ref, input),
    movedBack: (moved) => book.movedBack(moved),
    watch: (subject, listener) => watchers.watch(subject, listener),
    unwatch: (subject, listener) => watchers.unwatch(subject, listener),
    outbox,
    reconciler,
    streams: new StreamLimiter(options.maxStreamsPerClient, options.maxStreamsPerAddress),
    live,
    options,
    // The store's epoch is known from the start, so a loss after it is noticed (see OrderBook.guard).
    ready: runtime.manual ? book.guard().then(() => undefined) : reconciler.ready,
    async close() {
      live.closeAll();
      await reconciler.close();
      await outbox.close();
    },
  };
}

/**
 * A callback for a try read FAILED or CANCELLED: the provider's transitions after those are not shown, so it may
 * have changed its word (a network's late confirmation). Read once, and a COMPLETED found is the order's (the
 * provider's word wins: reported, and the order held by it). Nobody waits on that read: it goes under the
 * background circuit, sent once, and at most once per `relay.maxIntervalMs` per try however often the callback comes
 * (callbacks for declined payments during a status-read outage opened the circuit customers pay through).
 */
async function readFinalAgain(deps: OrderDeps, ref: string, reference: string, reads: Throttle): Promise<void> {
  const order = await deps.book.read(ref);
  const t = order ? tryByReference(order, reference) : undefined;
  if (!t || (t.phase !== 'failed' && t.phase !== 'cancelled') || !reads.pass(reference)) return;
  await readPayment(deps, ref, reference, t.referenceId, { background: true, pass: order as Order });
}
