import { StoreUnavailableError } from './store-error.js';
import type { ProxyStore } from './types.js';
import { HOST_RUNTIME } from '../runtime.js';

/** The key that says which format the store's records are in (under the store's prefix: `me:store:format`). */
export const STORE_FORMAT_KEY = 'store:format';

/**
 * The format of the records this code writes, and every format it reads. A store with no marker holds
 * format 1: the records written before the marker existed. A change of format takes two releases so that a
 * rolling upgrade never runs an instance beside records it cannot read (docs/operations.md: upgrading): the
 * first reads the new format and still writes the old; the second writes the new and marks the store.
 */
export interface StoreFormat {
  writes: number;
  reads: readonly number[];
}

export const STORE_FORMAT: StoreFormat = { writes: 2, reads: [1, 2] };

/**
 * The formats, each by what it changed:
 * - 1: the records as the release before the marker wrote them;
 * - 2: the number a token locks kept in the order's terms as a lock (a keyed hash and its key's id), not in
 *   full (DESIGN: phone numbers at rest).
 * This code writes 2: it marks a new store with it, and moves a store marked 1 to it ({@link claimStoreFormat}).
 * It reads 1 as well, for the records already there and for those an instance of the release before (which
 * reads both and writes 1) goes on writing while a rolling upgrade runs the two side by side.
 */
export const LOCKED_NUMBERS_FORMAT = 2;

/**
 * Format 3: format 2's records, with a Cluster store's orders split into shards, each under a hash tag of its
 * own (DESIGN: Redis Cluster); the store's `store:shards` says how many. A store is made so when it is
 * created (`REDIS_CLUSTER_SHARDS`) and stays so: a store that holds orders in one slot is never split, and a
 * split one is read only by instances given the same number of shards. Releases before it refuse it (they
 * read 1 and 2), so none of them runs on a store whose orders it cannot find.
 */
export const SHARDED_FORMAT = 3;
export const SHARDED_STORE_FORMAT: StoreFormat = { writes: SHARDED_FORMAT, reads: [SHARDED_FORMAT] };

/** How many shards a store of format 3 splits its orders into (under the store's prefix, beside the marker). */
export const SHARDS_KEY = 'store:shards';

/** The order book's epoch (`order/keys.ts`): present once the store has held an order. */
const ORDERS_BEGUN_KEY = 'ord:epoch';

/** The store holds records this code cannot read: it must not start (or, running, must not take traffic). */
export class StoreFormatError extends Error {
  override readonly name = 'StoreFormatError';
  constructor(
    readonly found: number | string,
    readonly format: StoreFormat,
    problem: string = formatProblem(found, format),
  ) {
    super(problem);
  }
}

function shardsProblem(found: number | string, stored: string | null, shards: number): string {
  if (found === SHARDED_FORMAT) {
    const told = shards === 1 ? 'none (REDIS_CLUSTER_SHARDS unset)' : String(shards);
    return `the store splits its orders into ${stored ?? 'an unknown number of'} shards (format 3) and this instance is given ${told}: set REDIS_CLUSTER_SHARDS=${stored ?? '<the fleet\'s number>'} on every instance (a store keeps the number it was made with)`;
  }
  return `the store keeps its orders in one slot (format ${found}) and this instance is given REDIS_CLUSTER_SHARDS=${shards}: shards are chosen when a store is made and never after; leave REDIS_CLUSTER_SHARDS unset here, or start the sharded fleet on a new REDIS_PREFIX (docs/operations.md, growing past one Redis)`;
}

function formatProblem(found: number | string, format: StoreFormat): string {
  const newest = Math.max(...format.reads);
  if (typeof found === 'string') return `the store's format marker (${STORE_FORMAT_KEY}) holds "${found}", not a format number: this store was not written by merchant-elements, or the marker was overwritten; check REDIS_PREFIX`;
  if (found > newest) {
    return `the store holds records of format ${found}, written by a newer merchant-elements; this version reads format ${format.reads.join(' and ')}: run the newer version (a rolling upgrade never goes back past a format change: docs/operations.md, upgrading)`;
  }
  return `the store holds records of format ${found}, which this version no longer reads (it reads ${format.reads.join(' and ')}): upgrade through the release that reads both first (docs/operations.md, upgrading)`;
}

/** The format the store's marker says (1 when it has none); a marker that is not a number is returned as it is. */
export async function storedFormat(store: Pick<ProxyStore, 'get'>): Promise<number | string> {
  const raw = await store.get(STORE_FORMAT_KEY);
  if (raw === null) return 1;
  return /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : raw;
}

/** The reason readiness fails for the store's format, or null when this code reads it. */
export async function formatReason(store: Pick<ProxyStore, 'get'>, format: StoreFormat = STORE_FORMAT, shards = 1): Promise<string | null> {
  const found = await storedFormat(store);
  if (shards > 1 || found === SHARDED_FORMAT) {
    const stored = await store.get(SHARDS_KEY);
    if (shards > 1 && found === SHARDED_FORMAT && stored === String(shards)) return null;
    if (shards > 1 || typeof found !== 'number' || !format.reads.includes(found)) return shardsProblem(found, stored, shards);
  }
  return typeof found === 'number' && format.reads.includes(found) ? null : formatProblem(found, format);
}

/**
 * At start-up: refuses a store this code cannot read (throws {@link StoreFormatError}), and marks one that
 * has no marker, or an older format it reads, with the format it writes. Resolves the store's format now.
 */
