import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { LimitName } from './config.js';
import type { LimiterOptions, ProxyContext } from './context.js';
import { ProxyError, rateLimited } from './errors.js';
import { numberKeysOf } from './number-keys.js';
import { reportOutage } from './outage-log.js';
import { RedisStore } from './store/redis.js';
import type { ProxyStore } from './store/types.js';

/**
 * Builds `ctx.limiter`: named limiters on the store's backend (Redis when the store is our RedisStore,
 * memory otherwise), memoised by name. No insurance limiter: on Redis failure `consume` rejects with an
 * Error, which `consume()` below turns into a refusal (fail closed).
 */
export function createLimiterFactory(store: ProxyStore): (name: string, opts: LimiterOptions) => RateLimiterAbstract {
  const limiters = new Map<string, RateLimiterAbstract>();
  return (name, opts) => {
    const existing = limiters.get(name);
    if (existing) return existing;
    const common = {
      // Under the store's own prefix, so two shops (or staging and production) on one Redis never share a count.
      keyPrefix: `${store instanceof RedisStore ? store.prefix : 'me:'}rl:${name}`,
      points: opts.points,
      duration: opts.durationSec,
      ...(opts.blockDurationSec ? { blockDuration: opts.blockDurationSec } : {}),
    };
    const limiter =
      store instanceof RedisStore
        ? new RateLimiterRedis({ ...common, storeClient: store.client })
        : new RateLimiterMemory(common);
    limiters.set(name, limiter);
    return limiter;
  };
}

/**
 * Takes `points` from the named policy for `key`, or throws RATE_LIMITED with `retryAfter`. When the
 * backend fails the request is refused too (UPSTREAM_UNAVAILABLE, retryable): a limit that cannot be
 * checked is treated as reached, never as passed.
 */
export async function consume(ctx: ProxyContext, policy: LimitName, key: string, points = 1): Promise<RateLimiterRes> {
  const limiter = ctx.limiter(policy, ctx.config.limits[policy]);
  try {
    return await limiter.consume(storedKey(ctx, policy, key), points);
  } catch (rejection) {
    throw limitRefusal(ctx, policy, rejection);
  }
}

/** Reads a policy's state for `key` without taking a point (null when nothing was consumed yet). */
export async function peek(ctx: ProxyContext, policy: LimitName, key: string): Promise<RateLimiterRes | null> {
  const limiter = ctx.limiter(policy, ctx.config.limits[policy]);
  try {
    return await limiter.get(storedKey(ctx, policy, key));
  } catch (rejection) {
    throw limitRefusal(ctx, policy, rejection);
  }
}

/** Gives points back (a send that surely did not happen). Best effort. */
export async function refund(ctx: ProxyContext, policy: LimitName, key: string, points = 1): Promise<void> {
  const limiter = ctx.limiter(policy, ctx.config.limits[policy]);
  await limiter.reward(storedKey(ctx, policy, key), points).catch(() => undefined);
}

/**
 * The limiter's key for `key`: a number, or a number's prefix, is counted under its keyed hash, so that the
 * limits' store keys (kept as long as their window, a day at most) name no number (number-keys.ts).
 */
function storedKey(ctx: ProxyContext, policy: LimitName, key: string): string {
  return scopeOf(policy) === 'number' ? numberKeysOf(ctx.config).of(key) : key;
}

/**
 * What a policy counts: `address` (per IP), `token`, or `number` (per number or number prefix). The
 * element says "too many requests from this connection" only for `address`.
 */
export function scopeOf(policy: LimitName): 'address' | 'token' | 'number' {
  if (/PerIp$|PerAddress$/.test(policy)) return 'address';
  if (/PerToken$|PerClient$/.test(policy)) return 'token';
  return 'number';
}

function limitRefusal(ctx: ProxyContext, policy: LimitName, rejection: unknown): ProxyError {
  if (rejection instanceof RateLimiterRes) return withScope(rateLimited(rejection.msBeforeNext), policy);
  reportOutage(ctx.logger, 'store:rate-limits', 'error', { policy, reason: rejection instanceof Error ? rejection.message : String(rejection) }, 'rate limit store failed: refusing the request');
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
}

/**
 * Enforces several policies at once: every one is read first and the request refused, without taking
 * a point anywhere, when any is already spent (so a refused send does not eat the other quotas); then a
 * point is taken from each, in order. Throws RATE_LIMITED with the longest wait of the spent policies.
 */
export async function enforce(ctx: ProxyContext, checks: ReadonlyArray<readonly [LimitName, string]>): Promise<void> {
  let waitMs = -1;
  let spent: LimitName | undefined;
  for (const [policy, key] of checks) {
    const state = await peek(ctx, policy, key);
    if (state && state.consumedPoints >= ctx.config.limits[policy].points && state.msBeforeNext > waitMs) {
      waitMs = state.msBeforeNext;
      spent = policy;
    }
  }
  if (spent) throw withScope(rateLimited(waitMs), spent);
  for (const [policy, key] of checks) await consume(ctx, policy, key);
}

/** The refusal with `details.scope` saying what was counted. */
function withScope(error: ProxyError, policy: LimitName): ProxyError {
  return new ProxyError(error.code, error.message, { ...error.details, scope: scopeOf(policy) });
}
