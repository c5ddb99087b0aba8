import type { Logger } from 'pino';
import { readJson, updateJson } from '../store/json-record.js';
import { RECORD_TTL_MS } from '../order/keys.js';
import type { ProxyStore, SideWrite } from '../store/types.js';
import {
  DAY_MS,
  dayOf,
  DEFAULT_OUTBOX_OPTIONS,
  OUTBOX_KEYS as KEYS,
  type OutboxConsumer,
  type OutboxItem,
  type OutboxMessage,
  type OutboxOptions,
} from './outbox-types.js';
import { attemptWithin, describe, due, keptMessage, nextDelivery, settled, type DeliveryOutcome } from './outbox-delivery.js';
import { OutboxCopies } from './outbox-copies.js';
import { OutboxWake } from './outbox-wake.js';
import { reportOutage } from '../outage-log.js';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';

export * from './outbox-types.js';

/** Unsettled messages a process keeps a copy of, to record again if the store loses them. */
const OUTBOX_COPIES = 10_000;

/**
 * A small durable outbox in the proxy's store (DESIGN: notifications at least once). A state change is
 * recorded first (`record`), then delivered to every consumer that accepts it, then marked delivered;
 * a consumer that throws is tried again with backoff, and a message whose instance crashed mid-delivery
 * is taken over by any instance once its lease ends. Every instance drains the one pending set, on an
 * interval and whenever it records something. Delivery is at least once: consumers dedupe by `id`.
 * Each consumer drains on its own (its own loop, its own lease per message), so a webhook receiver that
 * hangs for its timeout never holds up the in-process hooks of this or any other message.
 */
export class Outbox {
  /** The drain under way per consumer name, and whether one more pass was asked for meanwhile. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private closed = false;
  /** The wake-up for the earliest retry this process knows of. */
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt = Infinity;
  /** Messages this process recorded that are not yet settled, recorded again if the store lost them. */
  private readonly copies: OutboxCopies;
  /** Wake-ups after a consumer's outage; per consumer, whether this pass met a backed-off message, and a delivery. */
  private readonly wakes: OutboxWake;
  private readonly backedOff = new Set<string>();
  private readonly answered = new Set<string>();

  constructor(
    private readonly store: ProxyStore,
    private readonly consumers: readonly OutboxConsumer[],
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly options: OutboxOptions = DEFAULT_OUTBOX_OPTIONS,
    private readonly runtime: Pick<Runtime, 'timeout' | 'random'> = HOST_RUNTIME,
  ) {
    this.wakes = new OutboxWake(store, now);
    this.copies = new OutboxCopies(store, logger, { writesFor: (m) => this.writesFor(m), read: this.read, kick: () => this.kick(), closed: () => this.closed });
  }

  /** True when some consumer would take this message (nothing is stored otherwise). */
  wants(message: OutboxMessage): boolean {
    return this.consumers.some((c) => c.accepts(message));
  }

  /**
   * The writes that record `message`, for a caller to apply atomically with the state change that decided it
   * (a transactional outbox: DESIGN, one order, one record, one transition); none when no consumer takes it.
   * Recording an id again leaves the stored message as it is and only lists it as pending again.
   */
  writesFor(message: OutboxMessage): SideWrite[] {
    const item = this.itemOf(message);
    if (!item) return [];
    return [
      { op: 'addToSet', key: KEYS.day(dayOf(message.createdAt)), member: message.id, ttlMs: RECORD_TTL_MS + DAY_MS },
      { op: 'setIfAbsent', key: KEYS.message(message.id), value: JSON.stringify(item), ttlMs: RECORD_TTL_MS },
      { op: 'addToSet', key: KEYS.pending, member: message.id },
    ];
  }

  /** After a commit recorded them: keep a copy of each until it is settled (`OutboxCopies`), and drain. */
  remember(messages: readonly OutboxMessage[]): void {
    for (const message of messages) if (this.wants(message)) this.copies.keep(message);
    if (messages.length > 0) this.kick();
  }

