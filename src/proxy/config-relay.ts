import { z } from 'zod';
import { SSE_HEARTBEAT_MS } from '../protocol/paths.js';

/**
 * The shortest heartbeat production accepts (tests beat faster in the sandbox): each is bytes on every open
 * stream, paid for by the customer's phone plan, and a write by the proxy.
 */
export const MIN_PRODUCTION_HEARTBEAT_MS = 1_000;

/** The status relay's pace: polling, deadlines, heartbeats, sweeps and the outbox's retries. */
export const relaySchema = z
  .strictObject({
    minIntervalMs: z.number().int().positive().default(1_000),
    maxIntervalMs: z.number().int().positive().default(10_000),
    deadlineMs: z.number().int().positive().default(15 * 60_000),
    /**
     * SSE heartbeat interval; SSE_HEARTBEAT_MS (5 s) when absent. The elements take a stream silent for three
     * heartbeats of theirs (`SSE_HEARTBEAT_MS`) for dead, so a longer one would cut every quiet stream.
     */
    heartbeatMs: z
      .number()
      .int()
      .positive()
      .max(SSE_HEARTBEAT_MS, `must be at most ${SSE_HEARTBEAT_MS} (ms): the elements take a stream silent for three of their ${SSE_HEARTBEAT_MS} ms heartbeats for dead`)
      .optional(),
    /** How long a payment that is not settled is still read after the deadline (24 h by default). */
    reconcileWindowMs: z.number().int().positive().optional(),
    /** The slow cadence of those reads (1 min by default). */
    lateIntervalMs: z.number().int().positive().optional(),
    /**
     * A try whose answer was lost becomes void only once reads that can see it found nothing twice and this
     * long after its send (1 minute by default): longer than a late request takes to land.
     */
    unknownGraceMs: z.number().int().positive().optional(),
    /** Reconciling passes (upstream status reads) in flight per process at most (32 by default). */
    maxReadsInFlight: z.number().int().positive().optional(),
    /** How often every instance sweeps unsettled payments and undelivered notifications (15 s by default). */
    sweepIntervalMs: z.number().int().positive().optional(),
    /** Outbox retry timing (tests make it short): first backoff, its ceiling, and the lease of one delivery. */
    outboxBackoffMs: z.number().int().positive().optional(),
    outboxMaxBackoffMs: z.number().int().positive().optional(),
    outboxLeaseMs: z.number().int().positive().optional(),
    /** A notification still undelivered this long after it was recorded is dead-lettered (24 h by default). */
    outboxMaxAgeMs: z.number().int().positive().optional(),
  })
  .default({ minIntervalMs: 1_000, maxIntervalMs: 10_000, deadlineMs: 15 * 60_000 });
