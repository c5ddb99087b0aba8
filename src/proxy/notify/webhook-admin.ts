import { dayOf, INDEXED_DAYS, OUTBOX_KEYS, type Outbox, type OutboxItem } from './outbox.js';
import type { ProxyStore } from '../store/types.js';
import { WEBHOOK_CONSUMER, webhookBody, type WebhookType } from './webhook-consumer.js';

/** Where a webhook stands: still being tried, taken by the receiver (2xx), or given up on (dead-lettered). */
export type WebhookState = 'pending' | 'delivered' | 'dead';

/** One webhook as operators see it (times in ISO 8601). */
export interface WebhookDelivery {
  /** The `webhook-id` (the outbox id). */
  id: string;
  type: WebhookType;
  state: WebhookState;
  /** When the state change was recorded. */
  createdAt: string;
  /** Tries so far (replays included). */
  attempts: number;
  /** When the next try is due; null once delivered or dead. */
  nextAt: string | null;
  deliveredAt?: string;
  deadAt?: string;
  /** Why the last failed try failed (`receiver answered 500`, `no answer within 10000 ms`, …). */
  lastError?: string;
  /** When an operator last replayed it. */
  replayedAt?: string;
}

export interface WebhookListOptions {
  state?: WebhookState;
  /** At most this many, newest first (100 by default, 1,000 at most). */
  limit?: number;
}

/** Operators' view of signed webhooks: list them by state, and replay one (same `webhook-id`). */
export interface WebhookAdmin {
  /** Webhooks of the last 8 days (what the store keeps), newest first. */
  list(options?: WebhookListOptions): Promise<WebhookDelivery[]>;
  /**
   * Delivers a webhook again, with the same `webhook-id`: a dead one gets a fresh age limit, a delivered one
   * is sent once more (the receiver dedupes). False when no such webhook is known.
   */
  replay(id: string): Promise<boolean>;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** One stored message as a webhook delivery; null when the webhook consumer never took it. */
export function toDelivery(item: OutboxItem): WebhookDelivery | null {
  const state = item.deliveries[WEBHOOK_CONSUMER];
  if (!state) return null;
  const where: WebhookState = state.deadAt !== undefined ? 'dead' : state.deliveredAt !== undefined ? 'delivered' : 'pending';
  const delivery: WebhookDelivery = {
    id: item.message.id,
    type: webhookBody(item.message).type,
    state: where,
    createdAt: new Date(item.message.createdAt).toISOString(),
    attempts: state.attempts,
    nextAt: where === 'pending' ? new Date(state.nextAt).toISOString() : null,
  };
  const extra = { deliveredAt: iso(state.deliveredAt), deadAt: iso(state.deadAt), lastError: state.lastError, replayedAt: iso(state.replayedAt) };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) (delivery as unknown as Record<string, string>)[key] = value;
  return delivery;
}

/** The webhook admin over the proxy's outbox (the pending and dead sets, and the day index for the rest). */
export function webhookAdmin(outbox: Outbox, store: ProxyStore, now: () => number): WebhookAdmin {
  const candidates = async (state: WebhookState | undefined): Promise<string[]> => {
    if (state === 'pending') return outbox.pending();
    if (state === 'dead') return outbox.dead();
    const today = dayOf(now());
    const days = await Promise.all(Array.from({ length: INDEXED_DAYS }, (_, i) => store.members(OUTBOX_KEYS.day(today - i))));
    return [...new Set(days.flat())];
  };
  return {
    async list(options = {}) {
      const limit = Math.min(Math.max(1, options.limit ?? 100), 1_000);
      const ids = await candidates(options.state);
      const items = await Promise.all(ids.map((id) => outbox.read(id)));
      // A dead message outlived by its id in the dead set (messages live 7 days): the set forgets it.
      if (options.state === 'dead') await Promise.all(ids.filter((_, i) => !items[i]).map((id) => store.removeFromSet(OUTBOX_KEYS.dead, id)));
      return items
        .map((item) => (item ? toDelivery(item) : null))
        .filter((d): d is WebhookDelivery => d !== null && (options.state === undefined || d.state === options.state))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
        .slice(0, limit);
    },
    replay: (id) => outbox.requeue(id, WEBHOOK_CONSUMER),
  };
}
