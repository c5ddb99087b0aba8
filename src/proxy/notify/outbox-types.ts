// The outbox's shapes, options and store keys (outbox.ts re-exports them all).
import { RECORD_TTL_MS } from '../order/keys.js';

/** One state change to tell the merchant about, as recorded in the outbox. */
export interface OutboxMessage<T = unknown> {
  /**
   * The idempotency key: the same on every delivery of this state change, so a consumer can ignore a
   * repeat (`payment:<attemptReference>:<STATUS>`, `checkout:<checkoutId>:<status>`).
   */
  id: string;
  kind: 'payment' | 'checkout';
  /** The relay subject the change belongs to (`payment:ORDER-1-1`). */
  subject: string;
  /** Epoch ms when it was recorded. */
  createdAt: number;
  payload: T;
}

/** Where one consumer stands with one message. */
export interface DeliveryState {
  attempts: number;
  /** Epoch ms before which no new try is made. */
  nextAt: number;
  deliveredAt?: number;
  /** Set when the consumer gave up (after `maxAgeMs`): the message sits in the dead-letter set. */
  deadAt?: number;
  lastError?: string;
  /** Epoch ms of the last try: a wake-up of the consumer (see `Outbox.wake`) after it makes a backed-off message due at once. */
  triedAt?: number;
  /** Epoch ms of the last replay by an operator: the age limit counts from here rather than from `createdAt`. */
  replayedAt?: number;
}

/** The stored form of a message (`outbox:msg:<id>`). */
export interface OutboxItem {
  message: OutboxMessage;
  deliveries: Record<string, DeliveryState>;
}

/** Something that takes outbox messages: the in-process hooks, receipts, signed webhooks. */
export interface OutboxConsumer {
  readonly name: string;
  /** This consumer's own age limit before dead-lettering (webhooks keep trying for days); the outbox's otherwise. */
  readonly maxAgeMs?: number;
  /** False when this consumer has nothing to do with the message (no hook configured, say). */
  accepts(message: OutboxMessage): boolean;
  /**
   * True when this consumer reads the payer's number in the message (`payload.receipt.msisdn`: an SMS
   * receipt). The stored message keeps the number only while such a consumer has yet to finish with it.
   */
  needsNumber?(message: OutboxMessage): boolean;
  /** Delivers the message; a throw (or a hang past the lease) means "try again later". */
  deliver(message: OutboxMessage): Promise<void>;
}

export interface OutboxOptions {
  /** How long one instance holds a message while delivering it; after a crash another takes over then. */
  leaseMs: number;
  /** First retry delay; doubles per failure up to `maxBackoffMs`, jittered. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A message still undelivered this long after it was recorded goes to the dead-letter set. */
  maxAgeMs: number;
}

export const DEFAULT_OUTBOX_OPTIONS: OutboxOptions = {
  leaseMs: 30_000,
  backoffMs: 1_000,
  maxBackoffMs: 10 * 60_000,
  maxAgeMs: 24 * 60 * 60_000,
};

export const DAY_MS = 24 * 60 * 60_000;

/** Store keys of the outbox (under the store's prefix). */
export const OUTBOX_KEYS = {
  message: (id: string) => `outbox:msg:${id}`,
  /** One consumer's hold on one message while it delivers it (each consumer drains on its own). */
  lease: (id: string, consumer: string) => `outbox:lease:${id}:${consumer}`,
  pending: 'outbox:pending',
  dead: 'outbox:dead',
  /**
   * When one consumer was last woken (epoch ms): its messages last tried before then are due at once, whatever
   * their backoff said (a receiver that answers again after an outage, or an operator's `webhooks retry`).
   */
  wake: (consumer: string) => `outbox:wake:${consumer}`,
  /** Ids recorded on one UTC day (epoch day number), so operators can list delivered messages too. */
  day: (day: number) => `outbox:day:${day}`,
};

/** The epoch day number of a time (the key of its day index). */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
/** How many days of day indexes exist (messages live `RECORD_TTL_MS`; one day more for the edge). */
export const INDEXED_DAYS = Math.ceil(RECORD_TTL_MS / DAY_MS) + 1;

/**
 * The message without the payer's number (`payload.receipt.msisdn`), which only an SMS receipt needs: what
 * the store keeps when no consumer needs it, or no longer does (the payment's order record has it meanwhile).
 */
export function withoutNumber(message: OutboxMessage): OutboxMessage {
  const payload = message.payload as { receipt?: { msisdn?: string } } | null;
  if (!payload?.receipt || payload.receipt.msisdn === undefined) return message;
  const { msisdn: _msisdn, ...receipt } = payload.receipt;
  return { ...message, payload: { ...payload, receipt } };
}
