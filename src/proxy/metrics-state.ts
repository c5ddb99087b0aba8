import type { Order } from './order/order-record.js';
import { ORDER_KEYS } from './order/keys.js';
import type { OutboxItem } from './notify/outbox.js';
import type { ProxyStore } from './store/types.js';
import { membersInShards, shardOf } from './store/store-shards.js';

/**
 * At most this many orders and outbox messages are read per scrape for the figures by phase and by consumer
 * (the counts of the sets themselves are always whole): a scrape must not become a flash sale's worth of reads.
 */
export const SCRAPE_READ_LIMIT = 5_000;

/** What the store holds that operators watch, shared by every instance on it (read when scraped). */
export interface StoreFigures {
  /** Orders in the reconciler's set (not settled). */
  unsettled: number;
  /** Their live tries and sessions by phase (`payment`/`checkout`, phase). */
  live: Array<{ kind: 'payment' | 'checkout'; phase: string; count: number }>;
  /** Orders left for the operator (not settled at the end of the reconcile window). */
  unresolved: number;
  /** Outbox messages not yet delivered, per consumer, and the age of the oldest (seconds). */
  outbox: Array<{ consumer: string; pending: number; oldestSeconds: number }>;
  /** Messages given up on (the dead-letter set). */
  deadLetters: number;
  /** Whether the figures by phase or consumer read only the first {@link SCRAPE_READ_LIMIT}. */
  truncated: boolean;
}

/** Where the outbox's sets are (the Outbox's own accessors). */
export interface OutboxReader {
  pending(): Promise<string[]>;
  dead(): Promise<string[]>;
  read(id: string): Promise<OutboxItem | null>;
}

/**
 * Reads the figures: the sets' sizes, then up to {@link SCRAPE_READ_LIMIT} records of each, at once. `stores`:
 * where orders are kept (the whole store, or each of its shards).
 */
export async function readStoreFigures(stores: readonly ProxyStore[], outbox: OutboxReader, now: number): Promise<StoreFigures> {
  const [unsettledRefs, unresolvedRefs, pendingIds, deadIds] = await Promise.all([
    membersInShards(stores, ORDER_KEYS.pending),
    membersInShards(stores, ORDER_KEYS.unresolved),
    outbox.pending(),
    outbox.dead(),
  ]);
  const [orders, items] = await Promise.all([
    Promise.all(unsettledRefs.slice(0, SCRAPE_READ_LIMIT).map((ref) => shardOf(stores, ref).get(ORDER_KEYS.order(ref)))),
    Promise.all(pendingIds.slice(0, SCRAPE_READ_LIMIT).map((id) => outbox.read(id))),
  ]);

  const live = new Map<string, { kind: 'payment' | 'checkout'; phase: string; count: number }>();
  const add = (kind: 'payment' | 'checkout', phase: string) => {
    const key = `${kind}/${phase}`;
    const entry = live.get(key) ?? { kind, phase, count: 0 };
    entry.count += 1;
    live.set(key, entry);
  };
  for (const raw of orders) {
    const order = parse<Order>(raw);
    if (!order) continue;
    for (const t of order.tries ?? []) if (['sending', 'unknown', 'pending'].includes(t.phase)) add('payment', t.phase);
    for (const s of order.sessions ?? []) if (['creating', 'unknown', 'open'].includes(s.phase)) add('checkout', s.phase);
  }

  const outboxFigures = new Map<string, { consumer: string; pending: number; oldestSeconds: number }>();
  for (const item of items) {
    if (!item) continue;
    for (const [consumer, state] of Object.entries(item.deliveries)) {
      if (state.deliveredAt !== undefined || state.deadAt !== undefined) continue;
      const entry = outboxFigures.get(consumer) ?? { consumer, pending: 0, oldestSeconds: 0 };
      entry.pending += 1;
      entry.oldestSeconds = Math.max(entry.oldestSeconds, Math.max(0, now - item.message.createdAt) / 1000);
      outboxFigures.set(consumer, entry);
    }
  }
  return {
    unsettled: unsettledRefs.length,
    live: [...live.values()],
    unresolved: unresolvedRefs.length,
    outbox: [...outboxFigures.values()],
    deadLetters: deadIds.length,
    truncated: unsettledRefs.length > SCRAPE_READ_LIMIT || pendingIds.length > SCRAPE_READ_LIMIT,
  };
}

function parse<T>(raw: string | null): T | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}
