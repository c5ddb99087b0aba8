import { HOST_RUNTIME } from '../runtime.js';
/** Bounds of the relay's polling schedule, in milliseconds. */
export interface BackoffOptions {
  /** First interval (about 1 s by default). */
  minIntervalMs: number;
  /** Ceiling the interval grows to (10 s by default): the wait at the ceiling, never exceeded. */
  maxIntervalMs: number;
  /** Growth factor per poll; 1.6 reaches 10 s from 1 s in about five polls. */
  factor?: number;
  /** Spread of the jitter around the nominal interval, as a fraction (0.2 = ±20 %). */
  jitter?: number;
}

/**
 * The delay before poll number `attempt` (0-based) of a reference: the interval grows exponentially from
 * `minIntervalMs` to `maxIntervalMs`, each wait jittered around it while it grows so that many pollers
 * started together do not read the provider in lockstep (they stay apart after). At the ceiling the wait is
 * the ceiling itself: a final state is seen within one interval (never later), and a payment there is read
 * once per interval (jittered and clipped at the ceiling, the waits averaged 5 % less, and a payment was read
 * 1.05 times per interval: `npm run bench`, scale).
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = HOST_RUNTIME.random): number {
  const { minIntervalMs, maxIntervalMs, factor = 1.6, jitter = 0.2 } = options;
  const nominal = minIntervalMs * factor ** Math.max(0, attempt);
  if (nominal >= maxIntervalMs) return maxIntervalMs;
  return Math.max(0, Math.min(maxIntervalMs, Math.round(nominal * (1 + jitter * (random() * 2 - 1)))));
}
