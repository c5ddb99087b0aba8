import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  decorrelatedJitterGenerator,
  ExponentialBackoff,
  handleWhen,
  retry,
  SamplingBreaker,
  type CircuitBreakerPolicy,
  type RetryPolicy,
} from 'cockatiel';
import type { Deadline } from './deadline.js';
import { ProviderUnavailableError } from './errors.js';

/** Retry settings: GETs only, on unavailability only. */
export interface RetrySettings {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Circuit breaker settings (see the client's config). */
export interface BreakerSettings {
  threshold: number;
  minimumCalls: number;
  windowMs: number;
  halfOpenAfterMs: number;
}

/** State of the circuit breaker as the client reports it. */
export type CircuitStateName = 'closed' | 'open' | 'half-open';

/** The retry and circuit-breaker policies every provider call runs under (cockatiel). */
export interface Resilience {
  /**
   * Runs one attempt under the breaker: counts unavailability, and while the circuit is open throws a
   * `ProviderUnavailableError` with reason `circuit-open` without running it.
   */
  guard<T>(operation: string, attempt: () => Promise<T>, onRefused?: () => void): Promise<T>;
  /**
   * Runs `attempt` with retries (jittered exponential backoff) through unavailability other than an open
   * circuit; stops when the deadline passes. `attempt` gets the 1-based attempt number.
   */
  retried<T>(attempt: (n: number) => Promise<T>, deadline: Deadline): Promise<T>;
  circuitState(): CircuitStateName;
}

/** Builds the policies; `breaker: false` disables the circuit breaker, `maxRetries: 0` retries. */
export function createResilience(retrySettings: RetrySettings, breakerSettings: BreakerSettings | false): Resilience {
  const retryPolicy: RetryPolicy | undefined =
    retrySettings.maxRetries > 0
      ? retry(
          handleWhen((error) => error instanceof ProviderUnavailableError && error.reason !== 'circuit-open'),
          {
            maxAttempts: retrySettings.maxRetries,
            backoff: new ExponentialBackoff({
              generator: decorrelatedJitterGenerator,
              initialDelay: retrySettings.baseDelayMs,
              maxDelay: retrySettings.maxDelayMs,
            }),
          },
        )
      : undefined;

  let breaker: CircuitBreakerPolicy | undefined;
  let openedAt = 0;
  if (breakerSettings) {
    breaker = circuitBreaker(handleWhen((error) => error instanceof ProviderUnavailableError), {
      halfOpenAfter: breakerSettings.halfOpenAfterMs,
      breaker: new SamplingBreaker({
        // SamplingBreaker opens above the threshold; the policy is "opens at" it, hence the nudge.
        threshold: Math.min(breakerSettings.threshold, 1) - 1e-9,
        duration: breakerSettings.windowMs,
        // Expressed as calls per second over the window; half a call less keeps float rounding on our side.
        minimumRps: ((breakerSettings.minimumCalls - 0.5) * 1000) / breakerSettings.windowMs,
      }),
    });
    breaker.onBreak(() => {
      openedAt = Date.now();
    });
  }

  return {
    async guard(operation, attempt, onRefused) {
      if (!breaker) return attempt();
      try {
        return await breaker.execute(attempt);
      } catch (error) {
        if (!(error instanceof BrokenCircuitError)) throw error;
        onRefused?.();
        throw new ProviderUnavailableError({
          operation,
          reason: 'circuit-open',
          outcomeUnknown: false,
          message: `The provider is unavailable (circuit open); ${operation} was not sent`,
        });
      }
    },

    retried(attempt, deadline) {
      if (!retryPolicy) return attempt(1);
      return retryPolicy.execute(({ attempt: retries }) => attempt(retries + 1), deadline.signal);
    },

    circuitState() {
      if (!breaker || !breakerSettings) return 'closed';
      switch (breaker.state) {
        case CircuitState.Closed:
          return 'closed';
        case CircuitState.HalfOpen:
          return 'half-open';
        case CircuitState.Open:
          // cockatiel moves to half-open only on the next call; report what that call will find.
          return Date.now() - openedAt >= breakerSettings.halfOpenAfterMs ? 'half-open' : 'open';
        default:
          return 'open';
      }
    },
  };
}
