import type { Logger } from 'pino';
import { MemoryStore } from './memory.js';
import { RedisStore, type RedisSentinelOptions, type ReplicaAcknowledgement } from './redis.js';
import type { RedisClusterOptions } from './redis-cluster.js';
import type { ProxyStore } from './types.js';

export { MemoryStore } from './memory.js';
export { RedisStore, type RedisSentinelOptions, type RedisStoreOptions, type ReplicaAcknowledgement } from './redis.js';
export type { ProxyStore } from './types.js';
export { StoreUnavailableError } from './store-error.js';
export { storeShards, shardIndex } from './store-shards.js';
export type { RedisClusterOptions } from './redis-cluster.js';

/**
 * Picks the store: the one injected by the merchant, else Redis when `redisUrl`, `redisSentinel` or `redisCluster` is set,
 * else memory.
 * `owned` is false for an injected store (the proxy does not close what it did not open).
 */
export function createStore(options: {
  store?: ProxyStore | undefined;
  redisUrl?: string | undefined;
  /** Redis through a Sentinel group (instead of `redisUrl`). */
  redisSentinel?: RedisSentinelOptions | undefined;
  /** Redis Cluster (instead of `redisUrl`): every key under one hash tag. */
  redisCluster?: RedisClusterOptions | undefined;
  /** Prefix of every key and channel in Redis (default `me:`). */
  redisPrefix?: string | undefined;
  /** On a Cluster: how many shards orders are split into (1 by default: one slot). */
  redisShards?: number | undefined;
  /** How many replicas acknowledge each commit, and how long it waits (Redis only). */
  redisReplicas?: ReplicaAcknowledgement | undefined;
  logger?: Logger;
  now?: () => number;
}): { store: ProxyStore; owned: boolean } {
  if (options.store) return { store: options.store, owned: false };
  if (options.redisUrl || options.redisSentinel || options.redisCluster) {
    const store = new RedisStore({
      ...(options.redisUrl ? { url: options.redisUrl } : options.redisSentinel ? { sentinel: options.redisSentinel } : { cluster: options.redisCluster! }),
      ...(options.redisPrefix ? { prefix: options.redisPrefix } : {}),
      ...(options.redisReplicas ? { replicas: options.redisReplicas } : {}),
      ...(options.redisShards !== undefined ? { shards: options.redisShards } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return { store, owned: true };
  }
  return { store: new MemoryStore(options.now), owned: true };
}
