import { Redis, type Cluster } from 'ioredis';
import { clusterClient, type RedisClusterOptions } from './redis-cluster.js';

/** A Sentinel group to ask for the master: ioredis follows its failovers (DESIGN: the store's checks). */
export interface RedisSentinelOptions {
  /** The Sentinels' addresses (a few are enough: the client learns the others). */
  sentinels: { host: string; port: number }[];
  /** The master's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
  name: string;
  /** The master's (and replicas') password, and the Sentinels' own when they ask for one. */
  password?: string | undefined;
  sentinelPassword?: string | undefined;
}

/**
 * The proxy's timeouts and retries, the same for a URL's connection and a Sentinel group's: commands fail
 * fast while Redis is down or failing over (one retry, 2 s per command), so callers fail closed (503)
 * rather than hang; connecting, to a server or to a Sentinel, gives up after 3 s and is tried again.
 */
export const REDIS_CLIENT_OPTIONS = { maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 3_000 } as const;

/** The longest WAIT (ms): a commit written while one is in flight waits for it, under the command timeout. */
export const MAX_WAIT_TIMEOUT_MS = 1_500;

/** A connection to one server by URL, to the master a Sentinel group names, or to a Cluster, with the proxy's options. */
export function redisClient(target: { url: string } | { sentinel: RedisSentinelOptions } | { cluster: RedisClusterOptions }): Redis | Cluster {
  if ('url' in target) return new Redis(target.url, { ...REDIS_CLIENT_OPTIONS });
  if ('cluster' in target) return clusterClient(target.cluster, { ...REDIS_CLIENT_OPTIONS });
  const { sentinels, name, password, sentinelPassword } = target.sentinel;
  return new Redis({
    sentinels,
    name,
    ...(password ? { password } : {}),
    ...(sentinelPassword ? { sentinelPassword } : {}),
    ...REDIS_CLIENT_OPTIONS,
    // A Sentinel that does not answer is left for the next one as fast as a server's command would be.
    sentinelCommandTimeout: REDIS_CLIENT_OPTIONS.commandTimeout,
    // Moves to the new master on the Sentinels' +switch-master, not only once the old one stops answering.
    failoverDetector: true,
  });
}

/**
 * Each commit waits (`WAIT acknowledge timeoutMs`) until this many replicas acknowledged it, so a failover
 * to one of them keeps it (DESIGN: replicas). A commit they did not acknowledge in time rejects, as a commit
 * whose answer was lost: it is written on the master, and may be lost with it.
 */
export interface ReplicaAcknowledgement {
  /** 0: commits do not wait (replication stays asynchronous). */
  acknowledge: number;
  /** How long a WAIT waits for them (a commit waits for two at most); at most 1,500 (the command timeout is 2 s). */
  timeoutMs: number;
}
