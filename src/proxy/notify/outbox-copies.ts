import type { Logger } from 'pino';
import { BoundedMap } from '../bounded-map.js';
import type { ProxyStore, SideWrite } from '../store/types.js';
import type { OutboxItem, OutboxMessage } from './outbox-types.js';
import { settled } from './outbox-delivery.js';

/** Unsettled messages a process keeps a copy of, to record again if the store loses them. */
const OUTBOX_COPIES = 10_000;

/** What the copies need of their outbox. */
export interface CopiesOutbox {
  /** The writes that record a message (none when no consumer takes it). */
  writesFor(message: OutboxMessage): SideWrite[];
  read(id: string): Promise<OutboxItem | null>;
  /** Drains soon. */
  kick(): void;
  closed(): boolean;
}

/**
 * The messages this process recorded that are not yet settled: recorded again if the store lost them (a
 * flushed or replaced Redis) before every consumer had them, so a final state still reaches the merchant
 * (DESIGN: notifications at least once). Bounded (oldest dropped first): a receiver down for days must not
 * grow the process without limit.
 */
export class OutboxCopies {
  private readonly copies = new BoundedMap<string, OutboxMessage>(OUTBOX_COPIES);

  constructor(
    private readonly store: ProxyStore,
    private readonly logger: Logger,
    private readonly outbox: CopiesOutbox,
  ) {}

  keep(message: OutboxMessage): void {
    this.copies.set(message.id, message);
  }

  /** Settled: nothing left to put back. */
  forget(id: string): void {
    this.copies.delete(id);
  }

  /**
   * Records again the messages this process recorded, has not seen settled, and the store no longer has
   * (flushed, evicted, a new empty Redis): at least once beats a lost final state. A consumer that already
   * had one gets it again, with the same id. Only copies missing from the pending set are read (normally
   * none: one settled by another instance). True when something was recorded again.
   */
  async restoreLost(pending: ReadonlySet<string>): Promise<boolean> {
    let restored = false;
    for (const [id, message] of [...this.copies]) {
      if (this.outbox.closed()) break;
      if (pending.has(id)) continue;
      const item = await this.outbox.read(id);
      if (item && settled(item)) {
        this.copies.delete(id);
        continue;
      }
      if (!item) this.logger.warn({ messageId: id }, 'outbox message missing from the store before it was delivered; recorded again from this process');
      await this.recordAgain(message);
      restored = true;
    }
    return restored;
  }

  /** Records a lost message again: the same writes as its commit, and one drain. */
  private async recordAgain(message: OutboxMessage): Promise<void> {
    const [day, item, pending] = this.outbox.writesFor(message) as [SideWrite & { op: 'addToSet' }, SideWrite & { op: 'setIfAbsent' }, SideWrite & { op: 'addToSet' }];
    if (!item) return;
    // Indexed first: a store error in between leaves an id without a message (skipped), never the reverse.
    await this.store.addToSet(day.key, day.member, day.ttlMs);
    if (!(await this.store.setIfAbsent(item.key, item.value, item.ttlMs))) {
      const existing = await this.outbox.read(message.id);
      if (!existing || settled(existing)) return;
    }
    await this.store.addToSet(pending.key, pending.member);
    this.outbox.kick();
  }
}
