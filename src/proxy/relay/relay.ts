import type { CheckoutSnapshot, PaymentSnapshot } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { CHANNELS, KEYS, subject as subjects, type Subject } from '../payments/keys.js';
import { CheckoutTracker } from './checkout-tracker.js';
import { PaymentTracker } from './payment-tracker.js';
import { describeError, RelayCore } from './relay-core.js';
import { relayOptions, type RelayOptions } from './relay-options.js';
import { StreamLimiter } from './stream-limiter.js';

/**
 * The status relay (DESIGN: status relay): one poller per reference per process however many watch it,
 * on a jittered backoff, woken by callback hints (through the store, so any instance's poller wakes),
 * stopped at a final state or the deadline, polling on after every watcher left, and resumed from the
 * store's pending index when a process starts.
 */
export interface Relay {
  payments: {
    /** Latest snapshot of a payment, by the merchant's order reference (latest attempt) or an attempt reference. */
    get(referenceNo: string): Promise<PaymentSnapshot | null>;
    /** The proxy's side of payments (records, changes, polling), for the routes. */
    tracker: PaymentTracker;
  };
  checkouts: {
    /** Latest snapshot of a checkout session, by checkoutId or by the merchant's reference. */
    get(idOrReference: string): Promise<CheckoutSnapshot | null>;
    tracker: CheckoutTracker;
  };
  /** Listens to changes of a subject in this process (whichever instance made them); returns the unsubscribe. */
  watch(subject: Subject, listener: () => void): () => void;
  /** Makes the poller of a subject poll now, in every instance (a callback hint). */
  hint(subject: Subject): Promise<void>;
  /** Open event streams per client. */
  streams: StreamLimiter;
  options: RelayOptions;
  /** Resolves once the start-up resume and subscriptions are in place (tests await it). */
  ready: Promise<void>;
  /** Stops every poller and subscription of this process and waits for background work. */
  close(): Promise<void>;
}

/** Builds the relay of one proxy instance and starts resuming the pending references it finds in the store. */
export function createRelay(ctx: ProxyContext): Relay {
  const options = relayOptions(ctx);
  const core = new RelayCore(ctx, options);
  const payments = new PaymentTracker(core);
  const checkouts = new CheckoutTracker(core);
  const unsubscribes: Array<() => Promise<void>> = [];
  let closed = false;

  const track = (message: string): boolean => {
    const parsed = subjects.parse(message);
    if (!parsed) return false;
    if (parsed.kind === 'payment') payments.track(parsed.id);
    else checkouts.track(parsed.id);
    return true;
  };

  const start = async () => {
    unsubscribes.push(await ctx.store.subscribe(CHANNELS.changed, (message) => core.watchers.emit(message)));
    unsubscribes.push(await ctx.store.subscribe(CHANNELS.wake, (message) => void core.pool.wake(message)));
    if (closed) return;
    for (const member of await ctx.store.members(KEYS.pending)) track(member);
  };
  const ready = start().catch((err: unknown) => {
    ctx.logger.error({ err: describeError(err) }, 'relay could not resume pending references');
  });

  return {
    payments: { get: (ref) => payments.get(ref), tracker: payments },
    checkouts: { get: (id) => checkouts.get(id), tracker: checkouts },
    watch: (subject, listener) => core.watchers.watch(subject, listener),
    async hint(subject) {
      // This instance polls it from now on (the one that made the payment may be gone), and every
      // instance that already polls it wakes.
      track(subject);
      core.pool.wake(subject);
      await ctx.store.publish(CHANNELS.wake, subject);
    },
    streams: new StreamLimiter(options.maxStreamsPerClient),
    options,
    ready,
    async close() {
      closed = true;
      await ready;
      await Promise.allSettled(unsubscribes.map((u) => u()));
      await core.close();
    },
  };
}
