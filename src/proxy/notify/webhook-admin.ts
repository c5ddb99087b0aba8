import { dayOf, INDEXED_DAYS, type OutboxItem } from './outbox.js';
import type { Outboxes } from './outboxes.js';
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
  /** Where the page starts: the `next` of the page before (`page` only). */
  cursor?: string;
}

/** One page of webhooks, newest first, and the cursor of the next page (null on the last). */
export interface WebhookPage {
  deliveries: WebhookDelivery[];
  next: string | null;
}

/** Which webhooks a bulk replay takes: dead or delivered ones, recorded at or after `since` when given. */
export interface WebhookReplayFilter {
  state: 'dead' | 'delivered';
  /** ISO 8601 or epoch ms: only webhooks recorded at or after this. */
  since?: string | number;
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
  /** Every webhook of `list` one page at a time: pass `next` back as `cursor` until it is null. */
  page(options?: WebhookListOptions): Promise<WebhookPage>;
  /** Replays every dead (or delivered) webhook the filter takes, oldest first; resolves to their ids. */
  replayAll(filter: WebhookReplayFilter): Promise<string[]>;
  /**
   * Tries every pending webhook now, on every instance, instead of at the end of its backoff (after the
   * receiver's outage); resolves to how many were pending. A delivery after an outage does the same by itself.
   */
  retry(): Promise<number>;
}

/** A page's cursor: the last delivery's creation time and id (webhooks sort by both, newest first). */
const cursorOf = (d: WebhookDelivery): string => Buffer.from(JSON.stringify([d.createdAt, d.id])).toString('base64url');

function afterCursor(cursor: string | undefined): (d: WebhookDelivery) => boolean {
  if (cursor === undefined) return () => true;
  let at: unknown;
  try {
    at = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    at = undefined;
  }
  if (!Array.isArray(at) || typeof at[0] !== 'string' || typeof at[1] !== 'string') throw new RangeError('not a cursor of this listing');
  const [createdAt, id] = at as [string, string];
  return (d) => d.createdAt < createdAt || (d.createdAt === createdAt && d.id > id);
}

const newestFirst = (a: WebhookDelivery, b: WebhookDelivery) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id);

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
export function webhookAdmin(outbox: Pick<Outboxes, 'pending' | 'dead' | 'recordedOn' | 'read' | 'forgetDead' | 'requeue' | 'wake'>, now: () => number): WebhookAdmin {
  const candidates = async (state: WebhookState | undefined): Promise<string[]> => {
    if (state === 'pending') return outbox.pending();
    if (state === 'dead') return outbox.dead();
    const today = dayOf(now());
    const days = await Promise.all(Array.from({ length: INDEXED_DAYS }, (_, i) => outbox.recordedOn(today - i)));
    return [...new Set(days.flat())];
  };
  /** Every webhook of a state (all when none), newest first. */
  const all = async (state: WebhookState | undefined): Promise<WebhookDelivery[]> => {
    const ids = await candidates(state);
    const items = await Promise.all(ids.map((id) => outbox.read(id)));
    // A dead message outlived by its id in the dead set (messages live 7 days): the set forgets it.
    if (state === 'dead') await Promise.all(ids.filter((_, i) => !items[i]).map((id) => outbox.forgetDead(id)));
    return items
      .map((item) => (item ? toDelivery(item) : null))
      .filter((d): d is WebhookDelivery => d !== null && (state === undefined || d.state === state))
      .sort(newestFirst);
  };
  const admin: WebhookAdmin = {
    async list(options = {}) {
      return (await admin.page({ ...options, cursor: undefined })).deliveries;
    },
    async page(options = {}) {
      const limit = Math.min(Math.max(1, options.limit ?? 100), 1_000);
      const rest = (await all(options.state)).filter(afterCursor(options.cursor));
      const deliveries = rest.slice(0, limit);
      return { deliveries, next: rest.length > limit ? cursorOf(deliveries.at(-1)!) : null };
    },
    replay: (id) => outbox.requeue(id, WEBHOOK_CONSUMER),
    async replayAll({ state, since }) {
      const from = since === undefined ? undefined : new Date(since).toISOString();
      const chosen = (await all(state)).filter((d) => from === undefined || d.createdAt >= from).reverse();
      const replayed: string[] = [];
      for (const d of chosen) if (await outbox.requeue(d.id, WEBHOOK_CONSUMER)) replayed.push(d.id);
      return replayed;
    },
    async retry() {
      await outbox.wake(WEBHOOK_CONSUMER);
      return (await all('pending')).length;
    },
  };
  return admin;
}
