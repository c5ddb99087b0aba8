import type { Logger } from 'pino';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';
import type { RedisFacts } from './redis-facts.js';
import type { ProxyStore } from './types.js';

/**
 * The store's history marker and era (DESIGN: a store that goes back in time). `store:history` holds a
 * counter every process advances on every look, with who the server was when it was written; `store:era`
 * a random id that changes whenever some process finds the history moved back. Neither expires.
 */
export const HISTORY_KEYS = { marker: 'store:history', era: 'store:era' } as const;

/** How often each process looks at the store's history by default (ms). */
export const HISTORY_INTERVAL_MS = 1_000;

/** What `store:history` holds. */
interface Marker {
  /** Advanced by one at every look of any process: it only rises while the store keeps its history. */
  n: number;
  era: string;
  /** The server that took the write (`run_id`), and the replication history it was on (`master_replid`). */
  runId: string | null;
  replid: string | null;
  /** Whether a restart of that server keeps every acknowledged write (append-only file, `appendfsync always`). */
  restartSafe: boolean;
  /** Whether every commit waited for a replica's acknowledgement (`REDIS_WAIT_REPLICAS`), so the most advanced replica holds it. */
  failoverSafe: boolean;
}

/** How the history was found to have moved back. */
export type MovedBackKind =
  /** The marker is gone: flushed, or another (empty) server behind the same address. */
  | 'emptied'
  /** The marker's counter is lower than this process last saw: restored from an older copy. */
  | 'rolled-back'
  /** Another server process (`run_id`) on a new history, and the last one could lose acknowledged writes on a restart. */
  | 'restarted'
  /** A replica promoted (its `master_replid2` is the marker's), which may lack writes: commits did not wait for replicas. */
  | 'failed-over'
  /** Another process found it (the era changed under this one). */
  | 'elsewhere';

/** One move back of the store's history, as this process learnt of it. */
export interface MovedBack {
  kind: MovedBackKind;
  /** This process's generation from now on (one more than before). */
  generation: number;
  /** The store's era from now on. */
  era: string;
  /** One sentence for the operator. */
  detail: string;
  /** When this process learnt of it (host's wall clock, epoch ms). */
  at: number;
}

/** What the store must keep for a write to survive, as the checks judge it now. */
export interface HistorySetup {
  /** How many replicas acknowledge each commit (0: none). */
  acknowledge: number;
  intervalMs?: number;
  logger?: Pick<Logger, 'error' | 'info' | 'warn'>;
  runtime?: Runtime;
}

function parse(raw: string | null): Marker | null {
  if (raw === null) return null;
  try {
    const m = JSON.parse(raw) as Partial<Marker>;
    if (typeof m.n === 'number' && typeof m.era === 'string') {
      return { n: m.n, era: m.era, runId: m.runId ?? null, replid: m.replid ?? null, restartSafe: m.restartSafe === true, failoverSafe: m.failoverSafe === true };
    }
  } catch {
    // Unreadable: taken as absent, and written anew.
  }
  return null;
}

/**
 * One process's watch on the store's history (DESIGN: a store that goes back in time). Every look reads
 * what the server says of itself and the marker, judges, and advances the marker by a compare-and-set
 * through `commit` (so with `REDIS_WAIT_REPLICAS` the replicas acknowledge it too). Its `generation()`
 * starts at 0 and rises by one each time this process learns that the history moved back or the store was
 * emptied; `onMovedBack` listeners hear each. Between two looks the store may move back unseen (see
 * docs/operations.md: what it can and cannot detect).
 */
export class StoreHistory {
  private seen: Marker | null = null;
  private gen = 0;
  private lastEvent: MovedBack | null = null;
  private readonly listeners = new Set<(event: MovedBack) => void>();
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly runtime: Runtime;

  constructor(
    private readonly store: ProxyStore,
    private readonly setup: HistorySetup,
  ) {
    this.runtime = setup.runtime ?? HOST_RUNTIME;
  }

  /** This process's generation: 0 at start, one more at each move back it learnt of. */
  readonly generation = (): number => this.gen;

  /** The store's era as this process last saw it (null before the first look). */
  readonly era = (): string | null => this.seen?.era ?? null;

  /** The last move back this process learnt of, or null. */
  readonly last = (): MovedBack | null => this.lastEvent;

