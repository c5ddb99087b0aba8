import { z } from 'zod';
import { SSE_HEARTBEAT_MS } from '../protocol/paths.js';
import type { LimitName, LimitPolicy } from './config-limits.js';
import { DEFAULT_OUTBOX_OPTIONS, type OutboxOptions } from './notify/outbox-types.js';

/**
 * The shortest heartbeat production accepts (tests beat faster in the sandbox): each is bytes on every open
 * stream, paid for by the customer's phone plan, and a write by the proxy.
 */
export const MIN_PRODUCTION_HEARTBEAT_MS = 1_000;

/**
 * Reconciling passes in flight per process by default. A bound, not a rate: passes of 32 ms each would read
 * 10,000 pending payments every 10 s; a slower provider reads them less often rather than piling up sockets.
 */
export const DEFAULT_MAX_READS_IN_FLIGHT = 32;

const ms = (fallback: number) => z.number().int().positive().default(fallback);

/** The status relay's pace: polling, deadlines, heartbeats, sweeps and the outbox's retries; each default said here. */
export const relaySchema = z
  .strictObject({
    /** The first polling interval of a payment someone waits on, backing off to `maxIntervalMs`. */
    minIntervalMs: ms(1_000),
    maxIntervalMs: ms(10_000),
    /** A payment still pending this long after its send is shown TIMED_OUT: the page stops waiting. */
    deadlineMs: ms(15 * 60_000),
    /** The elements take a stream silent for three of their heartbeats (`SSE_HEARTBEAT_MS`) for dead. */
    heartbeatMs: z
      .number()
      .int()
      .positive()
      .max(SSE_HEARTBEAT_MS, `must be at most ${SSE_HEARTBEAT_MS} (ms): the elements take a stream silent for three of their ${SSE_HEARTBEAT_MS} ms heartbeats for dead`)
      .default(SSE_HEARTBEAT_MS),
    /** How long a payment that is not settled is still read after the deadline; then an error is logged. */
    reconcileWindowMs: ms(24 * 60 * 60_000),
    /** The slow cadence of those reads. */
    lateIntervalMs: ms(60_000),
    /**
     * A try whose answer was lost becomes void only once reads that can see it found nothing twice and this
     * long after its send: longer than a late request takes to land.
     */
    unknownGraceMs: ms(60_000),
    /** Reconciling passes (upstream status reads) in flight per process at most; waited-for reads go first. */
    maxReadsInFlight: ms(DEFAULT_MAX_READS_IN_FLIGHT),
    /** How often every instance sweeps unsettled orders and undelivered notifications. */
    sweepIntervalMs: ms(15_000),
    /** Outbox retry timing (tests make it short): first backoff, its ceiling, and the lease of one delivery. */
    outboxBackoffMs: ms(DEFAULT_OUTBOX_OPTIONS.backoffMs),
    outboxMaxBackoffMs: ms(DEFAULT_OUTBOX_OPTIONS.maxBackoffMs),
    outboxLeaseMs: ms(DEFAULT_OUTBOX_OPTIONS.leaseMs),
    /** A notification still undelivered this long after it was recorded is dead-lettered. */
    outboxMaxAgeMs: ms(DEFAULT_OUTBOX_OPTIONS.maxAgeMs),
  })
  .prefault({});

/** The relay's knobs as the order side runs on them: the schema's, and what follows from other options. */
export type RelayOptions = z.output<typeof relaySchema> & {
  /** Concurrent event streams per client (token jti + address), and per address whatever the token. */
  maxStreamsPerClient: number;
  maxStreamsPerAddress: number;
  /** How long a `POST /payments` waits for a concurrent initiation of the same order to finish. */
  initiationWaitMs: number;
  /** After this, an initiation still marked in flight is presumed dead (its process gone): outcome unknown. */
  initiationLeaseMs: number;
  outbox: OutboxOptions;
};

/** The relay's options from the resolved configuration. */
export function relayOptions(config: {
  relay: z.output<typeof relaySchema>;
  limits: Record<LimitName, LimitPolicy>;
  timeouts?: { totalMs: number } | undefined;
}): RelayOptions {
  const { relay } = config;
  const totalMs = config.timeouts?.totalMs ?? 10_000;
  return {
    ...relay,
    maxStreamsPerClient: config.limits.streamsPerClient.points,
    maxStreamsPerAddress: config.limits.streamsPerAddress.points,
    initiationWaitMs: totalMs + 5_000,
    initiationLeaseMs: totalMs * 3 + 10_000,
    outbox: { leaseMs: relay.outboxLeaseMs, backoffMs: relay.outboxBackoffMs, maxBackoffMs: relay.outboxMaxBackoffMs, maxAgeMs: relay.outboxMaxAgeMs },
  };
}
