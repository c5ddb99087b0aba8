/**
 * The model test's world: two proxy instances on one store (a MemoryStore every call of which is a scheduling
 * point; in the `shards` era, orders split into two shards, each a MemoryStore of its own), the scripted
 * provider, a clock the test owns, customers' commands, and the merchant's receiver of notifications. Nothing
 * here uses a real timer: the instances run on a manual runtime (no pollers, no sweep timer), sleep moves the
 * model's clock, and ids and jitter come from the run's seed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';
import { resolveConfig } from '../../../src/proxy/config.js';
import type { ProxyContext } from '../../../src/proxy/context.js';
import { ProxyError } from '../../../src/proxy/errors.js';
import { ORDER_CHANNELS, ORDER_KEYS } from '../../../src/proxy/order/keys.js';
import { createLimiterFactory } from '../../../src/proxy/limits.js';
import { createOrders, type Orders } from '../../../src/proxy/order/orders.js';
import { IncompleteSweep } from '../../../src/proxy/reconcile/reconciler.js';
import type { Order } from '../../../src/proxy/order/order-record.js';
import type { OutboxConsumer, OutboxMessage } from '../../../src/proxy/notify/outbox.js';
import { MemoryStore } from '../../../src/proxy/store/memory.js';
import { StoreUnavailableError } from '../../../src/proxy/store/store-error.js';
import { StoreClock } from '../../../src/proxy/store/store-clock.js';
import { HISTORY_INTERVAL_MS } from '../../../src/proxy/store/store-history.js';
import { shardIndex, StoreShard } from '../../../src/proxy/store/store-shards.js';
import type { ProxyStore } from '../../../src/proxy/store/types.js';
import type { CheckoutClaims, PaymentClaims } from '../../../src/proxy/tokens/claims.js';
import { ScriptedProvider, type StatusReference } from './scripted-provider.js';
import { CommitRules, type Truth } from './commit-rules.js';
import { reported } from './reported.js';

/** What a run varies besides its commands: how the provider reads, and which loss it suffers. */
export interface WorldConfig {
  statusReference: StatusReference;
  lists: boolean;
  prefix: '' | 'SHOP-A-';
  /**
   * A run loses either the store (flushes) or processes (restarts), never both: that would be total loss. Or,
   * from the `ledger` era, the store goes back in time (`rollback`: a Redis restarted from its last snapshot,
   * or a failover to a replica that lagged), only where the provider can be read by reference (DESIGN: the
   * provider is the ledger; elsewhere the store must not go back).
   */
  losses: 'flush' | 'restart' | 'rollback';
  /** Reads' answers take a trip back (the scripted provider's `readsInFlight`); true unless told. */
  readsInFlight?: boolean;
  /**
   * How far the second process's own clock is from the true time (ms): its host's clock drifted or was
   * stepped; the other processes' clocks are true. Set (from the `clock` era), every process reads the store's
   * clock (DESIGN: one clock); unset, as runs of the eras before it, the processes run on the true clock with
   * no such reading.
   */
  skewMs?: number;
  /**
   * The store counts the processes listening on it (Redis `PUBSUB NUMSUB`): the `now` era's; before it, it
   * counted nobody.
   */
  presence?: boolean;
  /**
   * The `locks` era: the store is of format 2 (the number a token locks kept as a lock, DESIGN: phone numbers
   * at rest), the tokens of the second order lock the number they pay, and the second process signs with a
   * new token secret (a rotation under way). Before it, no token locked one.
   */
  locks?: boolean;
  /**
   * The `shards` era: orders are split into `SHARDS` shards (DESIGN: Redis Cluster), each a store of its own
   * with its epoch, hold and outbox, the limits, the clock and the channels the whole store's. A loss strikes
   * one shard (its flush, its going back, a replica of it that lags); the other keeps its records.
   */
  shards?: boolean;
}

/** How many shards orders are split into in the `shards` era: O1 is kept in shard 1, O2 in shard 0. */
export const SHARDS = 2;

