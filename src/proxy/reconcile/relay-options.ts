import { SSE_HEARTBEAT_MS } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';

/**
 * Reconciling passes in flight per process by default. A bound, not a rate: passes of 32 ms each would read
 * 10,000 pending payments every 10 s; a slower provider reads them less often rather than piling up sockets.
 */
export const DEFAULT_MAX_READS_IN_FLIGHT = 32;

/** The relay's knobs, resolved from the proxy configuration with DESIGN's defaults. */
export interface RelayOptions {
  /** First polling interval (about 1 s). */
  minIntervalMs: number;
  /** Polling interval ceiling (10 s). */
  maxIntervalMs: number;
  /** A payment still pending this long after it started is reported TIMED_OUT (15 min): the page stops waiting. */
  deadlineMs: number;
  /** How long the reconciler keeps reading a payment that is not settled (24 h); then it logs an error and stops. */
  reconcileWindowMs: number;
  /** The reconciler's cadence once the deadline passed (1 min). */
  lateIntervalMs: number;
  /** How often every instance sweeps the pending set and drains the outbox (15 s). */
  sweepIntervalMs: number;
  /** SSE heartbeat interval (20 s). */
  heartbeatMs: number;
  /** Concurrent event streams per client (token jti + IP). */
  maxStreamsPerClient: number;
  /** Concurrent event streams per address, whatever the token (30). */
  maxStreamsPerAddress: number;
  /** Least time between two polls of one reference, even when woken by hints. */
  minWakeGapMs: number;
  /**
   * Reconciling passes (each reads the provider once per try or session it is owed, one after another) in
   * flight in one process at most (32); the others wait, a read someone waits for before routine polls.
   */
  maxReadsInFlight: number;
  /** How long a `POST /payments` waits for a concurrent initiation of the same order to finish. */
  initiationWaitMs: number;
  /** After this, an initiation still marked in flight is presumed dead (its process gone): outcome unknown. */
  initiationLeaseMs: number;
  /**
   * An initiation of unknown outcome is settled as "never created" only after two `0404` reads in a row
   * and at least this long after it started (a request delivered late may still be processed meanwhile).
   */
  unknownGraceMs: number;
}

/**
 * Reads `config.relay` defensively: the foundation's schema has min/max/deadline; `heartbeatMs` and
 * `minWakeGapMs` are read when present (tests set them small), and the stream limit comes from
 * `config.limits.streamsPerClient.points`.
 */
export function relayOptions(ctx: ProxyContext): RelayOptions {
  const relay = (ctx.config.relay ?? {}) as Partial<Record<string, unknown>>;
  const num = (key: string, fallback: number) => {
    const value = relay[key];
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
  };
  const limits = ctx.config.limits as Partial<Record<string, { points?: number }>> | undefined;
  const totalMs = ctx.config.timeouts?.totalMs ?? 10_000;
  return {
    minIntervalMs: num('minIntervalMs', 1_000),
    maxIntervalMs: num('maxIntervalMs', 10_000),
    deadlineMs: num('deadlineMs', 15 * 60_000),
    reconcileWindowMs: num('reconcileWindowMs', 24 * 60 * 60_000),
    lateIntervalMs: num('lateIntervalMs', 60_000),
    sweepIntervalMs: num('sweepIntervalMs', 15_000),
    heartbeatMs: num('heartbeatMs', SSE_HEARTBEAT_MS),
    maxStreamsPerClient: limits?.streamsPerClient?.points ?? 3,
    maxStreamsPerAddress: limits?.streamsPerAddress?.points ?? 30,
    minWakeGapMs: num('minWakeGapMs', 250),
    maxReadsInFlight: Math.floor(num('maxReadsInFlight', DEFAULT_MAX_READS_IN_FLIGHT)),
    initiationWaitMs: totalMs + 5_000,
    initiationLeaseMs: totalMs * 3 + 10_000,
    unknownGraceMs: num('unknownGraceMs', 60_000),
  };
}
