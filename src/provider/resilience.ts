import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  decorrelatedJitterGenerator,
  ExponentialBackoff,
  handleWhen,
  retry,
  type IBackoff,
  type IHalfOpenAfterBackoffContext,
  SamplingBreaker,
  type CircuitBreakerPolicy,
  type RetryPolicy,
} from 'cockatiel';
import type { Deadline } from './deadline.js';
import { ProviderUnavailableError } from './errors.js';
import { CIRCUIT_CALLS, PROVIDER_INTERFACES, type CircuitCalls, type CircuitStateName, type ProviderInterface } from './types.js';

export type { CircuitCalls, CircuitStateName } from './types.js';

/** Retry settings: GETs only, on unavailability only. */
export interface RetrySettings {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Circuit breaker settings (see the client's config); each interface gets its two breakers with them. */
export interface BreakerSettings {
  threshold: number;
  minimumCalls: number;
  windowMs: number;
  /** The wait before the first trial call once a circuit opens. */
  halfOpenAfterMs: number;
  /** Each failed trial doubles the wait, up to this (never below `halfOpenAfterMs`). */
  maxHalfOpenAfterMs: number;
}

/** A turn of one circuit, as the client logs it. */
export interface CircuitTurn {
  state: CircuitStateName;
  /** `open`: whether it opened from closed (an outage begins), not again after a failed trial call. */
  first?: boolean;
  /** `open`: how long until the next trial call. */
  retryInMs?: number;
  /** `closed`: how long it was not closed, and the calls it refused meanwhile. */
  downMs?: number;
  refused?: number;
}

/** The retry and circuit-breaker policies every provider call runs under (cockatiel). */
export interface Resilience {
  /**
   * Runs one attempt under the breaker of `upstream`'s interface for its kind of call (`foreground`, someone
   * waits on it; `background`, the caller's own schedule): counts unavailability, and while that circuit is
   * open throws a `ProviderUnavailableError` with reason `circuit-open` without running it.
   */
  guard<T>(upstream: ProviderInterface, calls: CircuitCalls, operation: string, attempt: () => Promise<T>, onRefused?: () => void): Promise<T>;
  /**
   * Runs `attempt` with retries (jittered exponential backoff) through unavailability other than an open
   * circuit; stops when the deadline passes. `attempt` gets the 1-based attempt number.
   */
  retried<T>(attempt: (n: number) => Promise<T>, deadline: Deadline): Promise<T>;
  /** The state of one interface's circuit for one kind of call; without `calls`, the worse of its two. */
  circuitState(upstream: ProviderInterface, calls?: CircuitCalls): CircuitStateName;
}

/**
 * Builds the policies; `breaker: false` disables the circuit breakers, `maxRetries: 0` retries.
 *
 * One circuit per interface (messaging, payment gateway, checkout): they are separate services behind
 * separate hosts and credentials, and an outage of one (checkout status reads failing) must not refuse
 * calls to the others (a mobile-money payment, an OTP). Within an interface, the calls someone waits on and
 * the reads of a background schedule each have a breaker of their own: the reconciler's status reads timing
 * out under a backlog of thousands of pending payments must not refuse customers' new payments, which the
 * provider may still take.
 */
export function createResilience(
  retrySettings: RetrySettings,
  breakerSettings: BreakerSettings | false,
  onCircuitChange?: (upstream: ProviderInterface, calls: CircuitCalls, turn: CircuitTurn) => void,
): Resilience {
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

  const breakers = breakerSettings
    ? new Map(
        PROVIDER_INTERFACES.flatMap((name) =>
          CIRCUIT_CALLS.map((calls) => [`${name}/${calls}`, createBreaker(breakerSettings, (turn) => onCircuitChange?.(name, calls, turn))] as const),
        ),
      )
    : undefined;
  const stateOf = (upstream: ProviderInterface, calls: CircuitCalls) => breakers?.get(`${upstream}/${calls}`)?.state() ?? 'closed';

  return {
    async guard(upstream, calls, operation, attempt, onRefused) {
      const breaker = breakers?.get(`${upstream}/${calls}`);
      if (!breaker) return attempt();
      try {
        // While a trial call is out, the others are refused at once: cockatiel would hold each of them until
        // the trial settles, up to its whole timeout against a provider that hangs.
        if (breaker.policy.state === CircuitState.HalfOpen) throw new BrokenCircuitError();
        return await breaker.policy.execute(attempt);
      } catch (error) {
        if (!(error instanceof BrokenCircuitError)) throw error;
        breaker.refused();
        onRefused?.();
        throw new ProviderUnavailableError({
          operation,
          reason: 'circuit-open',
          outcomeUnknown: false,
          message: `The provider's ${upstream} interface is unavailable (its ${calls} circuit open); ${operation} was not sent`,
        });
      }
    },

    retried(attempt, deadline) {
      if (!retryPolicy) return attempt(1);
      // cockatiel reads only the signal's `aborted` (no more retries once the call must end), which the
      // deadline has: no AbortController per GET. A flash sale's every status read made one, and V8 keeps an
      // AbortSignal through young collections, so each became old-generation garbage (the scale bench's peak).
      return retryPolicy.execute(({ attempt: retries }) => attempt(retries + 1), deadline as Pick<AbortSignal, 'aborted'> as AbortSignal);
    },

    circuitState: (upstream, calls) => (calls ? stateOf(upstream, calls) : worse(stateOf(upstream, 'foreground'), stateOf(upstream, 'background'))),
  };
}

/** The worse of two circuit states: open, then half-open, then closed. */
function worse(a: CircuitStateName, b: CircuitStateName): CircuitStateName {
  if (a === 'open' || b === 'open') return 'open';
  return a === 'half-open' || b === 'half-open' ? 'half-open' : 'closed';
}

/**
 * One breaker, and its state as the next call will find it. Once open, it lets one trial call through after
 * `halfOpenAfterMs` (1 s by default), then after twice as long each time a trial fails, up to
 * `maxHalfOpenAfterMs` (5 s): a provider back after an outage is tried within seconds, where a fixed 30 s
 * wait refused customers 21 to 28 s after it answered again, and a provider still down gets one call per
 * few seconds.
 */
function createBreaker(
  settings: BreakerSettings,
  onChange: (turn: CircuitTurn) => void,
): { policy: CircuitBreakerPolicy; state(): CircuitStateName; refused(): void } {
  const ceiling = Math.max(settings.maxHalfOpenAfterMs, settings.halfOpenAfterMs);
  let waitMs = settings.halfOpenAfterMs;
  // cockatiel asks for the next wait each time the circuit opens (from closed: the first; after a failed
  // trial: the one after), before it tells onBreak: so `waitMs` is the wait of the opening being reported.
  const wait = (ms: number): IBackoff<IHalfOpenAfterBackoffContext> => {
    waitMs = ms;
    return { duration: ms, next: () => wait(Math.min(ms * 2, ceiling)) };
  };
  const policy = circuitBreaker(handleWhen((error) => error instanceof ProviderUnavailableError), {
    halfOpenAfter: { next: () => wait(settings.halfOpenAfterMs) },
    breaker: new SamplingBreaker({
      // SamplingBreaker opens above the threshold; the policy is "opens at" it, hence the nudge.
      threshold: Math.min(settings.threshold, 1) - 1e-9,
      duration: settings.windowMs,
      // Expressed as calls per second over the window; half a call less keeps float rounding on our side.
      minimumRps: ((settings.minimumCalls - 0.5) * 1000) / settings.windowMs,
    }),
  });
  let openedAt = 0;
  let downSince: number | undefined;
  let refused = 0;
  policy.onBreak(() => {
    openedAt = Date.now();
    const first = downSince === undefined;
    downSince ??= openedAt;
    onChange({ state: 'open', first, retryInMs: waitMs });
  });
  policy.onHalfOpen(() => onChange({ state: 'half-open' }));
  policy.onReset(() => {
    const downMs = Date.now() - (downSince ?? Date.now());
    onChange({ state: 'closed', downMs, refused });
    downSince = undefined;
    refused = 0;
  });
  return {
    policy,
    refused: () => void (refused += 1),
    state() {
      switch (policy.state) {
        case CircuitState.Closed:
          return 'closed';
        case CircuitState.HalfOpen:
          return 'half-open';
        case CircuitState.Open:
          // cockatiel moves to half-open only on the next call; report what that call will find.
          return Date.now() - openedAt >= waitMs ? 'half-open' : 'open';
        default:
          return 'open';
      }
    },
  };
}
