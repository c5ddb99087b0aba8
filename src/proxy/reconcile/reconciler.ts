import type { Logger } from 'pino';
import { Throttle } from '../bounded-map.js';
import { ORDER_CHANNELS, ORDER_KEYS } from '../order/keys.js';
import type { PassResult } from './reconcile-flow.js';
import type { Outbox } from '../notify/outbox.js';
import { describeError } from '../describe-error.js';
import { PollerPool } from './poller-pool.js';
import { ReadGate } from './read-gate.js';
import type { RelayOptions } from '../config-relay.js';
import type { ProxyStore } from '../store/types.js';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';

export interface ReconcilerOptions {
  /** Where changes and hints are published (every process listens), and the read leases unless `leases` says. */
  store: ProxyStore;
  /** The store an order's read lease is kept in (its shard: DESIGN, Redis Cluster); `store` when absent. */
  leases?(ref: string): ProxyStore;
  outbox: Pick<Outbox, 'kick'>;
  logger: Logger;
  options: RelayOptions;
  /** One reconciling pass over an order. */
  pass(ref: string): Promise<PassResult>;
  /**
   * The orders a sweep reads: the store's set of unsettled orders, and this process's unsettled copies. Throws
   * {@link IncompleteSweep} when some shards did not answer, with what the others said.
   */
  unsettled(): Promise<string[]>;
  /** Nothing runs by itself (no pollers, no sweep timer, no subscriptions): the caller runs each pass. */
  manual?: boolean;
  /** The clock the looks' and hints' limits are judged on (the model test's, in its world). */
  now(): number;
  /** The sweep's timer and this process's id (the host's unless given). */
  runtime?: Pick<Runtime, 'timeout' | 'newId'>;
}