export const ORDERS = ['O1', 'O2'] as const;
/** The token secrets: every process's, and the second's in the `locks` era (a rotation under way). */
const OLD_SECRET = 'model-secret-of-at-least-thirty-two-bytes';
const NEW_SECRET = 'model-secret-after-its-rotation-0123456789';
export const AMOUNT = 12.5;
export const NUMBERS = ['233240000001', '233200000003', '233240000002'] as const;
const START = Date.UTC(2026, 10, 25);
/**
 * One silent logger for every world of the process: a pino logger made per instance opened a stdout stream
 * each (SonicBoom), and the long run's workers kept a hundred kilobytes a run until their heap ran out.
 */
const SILENT = pino({ level: 'silent' });
/** The instances' grace for an unknown outcome (`relay.unknownGraceMs`): longer than a late landing's bound. */
export const GRACE_MS = 20_000;
/** More than any order of a run needs (a run has at most 40 commands): a record this large grows unbounded. */
const MAX_RECORD_BYTES = 64_000;
/** Each instance's sweep interval (the proxy's default). */
const SWEEP_MS = 15_000;

/** A timer that never fires (the model's world runs no real timer). */
function clearedTimer(): NodeJS.Timeout {
  const timer = setTimeout(() => undefined, 0);
  clearTimeout(timer);
  return timer;
}

/** A small seeded PRNG (mulberry32): ids and jitter replay bit for bit from the run's seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Which piece of the world's work a scheduling point is part of: the number of the `start` that began it (a
 * customer's request, a callback, a sweep), and in a sweep the order it reads. A script names calls by it.
 */
export const WORK = new AsyncLocalStorage<string>();

/** What befalls one store commit (see `World.storeFaults`). */
export type StoreFault = 'lost' | 'applied' | 'resent' | null;

interface Instance {
  orders: Orders;
  alive: boolean;
  /**
   * Its reads come from a replica that lags: the store as it was, for so many more reads (`lag`); `shard`:
   * the replica of that shard (null: of the whole store, before the `shards` era).
   */
  lagging?: { replica: MemoryStore; reads: number; shard: number | null };
  /** How far this process's own clock is from the true time (the model's clock), in ms. */
  skewMs: number;
  /** The channels it listens on (other processes count it on each: the presence of the store, or of a shard). */
  channels: Set<string>;
  /** The shards of the `shards` era as this process has them (`ctx.orderStores`): a shard gone back is named by its own. */
  shards: readonly ProxyStore[];
}

export class World {
  clock = START;
  /** The store (in the `shards` era, what is not an order's: the limits, the clock, the channels). */
  memory: MemoryStore;
  /** The `shards` era's shards, each keeping its orders' records, indexes, outbox, epoch and hold (else none). */
  readonly shardMemories: MemoryStore[] = [];
  readonly provider: ScriptedProvider;
  readonly instances: Instance[] = [];
  /** Every notification the merchant received, by id (deliveries are at least once). */
  readonly received = new Map<string, OutboxMessage>();
  /** When the merchant first received each notification (the model's clock). */
  readonly receivedAt = new Map<string, number>();
  /** Errors of requests that are not answers (a ProxyError is an answer; so is the store's outage, a 503). */
  readonly crashes: unknown[] = [];
  /**
   * What befalls the next store commits, whichever process makes them: `lost`, it times out before it ran;
   * `applied`, it ran and its answer was lost (a Redis command past its timeout, a dropped connection);
   * `resent`, it ran, its answer was lost and the client sent it again, whose run answers (refused: the record
   * is no longer what it expected); null, none.
   */
  readonly storeFaults: StoreFault[] = [];
  private readonly running = new Map<Promise<unknown>, Instance | null>();
  /** How many pieces of work were started (`WORK`). */
  private works = 0;
  private jtis = 0;
  private readonly sweptAt: number[] = [];
  readonly random: () => number;

  constructor(
    readonly config: WorldConfig,
    seed: number,
    readonly step: (label: string) => Promise<void>,
  ) {
    this.rules = new CommitRules({ locks: config.locks === true });
    this.random = seeded(seed);
    this.memory = this.newMemory();
    if (config.shards) for (let i = 0; i < SHARDS; i++) this.shardMemories.push(this.newMemory());
    this.provider = new ScriptedProvider({ statusReference: config.statusReference, lists: config.lists, readsInFlight: config.readsInFlight ?? true, now: () => this.clock, step, newId: () => this.newId() });
    this.instances.push(this.instance(0), this.instance(1));
  }

