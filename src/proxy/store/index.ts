import type { Logger } from 'pino';
import { MemoryStore } from './memory.js';
import { RedisStore, type RedisSentinelOptions, type ReplicaAcknowledgement } from './redis.js';
import type { ProxyStore } from './types.js';

export { MemoryStore } from './memory.js';
export { RedisStore, type RedisSentinelOptions, type RedisStoreOptions, type ReplicaAcknowledgement } from './redis.js';
export type { ProxyStore } from './types.js';
export { StoreUnavailableError } from './store-error.js';

/**
 * Picks the store: the one injected by the merchant, else Redis when `redisUrl` or `redisSentinel` is set,
 * else memory.
 * `owned` is false for an injected store (the proxy does not close what it did not open).
 */
export function createStore(options: {
  store?: ProxyStore | undefined;
  redisUrl?: string | undefined;
  /** Redis through a Sentinel group (instead of `redisUrl`). */
  redisSentinel?: RedisSentinelOptions | undefined;
  /** Prefix of every key and channel in Redis (default `me:`). */
  redisPrefix?: string | undefined;
  /** How many replicas acknowledge each commit, and how long it waits (Redis only). */
  redisReplicas?: ReplicaAcknowledgement | undefined;
  logger?: Logger;
  now?: () => number;
}): { store: ProxyStore; owned: boolean } {
  if (options.store) return { store: options.store, owned: false };
  if (options.redisUrl || options.redisSentinel) {
    const store = new RedisStore({
      ...(options.redisUrl ? { url: options.redisUrl } : { sentinel: options.redisSentinel! }),
      ...(options.redisPrefix ? { prefix: options.redisPrefix } : {}),
      ...(options.redisReplicas ? { replicas: options.redisReplicas } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return { store, owned: true };
  }
  return { store: new MemoryStore(options.now), owned: true };
}
