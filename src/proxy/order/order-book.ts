import { BoundedMap } from '../bounded-map.js';
import { ProxyError } from '../errors.js';
import type { ProxyStore, SideWrite } from '../store/types.js';
import { shardIndex } from '../store/store-shards.js';
import type { Outbox } from '../notify/outbox.js';
import type { OrderEvent, Reply, TransitionEnv } from './events.js';
import { ORDER_CHANNELS, ORDER_KEYS, RECORD_TTL_MS, type Subject } from './keys.js';
import { messagesOf } from './messages.js';
import { indexWrites } from './order-indexes.js';
import { OrderCopies } from './order-copies.js';
import { newOrder, recordValue, type Order } from './order-record.js';
import type { PlanEnv } from '../reconcile/reconcile-plan.js';
import { StoreRecovery, type RecoveryOptions } from './store-recovery.js';
import { transition } from './transition.js';

/** What applying an event came to: the order as stored after it (null when there is none), and the reply. */
export interface Applied {
  order: Order | null;
  reply: Reply;
}

export interface OrderBookOptions extends RecoveryOptions {
  /** Told of every try or session whose face changed (this process's event streams). */
  changed(subject: Subject): void;
  /**
   * The shards orders are split into, each with its outbox (DESIGN: Redis Cluster): an order's record, its
   * indexes and its messages are kept in the one `shardIndex` names, and each shard is watched for losses on
   * its own. Absent: `store` and `outbox` keep every order.
   */
  shards?: readonly OrderShard[];
}

/** A shard of the store orders are kept in, and the outbox of its orders' messages. */
export interface OrderShard {
  store: ProxyStore & { name?: string };
  outbox: Outbox;
}

/** A shard as the order book works on it: with its own watch on losses. */
interface Part extends OrderShard {
  recovery: StoreRecovery;
}

function recovering(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is recovering. Try again in a moment.', { retryable: true });
}

/** A write of `applyNow`'s: the record before (and as read: `on`), the transition's step, and what follows once it is made. */
interface Written {
  before: Order;
  on: string | null;
  step: { order: Order; reply: Reply };
  value: string;
  messages: ReturnType<typeof messagesOf>;
  env: TransitionEnv & PlanEnv;
}

/** Orders a process keeps a copy of, to put back what the store loses (bounded: the oldest go first). */
const COPIES = 10_000;

/**
 * The store side of orders (DESIGN: one order, one record, one transition). `apply` reads an order, runs the
 * pure transition, and writes the result with one compare-and-set together with the outbox messages it
 * decided and the indexes derived from it; on a conflict it reads again and runs the transition again.
 * Every process keeps a copy of the orders it saw and puts one back when the store lost it (a flushed or
 * replaced Redis), indexes and all.
 */
export class OrderBook {
  private readonly copies = new OrderCopies(COPIES);
  private readonly parts: readonly Part[];
  /**
   * What this process learned and could not write (the store down or recovering): the answer of a send, a
   * creation, a callback's referenceId. Nothing else knows it (a provider that reads status by referenceId
   * only, or lists no sessions, never tells it again), so it is applied again by the order's next pass.
   */
  private readonly backlog = new BoundedMap<string, OrderEvent[]>(COPIES);

  constructor(private readonly options: OrderBookOptions) {
    const shards: readonly OrderShard[] = options.shards ?? [{ store: options.store, outbox: options.outbox }];
    const count = shards.length;
    this.parts = shards.map((shard, i) => ({
      ...shard,
      recovery: new StoreRecovery(
        { ...options, ...shard },
        this.copies,
        count === 1 ? undefined : { owns: (ref) => shardIndex(ref, count) === i, presence: `${ORDER_CHANNELS.presence}:${i}`, shard: shard.store.name ?? `shard ${i} of ${count}` },
      ),
    }));
  }

  /** The shard that keeps the order. */
  private part(ref: string): Part {
    return this.parts[shardIndex(ref, this.parts.length)]!;
  }

