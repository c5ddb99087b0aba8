import { z } from 'zod';

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
