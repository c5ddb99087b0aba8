import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';
import { checkStore, type StoreCheck, type StoreSetup } from './store-checks.js';
import { StoreHistory, type MovedBack } from './store-history.js';
import type { ProxyStore } from './types.js';

/** This process's store check (callable: one check for `/ready` and the start-up line) and its watch on the store's history. */
export interface StoreChecker {
  (): Promise<StoreCheck>;
  /** The watch on the store's history ({@link StoreHistory}); started by `start`. */
  readonly history: StoreHistory;
  /** This process's generation: 0 at start, one more each time it learns that the store's history moved back or the store was emptied. */
  generation(): number;
  /** Calls `listener` at each move back this process learns of; returns a function that stops it. */
  onMovedBack(listener: (event: MovedBack) => void): () => void;
  /** Starts looking at the store's history every interval; `stop` ends it. */
  start(): void;
  stop(): void;
}

/** How long a move back of the store's history stays in `/ready`'s notes (ms). */
export const MOVED_BACK_NOTE_MS = 60 * 60_000;

/**
 * This process's store check, for the start-up line and every `/ready`: its readiness key is its own
 * (`ready:<random id>`), each check writes the next value, and concurrent callers share the check in
 * progress (two at once would race on the key). With it, the watch on the store's history.
 */
export function createStoreCheck(
  store: ProxyStore,
  setup: StoreSetup,
  options: {
    intervalMs?: number;
    logger?: Logger;
    runtime?: Runtime;
    /** The store the history's marker is written through (default `store`): processes race on it by design, which is no order's conflict. */
    historyStore?: ProxyStore;
  } = {},
): StoreChecker {
  const runtime = options.runtime ?? HOST_RUNTIME;
  const id = randomUUID();
  let count = 0;
  let running: Promise<StoreCheck> | null = null;
  const history = new StoreHistory(options.historyStore ?? store, {
    acknowledge: setup.acknowledge ?? 0,
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    runtime,
  });
  const withHistory = (check: StoreCheck): StoreCheck => {
    const last = history.last();
    if (!last || runtime.now() - last.at > MOVED_BACK_NOTE_MS) return check;
    const ago = Math.round((runtime.now() - last.at) / 1_000);
    return { ...check, notes: [...check.notes, `the store's history moved back ${ago} s ago (generation ${last.generation}): ${last.detail}`] };
  };
  const check = () => (running ??= checkStore(store, setup, `ready:${id}`, `${id}:${++count}`).then(withHistory).finally(() => (running = null)));
  return Object.assign(check, {
    history,
    generation: history.generation,
    onMovedBack: history.onMovedBack,
    start: () => history.start(),
    stop: () => history.stop(),
  });
}

/** A shard's check, under the shard's name. */
export interface ShardCheck {
  name: string;
  check: StoreChecker;
}

/**
 * The checks of a store whose orders are split into shards (DESIGN: Redis Cluster), as one: the whole
 * store's (its own slot: tokens, limits, the format's marker) and each shard's (a write through its commit,
 * what the master keeping it says of itself, its history). Each reason and note names its shard. A shard
 * that does not take the readiness write (its master down or failing over) is a note, not a reason: every
 * instance sees the same, and taking them all out of the balancer would refuse the other shards' orders
 * too; its own orders answer 503 meanwhile. What a shard's master is (an evicting policy, no persistence
 * where the mode needs it) is a reason, as for the whole store. A shard's history moving back is told with
 * the shard's index, so only its orders are held while the copies are merged.
 */
export function shardedStoreCheck(whole: StoreChecker, shards: readonly ShardCheck[]): StoreChecker & { onShardMovedBack(listener: (shard: number, event: MovedBack) => void): void } {
  const check = async (): Promise<StoreCheck> => {
    const [first, ...rest] = await Promise.all([whole(), ...shards.map((s) => s.check())]);
    const named = (i: number, lines: string[]) => lines.map((line) => `${shards[i]!.name}: ${line}`);
    const silent = (c: StoreCheck, i: number) => (c.writable ? [] : named(i, [`does not answer (its orders answer 503 until it does; the other shards' go on): ${c.reasons.join('; ')}`]));
    const answering = rest.filter((c) => c.writable);
    return {
      ...first!,
      ok: first!.ok && answering.every((c) => c.ok),
      reasons: [...first!.reasons, ...rest.flatMap((c, i) => (c.writable ? named(i, c.reasons) : []))],
      notes: [...new Set([...first!.notes, ...rest.flatMap((c, i) => [...silent(c, i), ...named(i, c.notes)])])],
    };
  };
  return Object.assign(check, {
    history: whole.history,
    generation: () => whole.generation() + shards.reduce((n, s) => n + s.check.generation(), 0),
    onMovedBack: whole.onMovedBack,
    onShardMovedBack(listener: (shard: number, event: MovedBack) => void) {
      shards.forEach((s, i) => s.check.onMovedBack((event) => listener(i, event)));
    },
    start() {
      whole.start();
      for (const s of shards) s.check.start();
    },
    stop() {
      whole.stop();
      for (const s of shards) s.check.stop();
    },
  });
}
