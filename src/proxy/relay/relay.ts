import type { CheckoutSnapshot, PaymentSnapshot } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { DEFAULT_OUTBOX_OPTIONS, Outbox, type OutboxConsumer } from '../outbox/outbox.js';
import { CHANNELS, KEYS, subject as subjects, type Subject } from '../payments/keys.js';
import { CheckoutTracker } from './checkout-tracker.js';
import { hooksConsumer, receiptsConsumer } from './notify.js';
import { PaymentTracker } from './payment-tracker.js';
import { describeError, RelayCore } from './relay-core.js';
import { relayOptions, type RelayOptions } from './relay-options.js';
import { StreamLimiter } from './stream-limiter.js';

/**
 * The status relay and reconciler (DESIGN: status relay; payment attempts and money safety): one poller per
 * reference per process however many watch it, on a jittered backoff, woken by callback hints (through the
 * store, so any instance's poller wakes), reading on past the page's deadline until the money settles.
 * Every instance sweeps the store's pending set on an interval (so a store that was down, a crashed
 * instance's payments and a restart are all picked up) and drains the notification outbox.
 */
export interface Relay {
  payments: {
    /** The order's payment by the merchant's order reference (its completed attempt, else its current one). */
    get(orderReference: string): Promise<PaymentSnapshot | null>;
    /** One attempt's payment by its attempt reference (`ORDER-123-1`). */
    getAttempt(reference: string): Promise<PaymentSnapshot | null>;
    /** The proxy's side of payments (records, changes, polling), for the routes. */
    tracker: PaymentTracker;
  };
  checkouts: {
    /** The order's checkout by the merchant's reference: its completed session if any, else its latest. */
    get(reference: string): Promise<CheckoutSnapshot | null>;
    /** One session by checkoutId. */
    getSession(checkoutId: string): Promise<CheckoutSnapshot | null>;
    tracker: CheckoutTracker;
  };
  /** Where state changes wait for delivery to the hooks (and later webhooks). */
  outbox: Outbox;
  /** Listens to changes of a subject in this process (whichever instance made them); returns the unsubscribe. */
  watch(subject: Subject, listener: () => void): () => void;
  /** Makes the poller of a subject poll now, in every instance (a callback hint). */
  hint(subject: Subject): Promise<void>;
  /** One sweep now: track every pending reference and drain the outbox (tests and the interval call it). */
  sweep(): Promise<void>;
  /** Open event streams per client. */
  streams: StreamLimiter;
  /** Every event stream open in this process; `close()` ends them (shutdown: the clients reconnect elsewhere). */
  live: Set<{ close(): void }>;
  options: RelayOptions;
  /** Resolves once the first sweep and the subscriptions are in place (tests await it). */
  ready: Promise<void>;
  /** Stops every poller, the sweep and subscriptions of this process and waits for background work. */
  close(): Promise<void>;
}

/** Builds the relay of one proxy instance and starts sweeping the pending references it finds in the store. */
export function createRelay(ctx: ProxyContext, extraConsumers: readonly OutboxConsumer[] = []): Relay {
  const options = relayOptions(ctx);
  const relayConfig = (ctx.config.relay ?? {}) as Partial<Record<string, number>>;
  const outbox = new Outbox(ctx.store, [hooksConsumer(ctx), receiptsConsumer(ctx), ...extraConsumers], ctx.logger, ctx.now, {
    leaseMs: relayConfig['outboxLeaseMs'] ?? DEFAULT_OUTBOX_OPTIONS.leaseMs,
    backoffMs: relayConfig['outboxBackoffMs'] ?? DEFAULT_OUTBOX_OPTIONS.backoffMs,
    maxBackoffMs: relayConfig['outboxMaxBackoffMs'] ?? DEFAULT_OUTBOX_OPTIONS.maxBackoffMs,
    maxAgeMs: relayConfig['outboxMaxAgeMs'] ?? DEFAULT_OUTBOX_OPTIONS.maxAgeMs,
  });
  const core = new RelayCore(ctx, options, outbox);
  const payments = new PaymentTracker(core);
  const checkouts = new CheckoutTracker(core);
  const unsubscribes: Array<() => Promise<void>> = [];
  const live = new Set<{ close(): void }>();
  let closed = false;
  let subscribed = false;
  let storeWasDown = false;

  const track = (message: string): boolean => {
    const parsed = subjects.parse(message);
    if (!parsed) return false;
    if (parsed.kind === 'payment') payments.track(parsed.id);
    else checkouts.track(parsed.id);
    return true;
  };

  const sweep = async () => {
    if (closed) return;
    try {
      if (!subscribed) {
        unsubscribes.push(await ctx.store.subscribe(CHANNELS.changed, (message) => core.watchers.emit(message)));
        unsubscribes.push(await ctx.store.subscribe(CHANNELS.wake, (message) => void core.pool.wake(message)));
        subscribed = true;
      }
      for (const member of await ctx.store.members(KEYS.pending)) track(member);
      if (storeWasDown) ctx.logger.info('store answers again; pending payments and notifications swept');
      storeWasDown = false;
    } catch (err) {
      if (!storeWasDown) ctx.logger.error({ err: describeError(err) }, 'reconciler sweep failed (store down?); sweeping again soon');
      storeWasDown = true;
    }
    outbox.kick();
  };

  // While the store is down, sweep every second so it is picked up as soon as it answers again.
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void sweep().finally(schedule), storeWasDown ? Math.min(1_000, options.sweepIntervalMs) : options.sweepIntervalMs);
    timer.unref();
  };
  const ready = sweep().finally(schedule);

  return {
    payments: { get: (ref) => payments.get(ref), getAttempt: (ref) => payments.getAttempt(ref), tracker: payments },
    checkouts: { get: (ref) => checkouts.get(ref), getSession: (id) => checkouts.getSession(id), tracker: checkouts },
    outbox,
    watch: (subject, listener) => core.watchers.watch(subject, listener),
    async hint(subject) {
      // This instance polls it from now on (the one that made the payment may be gone), and every
      // instance that already polls it wakes.
      track(subject);
      core.pool.wake(subject);
      await ctx.store.publish(CHANNELS.wake, subject);
    },
    sweep,
    streams: new StreamLimiter(options.maxStreamsPerClient, options.maxStreamsPerAddress),
    live,
    options,
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const stream of [...live]) stream.close();
      await ready;
      await Promise.allSettled(unsubscribes.map((u) => u()));
      await core.close();
    },
  };
}
