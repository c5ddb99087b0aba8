import { withoutNumber, type DeliveryState, type OutboxConsumer, type OutboxItem, type OutboxMessage, type OutboxOptions } from './outbox-types.js';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';

/** How one try of one delivery ended. */
export type DeliveryOutcome = 'ok' | { error: Record<string, unknown> };

/**
 * A delivery's state after a try: delivered; dead once `maxAgeMs` passed since the message (or its replay);
 * else due again after a jittered backoff doubling from `backoffMs` to `maxBackoffMs`.
 */
export function nextDelivery(
  state: DeliveryState,
  outcome: DeliveryOutcome,
  message: OutboxMessage,
  maxAgeMs: number,
  options: Pick<OutboxOptions, 'backoffMs' | 'maxBackoffMs'>,
  now: number,
  random: () => number,
): DeliveryState {
  const attempts = state.attempts + 1;
  const kept = { ...(state.replayedAt !== undefined ? { replayedAt: state.replayedAt } : {}), triedAt: now };
  if (outcome === 'ok') return { attempts, nextAt: state.nextAt, deliveredAt: now, ...kept };
  const lastError = String(outcome.error['message'] ?? outcome.error['type'] ?? 'error');
  const since = state.replayedAt ?? message.createdAt;
  if (now - since >= maxAgeMs) return { attempts, nextAt: state.nextAt, deadAt: now, lastError, ...kept };
  const base = Math.min(options.maxBackoffMs, options.backoffMs * 2 ** Math.min(attempts - 1, 40));
  return { attempts, nextAt: now + Math.round(base * (0.8 + random() * 0.4)), lastError, ...kept };
}

/** Every consumer delivered or gave up. */
export function settled(item: OutboxItem): boolean {
  return Object.values(item.deliveries).every((d) => d.deliveredAt !== undefined || d.deadAt !== undefined);
}

export function describe(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err };
}

/**
 * Whether a message waiting for one consumer is due: its backoff has passed, or the consumer was woken
 * (`wokeAt`) since its last try.
 */
export function due(state: DeliveryState, now: number, wokeAt: number): boolean {
  return state.nextAt <= now || (state.triedAt ?? 0) < wokeAt;
}

/** Runs one delivery, bounded by `leaseMs` (a hang counts as a failure; the consumer may still finish it). */
export async function attemptWithin(consumer: OutboxConsumer, message: OutboxMessage, leaseMs: number, runtime: Pick<Runtime, 'timeout'> = HOST_RUNTIME): Promise<DeliveryOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = runtime.timeout(() => reject(new Error(`no answer within ${leaseMs} ms`)), leaseMs);
    timer.unref();
  });
  try {
    await Promise.race([consumer.deliver(message), hang]);
    return 'ok';
  } catch (err) {
    return { error: describe(err) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the store keeps of `message` with these `deliveries`: the payer's number only while a consumer that
 * needs it (an SMS receipt) has yet to finish with it; the message without it otherwise.
 */
export function keptMessage(consumers: readonly OutboxConsumer[], message: OutboxMessage, deliveries: OutboxItem['deliveries']): OutboxMessage {
  const waiting = consumers.some((c) => {
    const state = deliveries[c.name];
    return state !== undefined && state.deliveredAt === undefined && state.deadAt === undefined && c.needsNumber?.(message) === true;
  });
  return waiting ? message : withoutNumber(message);
}