  /** Each instance reads the store's epoch at start, as a started proxy does. */
  ready(): void {
    for (const instance of this.instances) this.start(instance, () => instance.orders.ready);
  }

  newId(): string {
    return Math.floor(this.random() * 2 ** 48).toString(36).padStart(10, '0');
  }

  /** An instance of the proxy's money side, as createMerchantProxy builds it, on a manual runtime. */
  private instance(index: number): Instance {
    const self: Instance = { alive: true, orders: undefined as never, skewMs: index === 1 ? (this.config.skewMs ?? 0) : 0, channels: new Set(), shards: [] };
    const store = this.scheduledStore(self, null);
    // Each shard's keys in its own store, each call a scheduling point; its channels and clock the store's.
    self.shards = this.shardMemories.map((_, i) => new StoreShard(this.scheduledStore(self, i), store, `shard ${i} of ${SHARDS}`));
    // The process's own clock is off by its skew; its monotonic clock runs with the true one. Runs of the eras
    // before clocks could differ (`skewMs` unset) ran on the true clock, with no reading of the store's: so
    // they still do, and replay step for step.
    const clock = this.config.skewMs === undefined ? null : new StoreClock(store, undefined, { wall: () => this.clock + self.skewMs, monotonic: () => this.clock });
    const config = resolveConfig({
      provider: {
        env: 'production',
        messagingBaseUrl: 'https://pay.example',
        paymentBaseUrl: 'https://pay.example/gateway',
        messaging: { apiKey: 'k', apiSecret: 's' },
        payment: { username: 'u', password: 'p' },
        checkout: { apiKey: 'c' },
        statusReference: this.config.statusReference,
        checkoutListing: this.config.lists,
      },
      // In the `locks` era a rotation of the token secret is under way: the second process signs with the new
      // secret, the others with the old, each accepting the other's, so a lock one made is told by the other.
      ...(this.config.locks
        ? { tokenSecret: index === 1 ? NEW_SECRET : OLD_SECRET, acceptedTokenSecrets: [index === 1 ? OLD_SECRET : NEW_SECRET] }
        : { tokenSecret: OLD_SECRET }),
      payeeName: 'Shop',
      referencePrefix: this.config.prefix,
      store,
      timeouts: { connectMs: 500, totalMs: 1_000 },
      relay: { minIntervalMs: 1_000, maxIntervalMs: 10_000, deadlineMs: 60_000, reconcileWindowMs: 300_000, unknownGraceMs: GRACE_MS },
      limits: { paymentPromptsPerNumber: { points: 100_000, durationSec: 3_600 }, paymentsInFlightPerNumber: { points: 100_000, durationSec: 3_600 } },
      logger: SILENT,
    });
    const ctx: ProxyContext = {
      config,
      client: this.provider.client(),
      store,
      tokens: undefined as never,
      logger: SILENT,
      limiter: createLimiterFactory(store),
      hooks: {},
      now: clock ? clock.now : () => this.clock,
      ...(clock ? { clock } : {}),
      ...(this.config.locks ? { storeFormat: () => 2 } : {}),
      ...(this.config.shards ? { orderStores: self.shards } : {}),
    };
    const merchant: OutboxConsumer = {
      name: 'merchant',
      accepts: () => true,
      deliver: async (message) => {
        this.received.set(message.id, message);
        if (!this.receivedAt.has(message.id)) this.receivedAt.set(message.id, this.clock);
      },
    };
    self.orders = createOrders(ctx, [merchant], {
      manual: true,
      newId: () => this.newId(),
      random: this.random,
      // No timer fires in the model's world: the outbox is drained by the instances' sweeps, on its clock.
      timeout: () => clearedTimer(),
      sleep: async (ms) => {
        this.clock += ms;
        await this.step('sleep');
      },
    });
    return self;
  }

