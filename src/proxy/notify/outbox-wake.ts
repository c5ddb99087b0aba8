import { RECORD_TTL_MS } from '../order/keys.js';
import type { ProxyStore } from '../store/types.js';
import { OUTBOX_KEYS as KEYS } from './outbox-types.js';

/** The channel on which a wake-up is announced (message: the consumer's name). */
export const OUTBOX_WAKE_CHANNEL = 'outbox:wake';

/**
 * Wake-ups of outbox consumers (DESIGN: after a consumer's outage). A wake-up is a time in the store per
 * consumer: every message of that consumer last tried before it is due at once, whatever its backoff
 * said. It is announced on a channel too, so that every instance drains at once rather than at its next
 * sweep; the stored time is what counts (an instance that missed the message finds it on its next pass).
 */
export class OutboxWake {
  /** The latest wake-up per consumer this process knows of. */
  private readonly at = new Map<string, number>();
  private listening: Promise<void> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly store: ProxyStore,
    private readonly now: () => number,
  ) {}

  /** Wakes `consumer` on every instance: stores the time and announces it. */
  async wake(consumer: string): Promise<void> {
    const now = this.now();
    await this.store.set(KEYS.wake(consumer), String(now), RECORD_TTL_MS);
    this.at.set(consumer, Math.max(now, this.at.get(consumer) ?? 0));
    await this.store.publish(OUTBOX_WAKE_CHANNEL, consumer).catch(() => undefined);
  }

  /** The consumer's latest wake-up, read from the store (at the start of a drain pass). */
  async read(consumer: string): Promise<number> {
    const stored = Number((await this.store.get(KEYS.wake(consumer))) ?? 0);
    const latest = Math.max(stored, this.at.get(consumer) ?? 0);
    this.at.set(consumer, latest);
    return latest;
  }

  /** The latest wake-up known, without reading the store. */
  known(consumer: string): number {
    return this.at.get(consumer) ?? 0;
  }

  /** Calls `onWake` whenever another instance announces a wake-up; a failed subscription is tried again at the next call. */
  listen(onWake: () => void): void {
    if (this.listening || this.closed) return;
    this.listening = this.store.subscribe(OUTBOX_WAKE_CHANNEL, () => onWake()).then(
      async (unsubscribe) => {
        this.unsubscribe = unsubscribe;
        if (this.closed) await unsubscribe().catch(() => undefined);
      },
      () => {
        this.listening = undefined;
      },
    );
  }

  /** Stops listening (a subscription still under way ends itself when it is made: never waited for here). */
  async close(): Promise<void> {
    this.closed = true;
    await this.unsubscribe?.().catch(() => undefined);
  }
}
