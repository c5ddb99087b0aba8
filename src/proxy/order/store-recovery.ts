import type { Logger } from 'pino';
import type { Outbox } from '../notify/outbox.js';
import type { ProxyStore } from '../store/types.js';
import type { PlanEnv } from '../reconcile/reconcile-plan.js';
import type { TransitionEnv } from './events.js';
import { ORDER_CHANNELS, ORDER_KEYS, RECORD_TTL_MS } from './keys.js';
import { joinLost } from './join-lost.js';
import { messagesOf } from './messages.js';
import { indexWrites } from './order-indexes.js';
import type { OrderCopies } from './order-copies.js';
import type { Order } from './order-record.js';

/** What the recovery from a store's loss is given (a part of the order book's options). */
export interface RecoveryOptions {
  store: ProxyStore;
  outbox: Outbox;
  logger: Logger;
  /** The transition's settings at this moment (the clock included). */
  env(): TransitionEnv & PlanEnv;
  /** Which of the provider's histories can be read (a new order's `history`). */
  readable: { payments: boolean; sessions: boolean };
  /** A new random id (the store's epoch). */
  newId(): string;
  /** How long no new order is begun after a loss of the store was noticed (a few sweeps of every instance). */
  recoveryMs: number;
  /** Resolves once `env().now` is the store's clock (DESIGN: one clock); awaited before an order is read. */
  clockRead?: () => Promise<void>;
}

/**
 * A copy as it is put back: what it knew, and that the provider's history of the order must be read again
 * where it can be before anything new is sent or created. The copy may be older than the record the store
 * lost (its process saw the order last before another, since replaced, moved it on): a try or a session made
 * after it is known only to the provider, and a copy that said the history was read kept anyone from
 * looking (a tester's hunt on the model's world: a later try's completion never reported, and a checkout
 * opened beside it).
 */
function toBeReread(copy: Order, readable: { payments: boolean; sessions: boolean }): Order {
  const history = {
    payments: readable.payments ? ('unread' as const) : copy.history.payments,
    sessions: readable.sessions ? ('unread' as const) : copy.history.sessions,
  };
  if (history.payments === copy.history.payments && history.sessions === copy.history.sessions) return copy;
  return { ...copy, history, v: copy.v + 1 };
}

/**
 * An order book's side of a store that loses its records (DESIGN: when the store loses records): the store's
 * epoch as this process knows it, the hold while every process puts its copies back, putting a copy back,
 * and joining a copy to another record of the order begun after the loss. Every change of the order book is
 * written under `conditions()`.
 */
export class StoreRecovery {
  /** The store's epoch as this process last saw it (null before the first look). */
  private epoch: string | null = null;
  /** True once this process put its copies back during the current recovery. */
  private putBackDone = false;
  /** True once this process listens on the presence channel (other processes count it). */
  private present = false;
  private presence: Promise<void> | undefined;

  constructor(
    private readonly options: RecoveryOptions,
    private readonly copies: OrderCopies,
  ) {}

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
    if (lost || (held && !this.putBackDone)) await this.restoreAll();
    this.putBackDone = held;
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

  /**
   * Writes this process's copy of an order where the store has none (`raw` null) or an older version of it;
   * the order as stored after, or null when the store changed meanwhile (read again). A record the store lost
   * is put back with the messages of where its tries and sessions stand: the process that recorded them may be
   * gone, and the store lost them too (at least once: a consumer that had one gets it again, with its key).
   */
  async putBack(ref: string, raw: string | null, stored: Order | null): Promise<{ raw: string; order: Order } | null> {
    const copy = toBeReread(this.copies.get(ref) as Order, this.options.readable);
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
  async mergeLost(ref: string, raw: string, stored: Order, copy: Order): Promise<{ raw: string; order: Order } | null> {
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

  /**
   * What every change is written under: the store is the one this process knows (its epoch), and no recovery
   * is under way. A process that has not yet noticed a loss writes nothing until it has put its copies back.
   */
  conditions(): { key: string; equals: string | null }[] {
    return [
      { key: ORDER_KEYS.epoch, equals: this.epoch },
      { key: ORDER_KEYS.recovering, equals: null },
    ];
  }
}