/** A sweep some of whose shards did not answer: the orders the others listed are still read. */
export class IncompleteSweep extends Error {
  override readonly name = 'IncompleteSweep';
  constructor(
    readonly found: readonly string[],
    override readonly cause: unknown,
  ) {
    super(`some shards of the store did not answer: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/**
 * Every instance is a reconciler (DESIGN: reconcile): one poller per order per process however many pages
 * watch it, on a jittered backoff while a customer waits and once a minute after, woken at once by a callback
 * hint (through the store, so any instance's poller wakes) or a customer's look. It sweeps the store's set of
 * unsettled orders on an interval (every second while the store is down), so a restart, a crashed instance or
 * a store outage never leaves an order unread, and drains the outbox on each sweep.
 */
export class Reconciler {
  readonly pool: PollerPool;
  /** Bounds the passes (so the upstream reads) in flight in this process; waiting reads go before routine polls. */
  readonly gate: ReadGate;
  /** Looks and callback hints wake an order's readers at most once per `maxIntervalMs` each (see `look`, `hint`). */
  private readonly looks: Throttle;
  private readonly hints: Throttle;
  /** This process's name in the orders' read leases (see `fleetPass`). */
  private readonly id: string;
  private readonly unsubscribes: Array<() => Promise<void>> = [];
  private subscribed = false;
  private storeWasDown = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  /** Resolves once the first sweep and the subscriptions are in place. */
  readonly ready: Promise<void>;

  constructor(
    private readonly o: ReconcilerOptions,
    /** Hears a change published by any instance (`payment:<reference>`, `checkout:<checkoutId>`). */
    private readonly onChanged: (subject: string) => void,
  ) {
    this.id = (o.runtime?.newId ?? HOST_RUNTIME.newId)();
    this.looks = new Throttle(o.options.maxIntervalMs, o.now);
    this.hints = new Throttle(o.options.maxIntervalMs, o.now);
    this.gate = new ReadGate(o.options.maxReadsInFlight);
    this.pool = new PollerPool({
      minIntervalMs: o.options.minIntervalMs,
      maxIntervalMs: o.options.maxIntervalMs,
      gate: this.gate,
      failureCeilingMs: Math.max(o.options.lateIntervalMs, o.options.maxIntervalMs),
      onError: (key, err) => o.logger.warn({ subject: key, err: describeError(err) }, 'reconciling pass failed'),
    });
    this.ready = o.manual ? Promise.resolve() : this.sweep().finally(() => this.schedule());
  }

  /**
   * Makes sure this process reconciles the order (no-op when it already does). `urgent`: someone waits for
   * its first read (its pass goes before routine polls at the gate), not a sweep.
   */
  track(ref: string, urgent = false): boolean {
    if (this.o.manual) return false;
    return this.pool.ensure(`order:${ref}`, (woken) => this.fleetPass(ref, woken), urgent);
  }

  /**
   * One poll of an order (DESIGN: one read per pending payment across the fleet). Every process sweeps the
   * store's unsettled orders, but a routine poll reads only while this process holds the order's read lease
   * in the store: N processes make one read per pending payment per interval, not N. A poll someone asked for
   * (a new payment, a customer's look, a callback hint) reads at once wherever it lands. The holder renews the
   * lease for as long as it will sleep and an interval more; a holder gone, the lease ends and the next poll
   * of another process (every half interval) takes it over.
   */
  private async fleetPass(ref: string, woken: boolean): Promise<PassResult> {
    if (woken) return this.o.pass(ref);
    const { options } = this.o;
    const store = this.o.leases?.(ref) ?? this.o.store;
    const key = ORDER_KEYS.readLease(ref);
    const held = (await store.setIfAbsent(key, this.id, options.maxIntervalMs)) || (await store.get(key)) === this.id;
    if (!held) return Math.max(1, Math.floor(options.maxIntervalMs / 2));
    const result = await this.o.pass(ref);
    const next = typeof result === 'object' ? result.backOff : result;
    const renew = next === 'done' ? store.del(key) : store.set(key, this.id, (typeof next === 'number' ? next : options.maxIntervalMs) + options.maxIntervalMs);
    await renew.catch(() => undefined);
    return result;
  }

  /** As `track`, and a poller sleeping on the order reads it now, ahead of routine polls. */
  readSoon(ref: string): void {
    if (!this.o.manual && !this.track(ref, true)) this.pool.wake(`order:${ref}`);
  }

  /**
   * A customer (or the merchant's backend) looks at an order whose reader is on its slow cadence, or backing
   * off after reads the provider could not answer: read it now, at most once per `maxIntervalMs` per order in
   * this process, so a page reading in a loop never becomes a loop of upstream reads.
   */
  look(ref: string, late: boolean): void {
    if (!late && !this.pool.failing(`order:${ref}`)) this.track(ref, true);
    else if (this.looks.pass(ref)) this.readSoon(ref);
    else this.track(ref);
  }

  /**
   * A callback hint: this instance reads the order from now on, and every instance that already does wakes, at
   * most once per `maxIntervalMs` per order and process (a provider replaying a callback a hundred times made a
   * read each; the pollers read on at their own cadence meanwhile).
   */
  async hint(ref: string): Promise<void> {
    if (!this.hints.pass(ref)) return void this.track(ref);
    this.readSoon(ref);
    if (this.o.manual) return;
    await this.o.store.publish(ORDER_CHANNELS.wake, ref);
  }

  /** One sweep now: read every unsettled order and drain the outbox (the interval calls it; tests too). */
  async sweep(): Promise<void> {
    if (this.closed) return;
    const { store, logger } = this.o;
    try {
      if (!this.subscribed) {
        this.unsubscribes.push(await store.subscribe(ORDER_CHANNELS.changed, (subject) => this.onChanged(subject)));
        this.unsubscribes.push(await store.subscribe(ORDER_CHANNELS.wake, (ref) => this.pool.wake(`order:${ref}`)));
        this.subscribed = true;
      }
      for (const ref of await this.o.unsettled()) this.track(ref);
      if (this.storeWasDown) logger.info('store answers again; unsettled orders and notifications swept');
      this.storeWasDown = false;
    } catch (err) {
      if (err instanceof IncompleteSweep) for (const ref of err.found) this.track(ref);
      if (!this.storeWasDown) logger.error({ err: describeError(err) }, 'reconciler sweep failed (store down?); sweeping again soon');
      this.storeWasDown = true;
    }
    this.o.outbox.kick();
  }

  private schedule(): void {
    if (this.closed) return;
    const every = this.o.options.sweepIntervalMs;
    this.timer = (this.o.runtime ?? HOST_RUNTIME).timeout(() => void this.sweep().finally(() => this.schedule()), this.storeWasDown ? Math.min(1_000, every) : every);
    this.timer.unref();
  }

  /** Stops the sweep, the subscriptions and every poller (their passes finish). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.ready;
    await Promise.allSettled(this.unsubscribes.map((u) => u()));
    await this.pool.close();
  }
}
