import type { Logger } from 'pino';
import { BoundedMap } from '../bounded-map.js';
import type { Outbox } from '../notify/outbox.js';
import { ProxyError } from '../errors.js';
import type { ProxyStore, SideWrite } from '../store/types.js';
import type { OrderEvent, Reply, TransitionEnv } from './events.js';
import { ORDER_CHANNELS, ORDER_KEYS, RECORD_TTL_MS, type Subject } from './keys.js';
import { messagesOf } from './messages.js';
import { joinLost } from './join-lost.js';
import { indexWrites } from './order-indexes.js';
import { OrderCopies } from './order-copies.js';
import { newOrder, type Order } from './order-record.js';
import type { PlanEnv } from '../reconcile/reconcile-plan.js';
import { transition } from './transition.js';

/** What applying an event came to: the order as stored after it (null when there is none), and the reply. */
export interface Applied {
  order: Order | null;
  reply: Reply;
}

export interface OrderBookOptions {
  store: ProxyStore;
  outbox: Outbox;
  logger: Logger;
  /** The transition's settings at this moment (the clock included). */
  env(): TransitionEnv & PlanEnv;
  /** Which of the provider's histories can be read (a new order's `history`). */
  readable: { payments: boolean; sessions: boolean };
  /** A new random id (order ids). */
  newId(): string;
  /** Told of every try or session whose face changed (this process's event streams). */
  changed(subject: Subject): void;
  /** How long no new order is begun after a loss of the store was noticed (a few sweeps of every instance). */
  recoveryMs: number;
  /** Resolves once `env().now` is the store's clock (DESIGN: one clock); awaited before an order is read. */
  clockRead?: () => Promise<void>;
}

function recovering(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is recovering. Try again in a moment.', { retryable: true });
}

/** A write of `applyNow`'s: the record before, the transition's step, and what follows once it is made. */
interface Written {
  before: Order;
  step: { order: Order; reply: Reply };
  value: string;
  messages: ReturnType<typeof messagesOf>;
  env: TransitionEnv & PlanEnv;
}

/**
 * A copy as it is put back: what it knew, and that the provider's history of the order must be read again
 * where it can be before anything new is sent or created. The copy may be older than the record the store
 * lost (its process saw the order last before another, since replaced, moved it on): a try or a session made
 * after it is known only to the provider, and a copy that said the history was read kept anyone from
 * looking (a tester's hunt on the model's world: a later try's completion never reported, and a checkout
 * opened beside it).
 */