  private itemOf(message: OutboxMessage): OutboxItem | null {
    const names = this.consumers.filter((c) => c.accepts(message)).map((c) => c.name);
    if (names.length === 0) return null;
    const deliveries = Object.fromEntries(names.map((name) => [name, { attempts: 0, nextAt: 0 }]));
    return { message: keptMessage(this.consumers, message, deliveries), deliveries };
  }

  /**
   * Makes one consumer deliver a message again (an operator's replay of a dead or delivered message): same
   * id, a fresh age limit, the message kept 7 more days. False when the message is gone or the consumer
   * never took it.
   */
  async requeue(id: string, consumer: string): Promise<boolean> {
    const now = this.now();
    const result = await updateJson<OutboxItem>(
      this.store,
      KEYS.message(id),
      (current) => {
        const state = current.deliveries[consumer];
        if (!state) return null;
        const { deliveredAt: _d, deadAt: _x, ...rest } = state;
        return { ...current, deliveries: { ...current.deliveries, [consumer]: { ...rest, nextAt: 0, replayedAt: now } } };
      },
      RECORD_TTL_MS,
    );
    if (result.outcome !== 'updated') return false;
    // Listed for as long as it now lives (its creation day's index may expire first).
    await this.store.addToSet(KEYS.day(dayOf(now)), id, RECORD_TTL_MS + DAY_MS);
    await this.store.addToSet(KEYS.pending, id);
    if (!Object.values(result.value.deliveries).some((d) => d.deadAt !== undefined)) await this.store.removeFromSet(KEYS.dead, id);
    this.kick();
    return true;
  }

  /**
   * Makes every message waiting for one consumer due at once, on every instance (outbox-wake.ts). The outbox
   * does it when a consumer succeeds while others of its messages back off; `webhooks retry` for an operator.
   */
  async wake(consumer: string): Promise<void> {
    await this.wakes.wake(consumer);
    this.kick();
  }

  /**
   * Drains soon, in the background: one loop per consumer (coalesced: one drain at a time per consumer and
   * process, one more if asked meanwhile).
   */
  kick(): void {
    if (this.closed) return;
    this.wakes.listen(() => this.kick());
    for (const consumer of this.consumers) {
      const { name } = consumer;
      if (this.draining.has(name)) {
        this.again.add(name);
        continue;
      }
      const run = (async () => {
        do {
          this.again.delete(name);
          try {
            await this.drainOnce(consumer);
          } catch (err) {
            reportOutage(this.logger, `outbox-drain:${name}`, 'warn', { err: describe(err), consumer: name }, 'outbox drain failed; trying again later');
          }
        } while (this.again.has(name) && !this.closed);
      })().finally(() => this.draining.delete(name));
      this.draining.set(name, run);
    }
  }

  /** Waits for the drains under way, if any. */
  async idle(): Promise<void> {
    while (this.draining.size > 0) await Promise.all(this.draining.values());
  }

  /** Messages still to deliver (ids). */
  pending = (): Promise<string[]> => this.store.members(KEYS.pending);
  /** Messages given up on (ids). */
  dead = (): Promise<string[]> => this.store.members(KEYS.dead);

  /** Messages recorded on `day` (`dayOf`), as the day's index lists them. */
  recordedOn = (day: number): Promise<string[]> => this.store.members(KEYS.day(day));
  /** Takes an id out of the dead set (its message is gone). */
  forgetDead = (id: string): Promise<void> => this.store.removeFromSet(KEYS.dead, id);

