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
  /** True when the backend answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
