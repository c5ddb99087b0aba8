import type { RedisFacts } from './redis-facts.js';

/**
 * The one small store every piece of proxy state that must outlive a request sits behind (DESIGN: Stores):
 * idempotency of payment attempts, proof single-use, callback ids, final-state hook records, pending
 * references to resume. Two implementations: memory (one process) and Redis (several instances).
 * Values are strings (JSON where structured); TTLs are in milliseconds.
 */
export interface ProxyStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets the key only when it is absent; true when this call set it. The building block of exactly-once. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  /**
   * Replaces the value only when it still equals `expected` (compare-and-set); true when this call
   * replaced it. Lets two instances race on one record without losing an update.
   */
  compareAndSet(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean>;
  /**
   * One atomic write (DESIGN: one order, one record, one transition): `write.key` is set to `write.value`
   * only when it still holds `write.expected` (null: only when absent), and with it every write of
   * `write.also` (the outbox messages and indexes the change decided); otherwise nothing is written. True
   * when applied. Redis runs it as one script; memory in one turn of the event loop.
   */
  commit(write: CommitWrite): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Adds one and returns the new count; the TTL is set when the key is created. */
  incr(key: string, ttlMs?: number): Promise<number>;
  /**
   * Set membership, for the index of pending references. With `ttlMs` the set expires that long after
   * this addition (for indexes by day); without, it lives until emptied.
   */
  addToSet(key: string, member: string, ttlMs?: number): Promise<void>;
  removeFromSet(key: string, member: string): Promise<void>;
  members(key: string): Promise<string[]>;
  /** Cross-instance notification (callback hints, state changes). Memory: in-process only. */
  publish(channel: string, message: string): Promise<void>;
  /** Resolves to an unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * How many subscribers `channel` has (Redis: connections, one per process and channel), so that a process
   * that finds the store empty can tell whether others run on it (DESIGN: when the store loses records).
   */
  subscribers?(channel: string): Promise<number>;
  /** True when the backend answers. */
  ping(): Promise<boolean>;
  /**
   * What the server says of how it keeps records (persistence, eviction, replication, Cluster), for the
   * store's checks at start-up and in readiness (DESIGN: the store's checks). Redis has it.
   */
  inspect?(): Promise<RedisFacts>;
  /**
   * The store's clock, in epoch milliseconds: every process judges the money's times on it (DESIGN: one
   * clock). Memory: this process's. A store shared by several processes should have it; without it each
   * process keeps its host's clock.
   */
  time?(): Promise<number>;
  /**
   * The parts an order's keys are split into (DESIGN: Redis Cluster): each one atomic unit (a slot of a
   * Cluster), and an order's record, indexes and outbox messages all in the one `shardIndex` names. Absent:
   * the whole store is one. Every other key (tokens, limits, the format's marker) stays in the whole store.
   */
  shards?(): readonly ProxyStore[];
  close(): Promise<void>;
}

/** A side write of a commit: applied with the record's change, or not at all. */
export type SideWrite =
  | { op: 'set'; key: string; value: string; ttlMs?: number }
  | { op: 'setIfAbsent'; key: string; value: string; ttlMs?: number }
  | { op: 'addToSet'; key: string; member: string; ttlMs?: number }
  | { op: 'removeFromSet'; key: string; member: string };

/** What `ProxyStore.commit` writes. */
export interface CommitWrite {
  key: string;
  /** The value the key must still hold; null when it must be absent. */
  expected: string | null;
  value: string;
  ttlMs?: number;
  also?: readonly SideWrite[];
  /** Other keys that must hold a value (null: be absent) for the write to happen, checked in the same step. */
  when?: readonly { key: string; equals: string | null }[];
}