  /**
   * The shared store as one instance sees it: every call a scheduling point; a dead instance's calls never end.
   * `shard`: the keys of that shard of the `shards` era (null: the store).
   */
  private scheduledStore(self: Instance, shard: number | null): ProxyStore {
    const alive = () => self.alive;
    const memory = () => (shard === null ? this.memory : this.shardMemories[shard]!);
    const call =
      <K extends keyof MemoryStore>(name: K) =>
      async (...args: unknown[]) => {
        await this.step(`store ${String(name)}`);
        if (!alive()) return new Promise(() => undefined);
        return (memory()[name] as (...a: unknown[]) => unknown)(...args);
      };
    // A read from the replica while it lags; it has caught up after its reads.
    const read =
      <K extends 'get' | 'members'>(name: K) =>
      async (...args: unknown[]) => {
        const lag = self.lagging;
        if (!lag || lag.shard !== shard) return call(name)(...args);
        await this.step(`store ${name}`);
        if (!alive()) return new Promise(() => undefined);
        if (--lag.reads <= 0) self.lagging = undefined;
        return (lag.replica[name] as (...a: unknown[]) => unknown)(...args);
      };
    return {
      kind: 'memory',
      get: read('get'),
      set: call('set'),
      setIfAbsent: call('setIfAbsent'),
      compareAndSet: call('compareAndSet'),
      commit: async (...args: Parameters<MemoryStore['commit']>) => {
        await this.step('store commit');
        if (!alive()) return new Promise(() => undefined);
        // A record that grows without bound fails its run, as a crash, instead of making it run for ever (a join
        // that was not idempotent made two processes join each other's copies again and again: a long run
        // hung on it, each turn slower than the last).
        const { key, value } = args[0];
        if (value.length > MAX_RECORD_BYTES) throw new Error(`the record ${key} grew to ${value.length} bytes`);
        const fault = this.storeFaults.shift();
        if (fault === 'lost') throw new StoreUnavailableError('commit', new Error('timed out before it ran'));
        const done = await memory().commit(...args);
        if (done) this.committed(args[0]);
        else this.refusedCommits++;
        if (fault === 'applied') throw new StoreUnavailableError('commit', new Error('ran, and its answer was lost'));
        // Resent after a reconnect (ioredis resends what went unanswered): it runs again, and that run answers.
        if (fault === 'resent') {
          const again = await memory().commit(...args);
          if (again) this.committed(args[0]);
          return again;
        }
        return done;
      },
      del: call('del'),
      incr: call('incr'),
      addToSet: call('addToSet'),
      removeFromSet: call('removeFromSet'),
      members: read('members'),
      time: call('time'),
      publish: async () => undefined,
      subscribe: async (channel: string) => {
        self.channels.add(channel);
        return async () => undefined;
      },
      // Who listens (the 'now' era's processes, as Redis counts connections): the live processes that do. Only
      // presence channels are counted (the store's, and each shard's in the `shards` era).
      ...(!this.config.presence
        ? {}
        : {
            subscribers: async (channel: string) => {
              await this.step('store subscribers');
              if (!alive()) return new Promise(() => undefined);
              return channel.startsWith(ORDER_CHANNELS.presence) ? this.instances.filter((x) => x.alive && x.channels.has(channel)).length : 0;
            },
          }),
      ping: async () => true,
      close: async () => undefined,
    } as ProxyStore;
  }

  /** The money rules checked at every commit of an order record (commit-rules.ts). */
  readonly rules: CommitRules;
  /** The command under way (its index in the run), for naming where a rule broke. */
  command: number | 'start' | 'quiesce' = 'start';
  /** Commits the store refused (what they expected was no longer there). */
  refusedCommits = 0;
  /** Every rule a commit broke, with the command under way. */
  readonly brokenAtCommit: string[] = [];

  private readonly truth: Truth = {
    payment: (reference) => this.provider.payments.get(reference),
    session: (checkoutId) => this.provider.sessions.get(checkoutId),
    told: () => [...this.received.values()].map(reported),
  };

