import { z } from 'zod';
import { MAX_SHARDS } from './store/store-shards.js';

/**
 * Redis through a Sentinel group: the client asks the Sentinels for the master and follows its failovers,
 * with the proxy's timeouts (`REDIS_CLIENT_OPTIONS`; DESIGN: the store's checks).
 */
export const redisSentinelSchema = z.strictObject({
  sentinels: z
    .array(z.strictObject({ host: z.string().min(1), port: z.number().int().min(1).max(65_535) }))
    .min(1, 'must list at least one Sentinel'),
  name: z.string().min(1, "is required (the master's name in the Sentinels' configuration)"),
  /** The master's (and replicas') password, and the Sentinels' own when they ask for one. */
  password: z.string().min(1).optional(),
  sentinelPassword: z.string().min(1).optional(),
});

/**
 * Redis Cluster (REDIS_CLUSTER_NODES): a few of its nodes, the client learns the others and follows the slot
 * map, with the proxy's timeouts on every node (DESIGN: Redis Cluster).
 */
export const redisClusterSchema = z.strictObject({
  nodes: z
    .array(z.strictObject({ host: z.string().min(1), port: z.number().int().min(1).max(65_535) }))
    .min(1, 'must list at least one node'),
  /** The nodes' password. */
  password: z.string().min(1).optional(),
  /**
   * How many shards orders are split into, each under a hash tag of its own, spread over the masters (DESIGN:
   * Redis Cluster). Chosen when the store is made and kept: 1 (the default) keeps every key in one slot.
   */
  shards: z.number().int().min(1).max(MAX_SHARDS).optional(),
});

/** The rules between the Redis options: one way to reach Redis, and replicas' acknowledgements where a WAIT can be sent. */
export function redisProblems(out: {
  redisUrl?: string | undefined;
  redisSentinel?: unknown;
  redisCluster?: unknown;
  redisReplicas?: { acknowledge: number } | undefined;
}): string[] {
  const problems: string[] = [];
  if (out.redisUrl && out.redisSentinel) problems.push('redisSentinel: give either redisUrl or redisSentinel, not both');
  if (out.redisCluster && (out.redisUrl || out.redisSentinel)) problems.push('redisCluster: give one of redisUrl, redisSentinel and redisCluster');
  const acknowledge = out.redisReplicas?.acknowledge ?? 0;
  if (acknowledge > 0 && out.redisCluster) {
    problems.push('redisReplicas.acknowledge: not supported on a Redis Cluster (its WAIT is not sent on the connection that wrote the commit); leave it 0');
  } else if (acknowledge > 0 && !out.redisUrl && !out.redisSentinel) {
    problems.push("redisReplicas.acknowledge: applies only with redisUrl or redisSentinel (a store of your own: RedisStore's replicas option)");
  }
  return problems;
}