  /** Calls `listener` at each move back this process learns of; returns a function that stops it. */
  readonly onMovedBack = (listener: (event: MovedBack) => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  /** Looks now (concurrent callers share one look); resolves the generation after it; rejects when the store does not answer. */
  readonly check = (): Promise<number> => (this.running ??= this.look().finally(() => (this.running = null)));

  /** Looks now and then every `intervalMs`, until `stop`. */
  start(): void {
    if (this.timer) return;
    const tick = () => void this.check().catch(() => undefined);
    tick();
    this.timer = this.runtime.interval(tick, this.setup.intervalMs ?? HISTORY_INTERVAL_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async look(): Promise<number> {
    const facts = this.store.inspect ? await this.store.inspect().catch(() => null) : null;
    let found: { kind: MovedBackKind; detail: string; era: string } | null = null;
    for (let tries = 0; tries < 5; tries++) {
      const raw = await this.store.get(HISTORY_KEYS.marker);
      const marker = parse(raw);
      if (found && marker && marker.era !== found.era) {
        // Another process declared a new era meanwhile: the same move back, or a later one.
        this.learn(found.kind, found.detail, marker);
        return this.gen;
      }
      found ??= this.judge(marker, facts);
      const adopted = !found && this.seen !== null && marker !== null && marker.era !== this.seen.era;
      const next: Marker = {
        n: Math.max(marker?.n ?? 0, this.seen?.n ?? 0) + 1,
        era: found || !marker ? this.runtime.newId() : marker.era,
        runId: facts?.identity?.runId ?? null,
        replid: facts?.identity?.replid ?? null,
        restartSafe: facts ? facts.aof === true && facts.fsync === 'always' : false,
        failoverSafe: this.setup.acknowledge > 0,
      };
      const value = JSON.stringify(next);
      const written = await this.store.commit({ key: HISTORY_KEYS.marker, expected: raw, value, also: [{ op: 'set', key: HISTORY_KEYS.era, value: next.era }] });
      if (!written) continue;
      if (found) this.learn(found.kind, found.detail, next);
      else if (adopted) this.learn('elsewhere', 'another process found that the store\'s history moved back, and gave it a new era', next);
      else this.seen = next;
      return this.gen;
    }
    // Others kept writing: this look is over; the next one judges again (what was found stays found there).
    return this.gen;
  }

  /** Whether the marker and the server's identity say the history moved back since this process (or the marker's writer) last saw it. */
  private judge(marker: Marker | null, facts: RedisFacts | null): { kind: MovedBackKind; detail: string; era: string } | null {
    const era = marker?.era ?? '';
    if (marker === null) {
      return this.seen ? { kind: 'emptied', era, detail: 'the store\'s history marker (store:history) is gone: the store was emptied (flushed, or another server behind the same address)' } : null;
    }
    if (this.seen && marker.n < this.seen.n) {
      return { kind: 'rolled-back', era, detail: `the store's history marker went back from ${this.seen.n} to ${marker.n}: the store was restored from an older copy` };
    }
    const identity = facts?.identity;
    if (!identity || marker.runId === null || marker.runId === identity.runId) return null;
    const promoted = identity.replid2 === marker.replid || identity.replid === marker.replid;
    if (promoted && !marker.failoverSafe) {
      return { kind: 'failed-over', era, detail: 'Redis failed over to a replica, and commits did not wait for a replica\'s acknowledgement (REDIS_WAIT_REPLICAS): it may lack the last writes' };
    }
    if (!promoted && !marker.restartSafe) {
      return { kind: 'restarted', era, detail: 'Redis restarted (another run_id and replication history), and its persistence could lose acknowledged writes (not appendonly with appendfsync always): it may have come back from an older state' };
    }
    return null;
  }

  private learn(kind: MovedBackKind, detail: string, marker: Marker): void {
    this.seen = marker;
    this.gen += 1;
    const event: MovedBack = { kind, generation: this.gen, era: marker.era, detail, at: this.runtime.now() };
    this.lastEvent = event;
    this.setup.logger?.error({ store: 'history', kind, generation: this.gen }, `the store's history moved back: ${detail}`);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.setup.logger?.error({ store: 'history', err }, 'a listener of the store\'s history failed');
      }
    }
  }
}