  /**
   * Notices a store (each shard of it) that lost everything and holds new orders back while every process
   * puts its copies back (`StoreRecovery.guard`). False while one recovers; `shard`: that shard only (its index).
   */
  async guard(shard?: number): Promise<boolean> {
    if (shard !== undefined) return this.parts[shard]!.recovery.guard();
    return (await Promise.all(this.parts.map((p) => p.recovery.guard()))).every(Boolean);
  }

  /**
   * The store's history moved back: hold new orders while every process merges its copies
   * (`StoreRecovery.movedBack`); `stores`: only the shards it keeps (the server whose history moved).
   */
  async movedBack(stores?: readonly ProxyStore[]): Promise<void> {
    await Promise.all(this.parts.filter((p) => !stores || stores.includes(p.store)).map((p) => p.recovery.movedBack()));
  }

  /** The stored order; put back from this process's copy when the store lost it. */
  async read(ref: string): Promise<Order | null> {
    return (await this.load(ref)).order;
  }

  /**
   * Applies one event to the order (with `create`, to a new empty order when there is none) and stores the
   * result atomically. `event` may be a function of the current order (ids that depend on it).
   */
  async apply(ref: string, event: OrderEvent | ((order: Order) => OrderEvent), options: { create?: boolean; keep?: boolean } = {}): Promise<Applied> {
    try {
      return await this.applyNow(ref, event, options);
    } catch (err) {
      if (options.keep && typeof event !== 'function') this.backlog.set(ref, [...(this.backlog.get(ref) ?? []), event]);
      throw err;
    }
  }

  /** Applies again what this process could not write for the order; stops at the first failure. */
  async replay(ref: string): Promise<void> {
    const events = this.backlog.get(ref);
    if (!events) return;
    while (events.length > 0) {
      await this.applyNow(ref, events[0]!, {});
      events.shift();
    }
    this.backlog.delete(ref);
  }

  private async applyNow(ref: string, event: OrderEvent | ((order: Order) => OrderEvent), options: { create?: boolean }): Promise<Applied> {
    const { outbox, store, recovery } = this.part(ref);
    // This request's writes whose commit did not answer "done" (its answer lost; a command resent after a
    // reconnect, refused on its second run): one the store holds was made, by this request.
    const unconfirmed = new Map<string, Written>();
    let unanswered = 0;
    for (let attempt = 0; attempt < 50; attempt++) {
      const loaded = await this.load(ref, unconfirmed);
      const made = loaded.raw === null ? undefined : unconfirmed.get(loaded.raw);
      if (made) return this.made(ref, made);
      let current = loaded.order;
      if (!current) {
        if (!options.create) return { order: null, reply: { kind: 'none' } };
        if (!(await recovery.guard())) throw recovering();
        current = newOrder(this.options.newId(), ref, this.options.env().now, this.options.readable);
      }
      const env = this.options.env();
      const step = transition(current, typeof event === 'function' ? event(current) : event, env);
      if (step.order === current) return { order: loaded.raw === null ? null : current, reply: step.reply };
      const messages = messagesOf(current, step.order, env);
      const also = [...messages.flatMap((m) => outbox.writesFor(m)), ...indexWrites(loaded.raw === null ? null : current, step.order, env, this.options.numberKey)];
      const value = recordValue(step.order, env);
      const written: Written = { before: current, on: loaded.raw, step, value, messages, env };
      const write = { key: ORDER_KEYS.order(ref), expected: loaded.raw, value, ttlMs: RECORD_TTL_MS, also, when: recovery.conditions() };
      let done: boolean;
      try {
        done = await store.commit(write);
      } catch (err) {
        // The answer lost, not necessarily the write: the next look says whether it was made (a store that
        // does not answer fails that look too, and its error stands). Three unanswered commits are an outage.
        if (++unanswered >= 3) throw err;
        done = false;
      }
      if (done) return this.made(ref, written);
      unconfirmed.set(value, written);
      // Held back (the store recovers), or the store is not the one this process knows: look, then answer.
      if (!(await recovery.guard())) throw recovering();
    }
    throw new Error('Too much contention on one order');
  }

