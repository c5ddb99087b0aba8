import type { Logger } from 'pino';
import type { Outbox } from '../notify/outbox.js';
import type { ProxyStore } from '../store/types.js';
import type { PlanEnv } from '../reconcile/reconcile-plan.js';
import type { TransitionEnv } from './events.js';
import { ORDER_CHANNELS, ORDER_KEYS, RECORD_TTL_MS } from './keys.js';
import { transition } from './transition.js';
import { messagesOf } from './messages.js';
import { indexWrites } from './order-indexes.js';
import type { OrderCopies } from './order-copies.js';
import { recordValue, type Order } from './order-record.js';

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
  /** The keyed hash a number is indexed under (`numberKeysOf(config).of`). */
  numberKey(digits: string): string;
  /** How long no new order is begun after a loss of the store was noticed (a few sweeps of every instance). */
  recoveryMs: number;
  /** Resolves once `env().now` is the store's clock (DESIGN: one clock); awaited before an order is read. */
  clockRead?: () => Promise<void>;
}

/** Where a recovery watches: the whole store, or one shard of it (DESIGN: Redis Cluster). */
export interface RecoveryScope {
  /** The orders whose keys this store keeps (all of them when it is the whole store). */
  owns(ref: string): boolean;
  /** The channel every process listens on to be counted on this store (one per shard). */
  presence: string;
  /** The shard's name, in what the log says of a loss. */
  shard?: string;
}

const WHOLE_STORE: RecoveryScope = { owns: () => true, presence: ORDER_CHANNELS.presence };

/**
 * An order book's side of a store that loses its records (DESIGN: when the store loses records): the store's
 * epoch as this process knows it, the hold while every process merges its copies, and the merge of a copy into
 * the record (`restore`). Every other change of the order book is written under `conditions()`.
 */
export class StoreRecovery {
  /** The store's epoch as this process last saw it (null before the first look). */
  private epoch: string | null = null;
  /** True once this process merged its copies during the current recovery. */
  private restored = false;
  /** True once this process listens on the presence channel (other processes count it). */
  private present = false;
  private presence: Promise<void> | undefined;

  constructor(
    private readonly options: RecoveryOptions,
    private readonly copies: OrderCopies,
    private readonly scope: RecoveryScope = WHOLE_STORE,
  ) {}

  /**
   * Notices a store that lost everything (flushed, failed over to an empty replica, replaced): its epoch is
   * gone or another. Then it holds new orders back for `recoveryMs` (every instance meanwhile merges the
   * copies it holds, settled orders too) and merges this process's copies at once. False while the store
   * recovers: an order new to the store may be one another instance is about to restore.
   */
  async guard(): Promise<boolean> {
    const { store, logger } = this.options;
    if (this.options.clockRead) await this.options.clockRead();
    let current = await store.get(ORDER_KEYS.epoch);
    let emptied = false;
    if (current === null) {
      // Others running on a store with no epoch: it was emptied under them, and they have not looked yet.
      const others = store.subscribers ? (await store.subscribers(this.scope.presence)) - (this.present ? 1 : 0) : 0;
      const fresh = this.options.newId();
      const made = await store.setIfAbsent(ORDER_KEYS.epoch, fresh);
      current = made ? fresh : await store.get(ORDER_KEYS.epoch);
      emptied = made && this.epoch === null && others > 0;
    }
    if (!this.present && store.subscribers) {
      this.presence ??= store.subscribe(this.scope.presence, () => undefined).then(
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
      logger.error(this.where(), 'the store has no epoch while other processes run on it (flushed or replaced); orders wait while every instance puts its copies back');
      await store.setIfAbsent(ORDER_KEYS.recovering, '1', this.options.recoveryMs);
    }
    const lost = this.epoch !== null && current !== this.epoch;
    if (lost) {
      logger.error(this.where(), 'the store lost its records (flushed or replaced); orders wait while every instance puts its copies back');
      // The hold first: until it is in the store, this process's other requests write under the epoch they
      // knew, and fail. Adopting the new epoch first would let one of them begin an order afresh in between,
      // without what this process's copy knew of it.
      await store.setIfAbsent(ORDER_KEYS.recovering, '1', this.options.recoveryMs);
    }
    this.epoch = current;
    const held = (await store.get(ORDER_KEYS.recovering)) !== null;
    if (lost || (held && !this.restored)) await this.restoreAll();
    this.restored = held;
    return !held;
  }

  private where(): { shard?: string } {
    return this.scope.shard ? { shard: this.scope.shard } : {};
  }

  /**
   * The store's history moved back (DESIGN: a store that goes back in time), as the store's watch tells this
   * process: the hold of a loss, so that no order is begun or moved on while every process merges its copies
   * (a process that has not noticed writes nothing: its commits are refused by the hold, and its next look
   * merges its own), and this process's copies merged at once.
   */
  async movedBack(): Promise<void> {
    await this.options.store.setIfAbsent(ORDER_KEYS.recovering, '1', this.options.recoveryMs);
    await this.restoreAll();
    this.restored = true;
  }

  /**
   * Merges every order this process holds a copy of (settled ones too) into the store's record where the copy
   * knows what the record does not: while the store recovers only restores are written, and every instance's
   * copies are merged alike.
   */
  private async restoreAll(): Promise<void> {
    for (const ref of this.copies.refs()) {
      if (!this.scope.owns(ref)) continue;
      const raw = await this.options.store.get(ORDER_KEYS.order(ref));
      if (raw === this.copies.head(ref)?.raw) continue;
      await this.restore(ref, raw);
    }
  }

  /**
   * Merges this process's copy of the order into the record stored as `raw` (null: none), through the
   * transition's `restore` event (`mergeCopy`), with the messages of what the copy brought (the process that
   * recorded them may be gone, and the store lost them too: at least once, under the keys they had) and its
   * indexes. The order as stored after; null when the store changed meanwhile (read again). Written without the
   * conditions of `conditions()`: a restore is what a recovery writes.
   */
  async restore(ref: string, raw: string | null): Promise<{ raw: string | null; order: Order | null } | null> {
    const accounted = this.copies.head(ref)?.raw ?? null;
    const copy = this.copies.get(ref) as Order;
    const stored = raw === null ? null : (JSON.parse(raw) as Order);
    const base = stored ?? { ...copy, tries: [], sessions: [] };
    const env = this.options.env();
    const merged = transition(base, { type: 'restore', copy }, env).order;
    if (merged === base) {
      if (stored) this.copies.set(ref, stored, raw as string, env);
      return { raw, order: stored };
    }
    const messages = messagesOf(base, merged, env);
    const also = [...messages.flatMap((m) => this.options.outbox.writesFor(m)), ...indexWrites(stored, merged, env, this.options.numberKey)];
    const value = recordValue(merged, env);
    if (!(await this.options.store.commit({ key: ORDER_KEYS.order(ref), expected: raw, value, ttlMs: RECORD_TTL_MS, also }))) return null;
    this.copies.keep(ref, accounted, merged, value, env);
    this.options.outbox.remember(messages);
    if (stored && stored.id !== copy.id) {
      this.options.logger.error(
        { orderReference: ref, tries: merged.tries.slice(stored.tries.length).map((t) => t.reference), sessions: merged.sessions.slice(stored.sessions.length).map((x) => x.checkoutId) },
        'order begun again after a loss of the store without what this process knew of it: merged into it (check the order for two charges)',
      );
    } else this.options.logger.warn({ orderReference: ref, version: merged.v }, 'order restored from this process (the store lost it, or went back behind it)');
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