function restored(copy: Order, readable: { payments: boolean; sessions: boolean }): Order {
  const history = {
    payments: readable.payments ? ('unread' as const) : copy.history.payments,
    sessions: readable.sessions ? ('unread' as const) : copy.history.sessions,
  };
  if (history.payments === copy.history.payments && history.sessions === copy.history.sessions) return copy;
  return { ...copy, history, v: copy.v + 1 };
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
  /** The store's epoch as this process last saw it (null before the first look). */
  private epoch: string | null = null;
  /** True once this process put its copies back during the current recovery. */
  private restored = false;
  /** True once this process listens on the presence channel (other processes count it). */
  private present = false;
  private presence: Promise<void> | undefined;
  /**
   * What this process learned and could not write (the store down or recovering): the answer of a send, a
   * creation, a callback's referenceId. Nothing else knows it (a provider that reads status by referenceId
   * only, or lists no sessions, never tells it again), so it is applied again by the order's next pass.
   */
  private readonly backlog = new BoundedMap<string, OrderEvent[]>(COPIES);

  constructor(private readonly options: OrderBookOptions) {}

  /**
   * Notices a store that lost everything (flushed, failed over to an empty replica, replaced): its epoch is
   * gone or another. Then it holds new orders back for `recoveryMs` (every instance meanwhile puts back the
   * copies it holds, settled orders too) and puts back this process's copies at once. False while the store
   * recovers: an order new to the store may be one another instance is about to put back.
   */
  async guard(): Promise<boolean> {
    const { store, logger } = this.options;
    if (this.options.clockRead) await this.options.clockRead();
    let current = await store.get(ORDER_KEYS.epoch);
    let emptied = false;
    if (current === null) {
      // Others running on a store with no epoch: it was emptied under them, and they have not looked yet.
      const others = store.subscribers ? (await store.subscribers(ORDER_CHANNELS.presence)) - (this.present ? 1 : 0) : 0;
      const fresh = this.options.newId();
      const made = await store.setIfAbsent(ORDER_KEYS.epoch, fresh);
      current = made ? fresh : await store.get(ORDER_KEYS.epoch);
      emptied = made && this.epoch === null && others > 0;
    }
    if (!this.present && store.subscribers) {
      this.presence ??= store.subscribe(ORDER_CHANNELS.presence, () => undefined).then(
        () => void (this.present = true),
        (err: unknown) => {
          this.presence = undefined;
          throw err;
        },
      );
      await this.presence;
    }
    if (emptied) {
      // A process new to the store, the first to find it emptied: the others still hold their copies and
      // will put them back once they look; until then no order may begin afresh here (the hold below).
      logger.error('the store has no epoch while other processes run on it (flushed or replaced); orders wait while every instance puts its copies back');
      await store.setIfAbsent(ORDER_KEYS.recovering, '1', this.options.recoveryMs);
    }
    const lost = this.epoch !== null && current !== this.epoch;
    if (lost) {
      logger.error('the store lost its records (flushed or replaced); orders wait while every instance puts its copies back');
      // The hold first: until it is in the store, this process's other requests write under the epoch they
      // knew, and fail. Adopting the new epoch first let one of them begin an order afresh in between, without
      // what this process's copy knew of it (the model checker's seed 715880767, path 730).
      await store.setIfAbsent(ORDER_KEYS.recovering, '1', this.options.recoveryMs);
    }
    this.epoch = current;
    const held = (await store.get(ORDER_KEYS.recovering)) !== null;
    if (lost || (held && !this.restored)) await this.restoreAll();
    this.restored = held;
    return !held;
  }

  /**
   * Puts back every order this process holds a copy of (settled ones too) where the store has none, or an
   * older version of the same record: while the store recovers only restores are written, so of every
   * instance's copies the latest version of each order wins.
   */
  private async restoreAll(): Promise<void> {
    for (const ref of this.copies.refs()) {
      const copy = this.copies.get(ref);
      if (!copy) continue;
      const raw = await this.options.store.get(ORDER_KEYS.order(ref));
      const stored = raw === null ? null : (JSON.parse(raw) as Order);
      if (!stored || (stored.id === copy.id && stored.v < copy.v)) await this.putBack(ref, raw, stored);
      else if (raw !== null && stored.id !== copy.id) {
        const merged = await this.mergeLost(ref, raw, stored, copy);
        if (merged) this.copies.set(ref, merged.order, merged.raw, this.options.env());
      }
    }
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
    const { outbox } = this.options;
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
        if (!(await this.guard())) throw recovering();
        current = newOrder(this.options.newId(), ref, this.options.env().now, this.options.readable);
      }
      const env = this.options.env();
      const step = transition(current, typeof event === 'function' ? event(current) : event, env);
      if (step.order === current) return { order: loaded.raw === null ? null : current, reply: step.reply };
      const messages = messagesOf(current, step.order, env);
      const also = [...messages.flatMap((m) => outbox.writesFor(m)), ...indexWrites(loaded.raw === null ? null : current, step.order, env)];
      const value = JSON.stringify(step.order);
      const written: Written = { before: current, step, value, messages, env };
      const write = { key: ORDER_KEYS.order(ref), expected: loaded.raw, value, ttlMs: RECORD_TTL_MS, also, when: this.conditions() };
      let done: boolean;
      try {
        done = await this.options.store.commit(write);
      } catch (err) {
        // The answer lost, not necessarily the write: the next look says whether it was made (a store that
        // does not answer fails that look too, and its error stands). Three unanswered commits are an outage.
        if (++unanswered >= 3) throw err;
        done = false;
      }
      if (done) return this.made(ref, written);
      unconfirmed.set(value, written);
      // Held back (the store recovers), or the store is not the one this process knows: look, then answer.
      if (!(await this.guard())) throw recovering();
    }
    throw new Error('Too much contention on one order');
  }

  /** What follows a commit this request made: its copy, its messages' delivery, the watchers told. */
  private made(ref: string, { before, step, value, messages, env }: Written): Applied {
    this.copies.set(ref, step.order, value, env);
    this.options.outbox.remember(messages);
    this.announce(before, step.order);
    return { order: step.order, reply: step.reply };
  }

  /**
   * Takes the order out of the reconciler's set, unless it changed since `order` was read (one compare-and-set
   * with the record, so a try started meanwhile is never left unread). With `unresolved`, lists it for the
   * operator instead. True when done.
   */
  async settle(order: Order, unresolved: boolean): Promise<boolean> {
    const value = JSON.stringify(order);
    const also: SideWrite[] = [{ op: 'removeFromSet', key: ORDER_KEYS.pending, member: order.ref }];
    if (unresolved) also.push({ op: 'addToSet', key: ORDER_KEYS.unresolved, member: order.ref });
    return this.options.store.commit({ key: ORDER_KEYS.order(order.ref), expected: value, value, also, when: this.conditions() });
  }

  /**
   * What every change is written under: the store is the one this process knows (its epoch), and no recovery
   * is under way. A process that has not yet noticed a loss writes nothing until it has put its copies back.
   */
  private conditions(): { key: string; equals: string | null }[] {
    return [
      { key: ORDER_KEYS.epoch, equals: this.epoch },
      { key: ORDER_KEYS.recovering, equals: null },
    ];
  }

  /**
   * The orders this process holds a copy of whose money is not settled: swept with the store's set, so an
   * order the store lost (its record and its place in the set) is still read, and put back by that read.
   */
  unsettledCopies(): string[] {
    return [...new Set([...this.copies.unsettled(this.options.env()), ...this.backlog.keys()])];
  }

  private async load(ref: string, own?: ReadonlyMap<string, unknown>): Promise<{ raw: string | null; order: Order | null }> {
    const { store } = this.options;
    // Every transition and every judgement of a read order's times is made after one (DESIGN: one clock).
    if (this.options.clockRead) await this.options.clockRead();
    const key = ORDER_KEYS.order(ref);
    const raw = await store.get(key);
    // A write of the caller's own, made after all (the caller takes it as made): not another's to merge.
    if (raw !== null && own?.has(raw)) return { raw, order: JSON.parse(raw) as Order };
    const copy = this.copies.head(ref);
    if (raw !== null) {
      const order = JSON.parse(raw) as Order;
      // An older version of the record this process saw (another process put back what it had): ours wins.
      if (copy && copy.id === order.id && copy.v > order.v) return (await this.putBack(ref, raw, order)) ?? this.load(ref);
      // Another record of the order, begun after a loss by a process that had no copy of ours, or a version of
      // ours that another process wrote on from an older copy it put back (the same id and as high a version,
      // without what the lost one recorded: the model checker's seed 753593583, path 180:0:349): what ours knows
      // and it does not (a session, a try) joins it, or it would never be read or reported again. Nothing is
      // written when the stored record has it all (a version another process wrote on from ours).
      if (copy && (copy.id !== order.id || (copy.raw !== raw && copy.v <= order.v))) {
        const merged = await this.mergeLost(ref, raw, order, this.copies.get(ref) as Order);
        if (merged === null) return this.load(ref);
        this.copies.set(ref, merged.order, merged.raw, this.options.env());
        return merged;
      }
      this.copies.set(ref, order, raw, this.options.env());
      return { raw, order };
    }
    if (!copy) return { raw: null, order: null };
    // Missing: after a loss of the whole store, every instance puts back what it has first (latest wins).
    if (!(await this.guard())) {
      const again = await store.get(key);
      return again === null ? { raw: null, order: null } : { raw: again, order: JSON.parse(again) as Order };
    }
    return (await this.putBack(ref, null, null)) ?? this.load(ref);
  }

  /**
   * Writes this process's copy of an order where the store has none (`raw` null) or an older version of it;
   * the order as stored after, or null when the store changed meanwhile (read again). A record the store lost
   * is put back with the messages of where its tries and sessions stand: the process that recorded them may be
   * gone, and the store lost them too (at least once: a consumer that had one gets it again, with its key).
   */
  private async putBack(ref: string, raw: string | null, stored: Order | null): Promise<{ raw: string; order: Order } | null> {
    const copy = restored(this.copies.get(ref) as Order, this.options.readable);
    const value = JSON.stringify(copy);
    const env = this.options.env();
    // The messages of what the copy knows and the record in the store does not: all of it in place of a lost
    // record; over an older version, what came after it (a completion put back over the version before it
    // was never reported: its message had gone with the lost store, the model checker's long run).
    const messages = messagesOf(raw === null || stored === null ? { ...copy, tries: [], sessions: [] } : stored, copy, env);
    const also = [...messages.flatMap((m) => this.options.outbox.writesFor(m)), ...indexWrites(stored, copy, env)];
    if (!(await this.options.store.commit({ key: ORDER_KEYS.order(ref), expected: raw, value, ttlMs: RECORD_TTL_MS, also }))) return null;
    this.copies.set(ref, copy, value, env);
    this.options.outbox.remember(messages);
    this.options.logger.warn({ orderReference: ref, version: copy.v }, 'order put back from this process (the store lost it, or held an older version)');
    return { raw: value, order: copy };
  }

  /**
   * Joins to `stored` the sessions and tries of this process's copy of another record of the order (begun
   * after a loss, while this process had not put its copy back) that `stored` does not have, renumbered after
   * its own, with their messages and indexes; `stored` itself when it has them all; null when the store
   * changed meanwhile (read again).
   */
  private async mergeLost(ref: string, raw: string, stored: Order, copy: Order): Promise<{ raw: string; order: Order } | null> {
    const merged = joinLost(stored, copy);
    if (merged === stored) return { raw, order: stored };
    const env = this.options.env();
    const messages = messagesOf(stored, merged, env);
    const also = [...messages.flatMap((m) => this.options.outbox.writesFor(m)), ...indexWrites(stored, merged, env)];
    const value = JSON.stringify(merged);
    if (!(await this.options.store.commit({ key: ORDER_KEYS.order(ref), expected: raw, value, ttlMs: RECORD_TTL_MS, also }))) return null;
    this.options.outbox.remember(messages);
    this.options.logger.error(
      { orderReference: ref, sessions: merged.sessions.slice(stored.sessions.length).map((x) => x.checkoutId), tries: merged.tries.slice(stored.tries.length).map((t) => t.reference) },
      'order begun again after a loss of the store without what this process knew of it: joined to it (check the order for two charges)',
    );
    return { raw: value, order: merged };
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
      this.options.store.publish(ORDER_CHANNELS.changed, subject).catch((err: unknown) => {
        this.options.logger.warn({ subject, err: err instanceof Error ? err.message : String(err) }, 'change not published');
      });
    }
  }
}