  /** A commit of an order record ran: the rules that hold at every moment are checked on it. */
  private committed(write: Parameters<MemoryStore['commit']>[0]): void {
    if (!ORDERS.some((o) => ORDER_KEYS.order(o) === write.key)) return;
    const where = typeof this.command === 'number' ? `at command ${this.command}` : `at ${this.command}`;
    // MODEL_LOG=1: every commit of an order record, before and after, for reading a failing run.
    if (process.env['MODEL_LOG']) console.log(`commit ${where} ${write.key}${write.when ? '' : ' (unconditioned)'}\n  ${outline(write.expected)}\n→ ${outline(write.value)}`);
    for (const rule of this.rules.check(write.expected, write.value, this.truth)) this.brokenAtCommit.push(`${where}: ${rule}`);
  }

  /**
   * Runs an instance's work in the background; an error that is not an answer is kept (the run fails on it).
   * Work of an instance that died never ends, and is waited for no more.
   */
  start(instance: Instance | null, work: () => Promise<unknown>): void {
    const p = WORK.run(String(this.works++), work).catch((err: unknown) => {
      if (!(err instanceof ProxyError) && !(err instanceof StoreUnavailableError)) this.crashes.push(err);
    });
    this.running.set(p, instance);
    void p.finally(() => this.running.delete(p));
  }

  /** True while work of a live instance is under way. */
  get busy(): boolean {
    for (const instance of this.running.values()) if (instance === null || instance.alive) return true;
    return false;
  }

  /** A customer's payment request on instance `i`. */
  pay(i: number, order: string, msisdn: string): void {
    const instance = this.at(i);
    const locked = this.config.locks && order === ORDERS[1] ? { msisdn } : {};
    this.start(instance, () => instance.orders.pay({ ...this.paymentClaims(order, 3), ...locked }, msisdn));
  }

  /** The provider's callbacks, delivered to instance `i` (its body names the referenceId). */
  callbacks(i: number): void {
    const instance = this.at(i);
    for (const cb of this.provider.callbacks.splice(0)) this.start(instance, () => instance.orders.callback(cb.callbackId, cb.referenceId));
  }

  /** One reconciling pass over an order on instance `i` (what its poller would run). */
  reconcile(i: number, order: string): void {
    const instance = this.at(i);
    this.start(instance, () => instance.orders.reconcile(order));
  }

  paymentClaims(order: string, maxAttempts: number): PaymentClaims {
    return { jti: `j${++this.jtis}`, exp: 0, aud: 'merchant-elements', scope: 'payment', amount: AMOUNT, referenceNo: order, narration: `Order ${order}`, payee: 'Shop', maxAttempts };
  }

  checkoutClaims(order: string): CheckoutClaims {
    return { jti: `j${++this.jtis}`, exp: 0, aud: 'merchant-elements', scope: 'checkout', title: 'Order', reference: order, amount: AMOUNT, description: 'An order', returnUrl: 'https://shop.example/done' };
  }

  live(): Instance[] {
    return this.instances.filter((i) => i.alive);
  }

  /** A customer's checkout: a session whose URL reaches the customer can be paid from then on. */
  checkout(i: number, order: string): void {
    const instance = this.at(i);
    this.start(instance, async () => {
      const answer = await instance.orders.checkout(this.checkoutClaims(order));
      const session = this.provider.sessions.get(answer.checkoutId);
      if (session && answer.checkoutUrl) session.reachable = true;
    });
  }

  /** One instance's sweep: every unsettled order read once, and the outbox drained. */
  sweep(i: number): void {
    const instance = this.at(i);
    if (!instance.alive) return;
    this.sweptAt[i] = this.clock;
    this.start(instance, async () => {
      let refs: readonly string[];
      try {
        refs = await instance.orders.unsettled();
      } catch (err) {
        // Some shards did not answer: what the others listed is read, as the reconciler's sweep does.
        if (!(err instanceof IncompleteSweep)) throw err;
        refs = err.found;
      }
      await Promise.all(refs.map((ref) => WORK.run(`${WORK.getStore()}.${ref}`, () => instance.orders.reconcile(ref))));
      instance.orders.outbox.kick();
    });
  }

