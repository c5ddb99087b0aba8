/** Outcome of one request against the limiter. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A sliding-window limiter: at most `limit` requests per key within any `windowMs()` milliseconds. The
 * window is a function so it follows the sandbox's time scale; `now` is the sandbox clock.
 */
export class SlidingWindowLimiter {
  /** `hits`: when each key's recent requests came; the owner may clear it (the sandbox's reset does). */
  constructor(
    private readonly hits: Map<string, number[]>,
    private readonly limit: number,
    private readonly windowMs: () => number,
    private readonly now: () => number,
  ) {}

  /**
   * Records a request of `key` when it is allowed. When it is not, nothing is recorded and
   * `retryAfterSeconds` (whole seconds, at least 1) says when the oldest hit leaves the window.
   */
  take(key: string): RateDecision {
    const now = this.now();
    const windowMs = this.windowMs();
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      const oldest = recent[0]!;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) };
    }
    recent.push(now);
    this.hits.set(key, recent);
    return { allowed: true };
  }
}
