/** Bounds of the relay's polling schedule, in milliseconds. */
export interface BackoffOptions {
  /** First interval (about 1 s by default). */
  minIntervalMs: number;
  /** Ceiling the interval grows to (10 s by default); the waits are jittered around it. */
  maxIntervalMs: number;
  /** Growth factor per poll; 1.6 reaches 10 s from 1 s in about five polls. */
  factor?: number;
  /** Spread of the jitter around the nominal interval, as a fraction (0.2 = ±20 %). */
  jitter?: number;
}

/**
 * The delay before poll number `attempt` (0-based) of a reference: the interval grows exponentially from
 * `minIntervalMs` to `maxIntervalMs`, and each wait is jittered around it so that many pollers started
 * together do not read the provider in lockstep. At the ceiling the waits average `maxIntervalMs` (between
 * 0.8 and 1.2 of it by default): clipped at it, they averaged 5 % less, and a payment at its ceiling was read
 * more than once per interval (`npm run bench`, scale). Never below zero.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const { minIntervalMs, maxIntervalMs, factor = 1.6, jitter = 0.2 } = options;
  const nominal = Math.min(maxIntervalMs, minIntervalMs * factor ** Math.max(0, attempt));
  return Math.max(0, Math.round(nominal * (1 + jitter * (random() * 2 - 1))));
}
