import calculateSlot from 'cluster-key-slot';
import type { RedisFacts } from './redis-facts.js';
import type { CommitWrite, ProxyStore } from './types.js';

/** The slots of a Redis Cluster. */
const SLOTS = 16_384;

/** The most shards a store may be split into (a Cluster of many masters needs no more than a few per master). */
export const MAX_SHARDS = 256;

/**
 * Which of `count` shards an order's keys are kept in (DESIGN: Redis Cluster): FNV-1a of its reference,
 * the same in every process and every release.
 */
export function shardIndex(orderReference: string, count: number): number {
  if (count <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < orderReference.length; i++) {
    hash ^= orderReference.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/**
 * The key prefixes of `count` shards of a Cluster store, each a hash tag made from `prefix`: shard i's tag
 * hashes into the i-th of `count` equal ranges of the 16,384 slots, so that shards spread over the masters as
 * evenly as the Cluster spreads its slots (masters hold contiguous ranges). Deterministic: every process
 * finds the same tags.
 */
export function shardTags(prefix: string, count: number): string[] {
  const tags: string[] = [];
  for (let i = 0; i < count; i++) {
    const from = Math.floor((i * SLOTS) / count);
    const to = Math.floor(((i + 1) * SLOTS) / count);
    for (let n = 0; ; n++) {
      const tag = `${prefix}${i}.${n}`;
      const slot = calculateSlot(tag);
      if (slot >= from && slot < to) {
        tags.push(`{${tag}}`);
        break;
      }
    }
  }
  return tags;
}

/**
 * One shard of a store: its keys are kept in `keys` (one slot of a Cluster, or a memory store of its own),
 * while its channels, clock and the processes on it are the whole store's (`base`): a change published by an
 * order of any shard reaches every process, and every shard is judged on one clock. What the server says of
 * itself is said by the server that keeps the shard's keys.
 */
export class StoreShard implements ProxyStore {
  readonly kind: ProxyStore['kind'];
  readonly inspect?: () => Promise<RedisFacts>;
  readonly subscribers?: (channel: string) => Promise<number>;
  readonly time?: () => Promise<number>;
  /** True when the shard's keys are on a Redis Cluster, reached through its client (what the store's checks read). */
  readonly cluster: boolean;

  constructor(
    private readonly keys: ProxyStore,
    private readonly base: ProxyStore,
    /** The shard's name in logs and readiness (`shard 3 of 16`). */
    readonly name: string,
  ) {
    this.kind = base.kind;
    this.cluster = (keys as { cluster?: boolean }).cluster === true;
    const inspect = keys.inspect ?? base.inspect;
    if (inspect) this.inspect = () => inspect.call(keys.inspect ? keys : base);
    if (base.subscribers) this.subscribers = (channel) => base.subscribers!(channel);
    if (base.time) this.time = () => base.time!();
  }

  get(key: string): Promise<string | null> {
    return this.keys.get(key);
  }
  set(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.keys.set(key, value, ttlMs);
  }
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    return this.keys.setIfAbsent(key, value, ttlMs);
  }
  compareAndSet(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean> {
    return this.keys.compareAndSet(key, expected, value, ttlMs);
  }
  commit(write: CommitWrite): Promise<boolean> {
    return this.keys.commit(write);
  }
  del(key: string): Promise<void> {
    return this.keys.del(key);
  }
  incr(key: string, ttlMs?: number): Promise<number> {
    return this.keys.incr(key, ttlMs);
  }
  addToSet(key: string, member: string, ttlMs?: number): Promise<void> {
    return this.keys.addToSet(key, member, ttlMs);
  }
  removeFromSet(key: string, member: string): Promise<void> {
    return this.keys.removeFromSet(key, member);
  }
  members(key: string): Promise<string[]> {
    return this.keys.members(key);
  }
  publish(channel: string, message: string): Promise<void> {
    return this.base.publish(channel, message);
  }
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    return this.base.subscribe(channel, handler);
  }
  ping(): Promise<boolean> {
    return this.keys.ping();
  }
  /** Closes what the shard alone holds (a Cluster shard shares the whole store's connections). */
  close(): Promise<void> {
    return this.keys.close();
  }
}

/** The store's shards (DESIGN: Redis Cluster): itself alone unless it is split. */
export function storeShards(store: ProxyStore): readonly ProxyStore[] {
  return store.shards?.() ?? [store];
}

/** The shard an order's keys are kept in. */
export function shardOf<T>(shards: readonly T[], orderReference: string): T {
  return shards[shardIndex(orderReference, shards.length)]!;
}

/**
 * `key` read in every shard: the value of the one that has it (an index by an id that does not name its
 * order). A shard that does not answer is no answer unless another has the key (it keeps one order's keys,
 * so the others' are not its); none has it and one did not answer: its error.
 */
export async function findInShards(shards: readonly ProxyStore[], key: string): Promise<string | null> {
  if (shards.length === 1) return shards[0]!.get(key);
  const values = await Promise.allSettled(shards.map((s) => s.get(key)));
  for (const v of values) if (v.status === 'fulfilled' && v.value !== null) return v.value;
  const failed = values.find((v): v is PromiseRejectedResult => v.status === 'rejected');
  if (failed) throw failed.reason;
  return null;
}

/** The members of the set `key` in every shard (a set every order of a shard adds to: the reconciler's, the operator's). */
export async function membersInShards(shards: readonly ProxyStore[], key: string): Promise<string[]> {
  if (shards.length === 1) return shards[0]!.members(key);
  return (await Promise.all(shards.map((s) => s.members(key)))).flat();
}
