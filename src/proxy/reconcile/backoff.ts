/** Bounds of the relay's polling schedule, in milliseconds. */
export interface BackoffOptions {
  /** First interval (about 1 s by default). */
  minIntervalMs: number;
  /** Ceiling the interval grows to (10 s by default). */
  maxIntervalMs: number;
  /** Growth factor per poll; 1.6 reaches 10 s from 1 s in about five polls. */
  factor?: number;
  /** Spread of the jitter around the nominal interval, as a fraction (0.2 = ±20 %). */
  jitter?: number;
}

/**
 * The delay before poll number `attempt` (0-based) of a reference: exponential growth from
 * `minIntervalMs` to `maxIntervalMs`, jittered so that many pollers started together do not read the
 * provider in lockstep. Never below zero, never above `maxIntervalMs`.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const { minIntervalMs, maxIntervalMs, factor = 1.6, jitter = 0.2 } = options;
  const nominal = Math.min(maxIntervalMs, minIntervalMs * factor ** Math.max(0, attempt));
  const spread = nominal * jitter * (random() * 2 - 1);
  return Math.max(0, Math.min(maxIntervalMs, Math.round(nominal + spread)));
}