export async function claimStoreFormat(
  store: Pick<ProxyStore, 'get' | 'setIfAbsent' | 'compareAndSet' | 'commit'>,
  format: StoreFormat = STORE_FORMAT,
  /** How many shards this instance splits orders into (1: none); more makes or requires a store of format 3. */
  shards = 1,
): Promise<number> {
  if (shards > 1) return claimShards(store, shards);
  for (let tries = 0; tries < 5; tries++) {
    const raw = await store.get(STORE_FORMAT_KEY);
    const found = await storedFormat({ get: async () => raw });
    if (found === SHARDED_FORMAT && !format.reads.includes(found)) throw new StoreFormatError(found, format, shardsProblem(found, await store.get(SHARDS_KEY), shards));
    if (typeof found === 'string' || !format.reads.includes(found)) throw new StoreFormatError(found, format);
    if (found >= format.writes && raw !== null) return found;
    // Absent (format 1), or an older format this code reads: every instance of the fleet reads the new one
    // (the two-release rule), so marking it now leaves none behind. Written only if the marker is still what
    // was read: of instances racing, one moves it, and the others read it again and take what it says.
    const marked = raw === null ? await store.setIfAbsent(STORE_FORMAT_KEY, String(format.writes)) : await store.compareAndSet(STORE_FORMAT_KEY, raw, String(format.writes));
    if (marked) return format.writes;
  }
  throw new Error(`the store's format marker (${STORE_FORMAT_KEY}) kept changing while this process started`);
}

/**
 * A store split into `shards`: a new one (no marker, no order ever) is marked 3 with its number of shards, in
 * one commit that fails if an order began meanwhile; one already split must have the same number.
 */
async function claimShards(store: Pick<ProxyStore, 'get' | 'commit'>, shards: number): Promise<number> {
  for (let tries = 0; tries < 5; tries++) {
    const found = await storedFormat(store);
    if (found === SHARDED_FORMAT) {
      const stored = await store.get(SHARDS_KEY);
      if (stored !== String(shards)) throw new StoreFormatError(found, SHARDED_STORE_FORMAT, shardsProblem(found, stored, shards));
      return SHARDED_FORMAT;
    }
    if (found !== 1 || (await store.get(STORE_FORMAT_KEY)) !== null || (await store.get(ORDERS_BEGUN_KEY)) !== null) {
      throw new StoreFormatError(found, SHARDED_STORE_FORMAT, typeof found === 'string' ? formatProblem(found, SHARDED_STORE_FORMAT) : shardsProblem(found, null, shards));
    }
    const made = await store.commit({
      key: STORE_FORMAT_KEY,
      expected: null,
      value: String(SHARDED_FORMAT),
      also: [{ op: 'set', key: SHARDS_KEY, value: String(shards) }],
      when: [{ key: ORDERS_BEGUN_KEY, equals: null }],
    });
    if (made) return SHARDED_FORMAT;
  }
  throw new Error(`the store's format marker (${STORE_FORMAT_KEY}) kept changing while this process started`);
}

/**
 * The store's format claimed ({@link claimStoreFormat}) for the order book: tried at once and then every
 * `retryMs` while the store does not answer (`sleep` injectable), until it is claimed or refused.
 * `format` resolves the store's format, or rejects with {@link StoreFormatError} only.
 */
export class FormatGate {
  /** `claiming` (a first try under way), `down` (the last try found the store down), `open`, `refused`. */
  state: 'claiming' | 'down' | 'open' | 'refused' = 'claiming';
  /** The store's format once claimed (what this process writes), null until then. */
  claimed: number | null = null;
  readonly format: Promise<number>;
  private lastError: unknown = null;
  private firstTry: Promise<unknown>;

  constructor(
    store: Pick<ProxyStore, 'get' | 'setIfAbsent' | 'compareAndSet' | 'commit'>,
    options: { format?: StoreFormat; shards?: number; retryMs?: number; sleep?: (ms: number) => Promise<void>; stopped?: () => boolean } = {},
  ) {
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => HOST_RUNTIME.timeout(resolve, ms).unref()));
    const attempt = () => claimStoreFormat(store, options.format, options.shards);
    const first = attempt();
    this.firstTry = first.catch(() => undefined);
    this.format = (async () => {
      let pending = first;
      for (;;) {
        try {
          const found = await pending;
          this.claimed = found;
          this.state = 'open';
          return found;
        } catch (err) {
          this.lastError = err;
          if (err instanceof StoreFormatError) {
            this.state = 'refused';
            throw err;
          }
          this.state = 'down';
          if (options.stopped?.()) throw err;
          await sleep(options.retryMs ?? 1_000);
          pending = attempt();
        }
      }
    })();
    this.format.catch(() => undefined);
  }

  /**
   * Resolves when a store call may go through: at once when open; after the first try while it runs. Rejects
   * with a StoreUnavailableError (routes answer 503) while the store is down, as any store call would then,
   * or for good when the store's format is refused.
   */
  async pass(): Promise<void> {
    if (this.state === 'claiming') await this.firstTry;
    if (this.state === 'open') return;
    throw new StoreUnavailableError('format', this.lastError);
  }
}

/**
 * The store as the order book sees it: no record is read or written before the store's format is known to
 * be this code's (`gate`), so an instance of an older release on a newer store writes nothing.
 */
export function gatedStore<S extends ProxyStore>(store: S, gate: Pick<FormatGate, 'state' | 'pass'>): S {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'close') return value;
      let call = wrapped.get(property);
      if (!call) {
        const method = value as (...a: unknown[]) => unknown;
        // Once open, a call goes straight through: no extra turn on the payment's path.
        call = (...args: unknown[]) => (gate.state === 'open' ? method.apply(target, args) : gate.pass().then(() => method.apply(target, args)));
        wrapped.set(property, call);
      }
      return call;
    },
  });
}