  /** What follows a commit this request made: its copy, its messages' delivery, the watchers told. */
  private made(ref: string, { before, on, step, value, messages, env }: Written): Applied {
    this.copies.keep(ref, on, step.order, value, env);
    this.part(ref).outbox.remember(messages);
    this.announce(before, step.order);
    return { order: step.order, reply: step.reply };
  }

  /**
   * Takes the order out of the reconciler's set, unless it changed since `order` was read (one compare-and-set
   * with the record, so a try started meanwhile is never left unread). With `unresolved`, lists it for the
   * operator instead. True when done.
   */
  async settle(order: Order, unresolved: boolean): Promise<boolean> {
    const value = recordValue(order, this.options.env());
    const also: SideWrite[] = [{ op: 'removeFromSet', key: ORDER_KEYS.pending, member: order.ref }];
    if (unresolved) also.push({ op: 'addToSet', key: ORDER_KEYS.unresolved, member: order.ref });
    const { store, recovery } = this.part(order.ref);
    return store.commit({ key: ORDER_KEYS.order(order.ref), expected: value, value, also, when: recovery.conditions() });
  }

  /**
   * The orders this process holds a copy of whose money is not settled: swept with the store's set, so an
   * order the store lost (its record and its place in the set) is still read, and put back by that read.
   */
  unsettledCopies(): string[] {
    return [...new Set([...this.copies.unsettled(this.options.env()), ...this.backlog.keys()])];
  }

  private async load(ref: string, own?: ReadonlyMap<string, unknown>): Promise<{ raw: string | null; order: Order | null }> {
    const { store, recovery } = this.part(ref);
    // Every transition and every judgement of a read order's times is made after one (DESIGN: one clock).
    if (this.options.clockRead) await this.options.clockRead();
    const key = ORDER_KEYS.order(ref);
    const raw = await store.get(key);
    // A write of the caller's own, made after all (the caller takes it as made): not another's to merge.
    if (raw !== null && own?.has(raw)) return { raw, order: JSON.parse(raw) as Order };
    const copy = this.copies.head(ref);
    if (raw !== null && copy?.raw !== raw) {
      // What this process's copy knows and the record does not (the store lost it, went back behind it, or
      // another record of the order was begun after a loss) is merged into it; nothing is written when the
      // record has it all, as when another process moved the order on.
      if (copy) return (await recovery.restore(ref, raw)) ?? this.load(ref);
      this.copies.set(ref, JSON.parse(raw) as Order, raw, this.options.env());
    }
    if (raw !== null || !copy) return { raw, order: raw === null ? null : (JSON.parse(raw) as Order) };
    // Missing: after a loss of the whole store, every instance puts back what it has first.
    if (!(await recovery.guard())) {
      const again = await store.get(key);
      return again === null ? { raw: null, order: null } : { raw: again, order: JSON.parse(again) as Order };
    }
    return (await recovery.restore(ref, null)) ?? this.load(ref);
  }

  /** Tells this process's watchers at once, and the other instances through the store, what changed. */
  private announce(before: Order, after: Order): void {
    const subjects: Subject[] = [];
    for (const t of after.tries) {
      if (before.tries.find((x) => x.ordinal === t.ordinal)?.seq !== t.seq) subjects.push(`payment:${t.reference}`);
    }
    for (const s of after.sessions) {
      if (s.checkoutId !== null && before.sessions.find((x) => x.ordinal === s.ordinal)?.seq !== s.seq) subjects.push(`checkout:${s.checkoutId}`);
    }
    for (const subject of subjects) {
      this.options.changed(subject);
      this.part(after.ref).store.publish(ORDER_CHANNELS.changed, subject).catch((err: unknown) => {
        this.options.logger.warn({ subject, err: err instanceof Error ? err.message : String(err) }, 'change not published');
      });
    }
  }
}