  /**
   * Time passes; each instance sweeps every `SWEEP_MS` of it, as its timer would. Past `HISTORY_INTERVAL_MS`
   * after the store went back, each process that was running then has had its watch's next look, and merges
   * its copies under the hold (`movedBack`; in the `shards` era of the shard that went back only), as
   * `create-proxy.ts` has it do.
   */
  advance(ms: number): void {
    this.clock += ms;
    this.provider.tick();
    if (ms >= HISTORY_INTERVAL_MS) {
      for (const { instance, shard } of this.watching.splice(0)) {
        if (instance.alive) this.start(instance, () => instance.orders.movedBack(shard === null ? undefined : [instance.shards[shard]!]));
      }
    }
    for (let i = 0; i < this.instances.length; i++) {
      if (this.clock - (this.sweptAt[i] ?? START) >= SWEEP_MS) this.sweep(i);
    }
  }

  /**
   * The shop's operator, with the provider's dashboard: every order the server API lists as unresolved is
   * resolved with the provider's word (a referenceId or checkoutId it has under the order's reference, or
   * "absent"), as the operations guide says.
   */
  operator(): void {
    const instance = this.instances.find((x) => x.alive)!;
    this.start(instance, async () => {
      for (const order of await instance.orders.unresolved(100)) {
        for (const t of order.tries.filter((x) => x.phase === 'unknown')) {
          const upstream = this.provider.payments.get(t.reference);
          const word = upstream && !upstream.foreign ? { reference: t.reference, referenceId: upstream.referenceId } : upstream ? null : { reference: t.reference, absent: true as const };
          if (word) await instance.orders.resolve(order.orderReference, word).catch(() => undefined);
        }
        for (const session of order.sessions.filter((x) => x.phase === 'unknown')) {
          const known = new Set(order.sessions.map((x) => x.checkoutId));
          const upstream = [...this.provider.sessions.values()].find((x) => x.reference === `${this.config.prefix}${order.orderReference}` && !known.has(x.checkoutId));
          const word = upstream ? { session: session.session, checkoutId: upstream.checkoutId } : { session: session.session, absent: true as const };
          await instance.orders.resolve(order.orderReference, word).catch(() => undefined);
        }
      }
    });
  }

  /**
   * Instance `i`; one that has not joined yet stands for the first (commands name three instances, and a
   * third exists only once it joined).
   */
  at(i: number): Instance {
    return this.instances[i] ?? this.instances[0]!;
  }

  restart(i: number): void {
    this.instances[i]!.alive = false;
    const fresh = this.instance(i);
    this.instances[i] = fresh;
    this.start(fresh, () => fresh.orders.ready);
  }

  /**
   * A third process joins (scaled out, or a rolling deploy's new one), with no copy of any order: after a
   * flush it meets a store without an epoch before the others noticed the loss. At most one joins a run.
   */
  join(): void {
    if (this.instances.length >= 3) return;
    const fresh = this.instance(2);
    this.instances.push(fresh);
    this.start(fresh, () => fresh.orders.ready);
  }

  /**
   * The store is emptied; in the `shards` era, only shard `shard` (`shard` modulo `SHARDS`): the other keeps its
   * records, and the versions the run remembers of them.
   */
  flush(shard = 0): void {
    if (!this.config.shards) {
      this.memory = this.newMemory();
      this.rules.restore(null);
      return;
    }
    const s = shard % SHARDS;
    this.shardMemories[s] = this.newMemory();
    this.rules.restore(null, this.ordersOf(s));
  }

  /**
   * Instance `i` reads from a replica that stopped at the store as it is now, for its next `reads` reads (its
   * writes go to the master, where a compare-and-set on what it read fails once the master moved on); then
   * the replica has caught up. In the `shards` era the replica is shard `shard`'s (modulo `SHARDS`): the
   * process's reads of the other shard, and of the store's own keys, are the masters'.
   */
  lag(i: number, reads: number, shard = 0): void {
    const instance = this.at(i);
    if (!this.config.shards) instance.lagging = { replica: this.copyOf(this.memory), reads, shard: null };
    else instance.lagging = { replica: this.copyOf(this.shardMemories[shard % SHARDS]!), reads, shard: shard % SHARDS };
  }

