import { randomBytes } from 'node:crypto';

/**
 * The world outside the proxy's code: its clocks, timers, randomness and ids (DESIGN: the checker owns the
 * world). Every module of `src/proxy` takes them from a `Runtime` it is handed, or from `HOST_RUNTIME` by
 * default, never from the globals, so the model checker, which hands its own, explores every path time and
 * chance can take: a limit judged on `Date.now` once made a run's path depend on real time, and its seed no
 * longer replayed it. `test/proxy/runtime.test.ts` fails on a direct `Date.now`, `Math.random`, `setTimeout`
 * or `setInterval` anywhere else in `src/proxy`.
 */
export interface Runtime {
  /** The host's wall clock, epoch ms (the money's times are the store's clock, built on this: store-clock.ts). */
  now(): number;
  /** A monotonic clock, ms. */
  monotonic(): number;
  /** A number in [0, 1) (jitter). */
  random(): number;
  /** A new unguessable id. */
  newId(): string;
  /** Runs `run` once after `ms`; `clearTimeout` cancels it. */
  timeout(run: () => void, ms: number): NodeJS.Timeout;
  /** Runs `run` every `ms`; `clearInterval` cancels it. */
  interval(run: () => void, ms: number): NodeJS.Timeout;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

/** The host's own clocks, timers and randomness: what a running proxy uses. */
export const HOST_RUNTIME: Runtime = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  random: () => Math.random(),
  newId: () => randomBytes(16).toString('base64url'),
  timeout: (run, ms) => setTimeout(run, ms),
  interval: (run, ms) => setInterval(run, ms),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