  /** A stored message and its deliveries. */
  read = (id: string): Promise<OutboxItem | null> => readJson<OutboxItem>(this.store, KEYS.message(id));

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.idle();
    await this.wakes.close();
  }

  /** Drains again when the earliest known retry is due (the sweep interval is the fallback). */
  private wakeAt(at: number): void {
    if (this.closed || at >= this.retryAt) return;
    clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = this.runtime.timeout(() => {
      this.retryAt = Infinity;
      this.kick();
    }, Math.max(0, at - this.now()));
    this.retryTimer.unref();
  }

  /** One pass of one consumer over the pending set, oldest first. */
  private async drainOnce(consumer: OutboxConsumer): Promise<void> {
    this.backedOff.delete(consumer.name);
    this.answered.delete(consumer.name);
    await this.wakes.read(consumer.name);
    let ids = await this.store.members(KEYS.pending);
    if (await this.copies.restoreLost(new Set(ids))) ids = await this.store.members(KEYS.pending);
    const items: OutboxItem[] = [];
    for (const id of ids) {
      const item = await this.read(id);
      if (!item) await this.store.removeFromSet(KEYS.pending, id);
      else items.push(item);
    }
    items.sort((a, b) => a.message.createdAt - b.message.createdAt);
    for (const item of items) {
      if (this.closed) return;
      await this.deliverDue(consumer, item);
    }
    // It answers again while others wait out their backoff: those are tried now, here and (from their next
    // drain) on every instance. Once per pass: the next one finds them due, not backed off.
    if (this.answered.has(consumer.name) && this.backedOff.has(consumer.name)) await this.wake(consumer.name);
  }

  private async deliverDue(consumer: OutboxConsumer, item: OutboxItem): Promise<void> {
    const { id } = item.message;
    const now = this.now();
    const state = item.deliveries[consumer.name];
    if (!state || state.deliveredAt !== undefined || state.deadAt !== undefined) {
      if (settled(item)) await this.unpend(id);
      return;
    }
    const wokeAt = this.wakes.known(consumer.name);
    if (!due(state, now, wokeAt)) {
      this.backedOff.add(consumer.name);
      this.wakeAt(state.nextAt);
      return;
    }
    // One instance at a time delivers a message to a consumer; a crashed holder's lease ends and another takes over.
    const lease = KEYS.lease(id, consumer.name);
    if (!(await this.store.setIfAbsent(lease, String(now), this.options.leaseMs))) return;
    try {
      // Read again under the lease: another instance may have delivered it since this drain listed it.
      const before = (await this.read(id))?.deliveries[consumer.name];
      if (!before || before.deliveredAt !== undefined || before.deadAt !== undefined || !due(before, this.now(), wokeAt)) return;
      const outcome = await attemptWithin(consumer, item.message, this.options.leaseMs, this.runtime);
      const result = await updateJson<OutboxItem>(this.store, KEYS.message(id), (current) => {
        const latest = current.deliveries[consumer.name];
        if (!latest || latest.deliveredAt !== undefined) return null;
        const deliveries = { ...current.deliveries, [consumer.name]: nextDelivery(latest, outcome, current.message, consumer.maxAgeMs ?? this.options.maxAgeMs, this.options, this.now(), this.runtime.random) };
        return { message: keptMessage(this.consumers, current.message, deliveries), deliveries };
      });
      const after = result.outcome === 'missing' ? undefined : result.value.deliveries[consumer.name];
      if (after?.deadAt !== undefined) {
        await this.store.addToSet(KEYS.dead, id);
        this.logger.error({ messageId: id, consumer: consumer.name, attempts: after.attempts }, 'outbox message given up on; in the dead-letter set');
      } else if (outcome === 'ok') {
        this.answered.add(consumer.name);
      } else {
        if (after) this.wakeAt(after.nextAt);
        // Told once per outage of this consumer (a receiver down), then counted per interval (DESIGN: logs).
        reportOutage(this.logger, `outbox:${consumer.name}`, 'warn', { messageId: id, consumer: consumer.name, attempts: after?.attempts, err: outcome.error }, 'outbox delivery failed; will retry');
      }
      if (result.outcome !== 'missing' && settled(result.value)) await this.unpend(id);
    } finally {
      await this.store.del(lease).catch(() => undefined);
    }
  }

  /**
   * Takes a settled message out of the pending set. A replay may have re-queued it since it was read: read
   * again after the removal and put it back if so (a replay after that read adds it back itself).
   */
  private async unpend(id: string): Promise<void> {
    await this.store.removeFromSet(KEYS.pending, id);
    const again = await this.read(id);
    if (again && !settled(again)) await this.store.addToSet(KEYS.pending, id);
    else this.copies.forget(id);
  }
}