  /** The store as it was at its last snapshot (a Redis's RDB file): what a rollback restores. */
  private saved: MemoryStore | null = null;
  /** In the `shards` era, each shard as it was at its last snapshot (none yet: empty). */
  private savedShards: MemoryStore[] = [];

  /** The store takes a snapshot of itself (Redis's `save`, or what a lagging replica has); every shard of it its own. */
  snapshot(): void {
    if (!this.config.shards) this.saved = this.copyOf(this.memory);
    else this.savedShards = this.shardMemories.map((m) => this.copyOf(m));
    this.savedVersions = this.rules.save();
  }

  private savedVersions: Map<string, number> | null = null;

  /**
   * The processes whose store watch has yet to notice that the store went back (those running when it did: a
   * process started later takes the store as it finds it).
   */
  private watching: { instance: Instance; shard: number | null }[] = [];

  /**
   * The store goes back to its last snapshot (none yet: to empty), every epoch and version in it as it was.
   * Until the next look of their watches (`advance`) the processes go on as if nothing happened. In the
   * `shards` era only shard `shard` (modulo `SHARDS`) goes back, and its watches are the ones that look.
   */
  rollback(shard = 0): void {
    if (!this.config.shards) {
      this.watching = this.live().map((instance) => ({ instance, shard: null }));
      this.memory = this.saved ? this.copyOf(this.saved) : this.newMemory();
      // The store's history went back: so do the versions it had committed.
      this.rules.restore(this.savedVersions);
      return;
    }
    const s = shard % SHARDS;
    this.watching = [...this.watching.filter((x) => x.shard !== s), ...this.live().map((instance) => ({ instance, shard: s }))];
    const saved = this.savedShards[s];
    this.shardMemories[s] = saved ? this.copyOf(saved) : this.newMemory();
    // That shard's history went back, and the versions of its orders with it; the other's did not.
    this.rules.restore(this.savedVersions, this.ordersOf(s));
  }

  /** The orders shard `s` keeps. */
  private ordersOf(s: number): Set<string> {
    return new Set(ORDERS.filter((o) => shardIndex(o, SHARDS) === s));
  }

  /** The store that keeps the order's keys: its shard's in the `shards` era, else the store. */
  memoryOf(order: string): MemoryStore {
    return this.config.shards ? this.shardMemories[shardIndex(order, SHARDS)]! : this.memory;
  }

  private copyOf(from: MemoryStore): MemoryStore {
    type Insides = { entries: Map<string, { value: string; expiresAt: number }>; sets: Map<string, Set<string>>; setExpiry: Map<string, number> };
    const to = this.newMemory();
    const a = from as unknown as Insides;
    const b = to as unknown as Insides;
    for (const [k, v] of a.entries) b.entries.set(k, { ...v });
    for (const [k, v] of a.sets) b.sets.set(k, new Set(v));
    for (const [k, v] of a.setExpiry) b.setExpiry.set(k, v);
    return to;
  }

  /** Every store the world made (a flush makes a fresh one). */
  private readonly stores: MemoryStore[] = [];

  private newMemory(): MemoryStore {
    const store = new MemoryStore(() => this.clock);
    this.stores.push(store);
    return store;
  }

  /**
   * Ends the world: its stores' sweep timers, which otherwise held every world of a long run (the
   * long run's workers grew by a hundred kilobytes a run until their heap ran out).
   */
  async close(): Promise<void> {
    await Promise.all(this.stores.map((store) => store.close()));
  }
}

/** One line of an order record: id, version, each try's and session's phase and time, what was read. */
function outline(raw: string | null): string {
  if (raw === null) return 'nothing';
  const o = JSON.parse(raw) as Order;
  const tries = o.tries.map((t) => `${t.reference} ${t.phase} @${t.updatedAt}`);
  const sessions = o.sessions.map((x) => `session ${x.ordinal} ${x.checkoutId ?? '-'} ${x.phase} @${x.updatedAt}`);
  return `${o.id} v${o.v} @${o.updatedAt} [${[...tries, ...sessions].join(', ')}] read ${o.history.payments}/${o.history.sessions}`;
}
