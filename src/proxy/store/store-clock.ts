import type { Logger } from 'pino';
import type { ProxyStore } from './types.js';
import { HOST_RUNTIME } from '../runtime.js';
import { StoreUnavailableError } from './store-error.js';

/** How long a reading of the store's clock is carried forward before it is read again. */
export const CLOCK_RESYNC_MS = 60_000;

/**
 * The longest round trip of a reading of the store's clock that is taken (ms). A reading counts for the
 * middle of its trip, so it is off by up to half the trip: a trip that stalled (the process paused, the store
 * slow) would set the clock off by more than the grace, and a read a grace "after" a send would be made
 * before it (the model checker's `ledger` era: a TIME answered after a 60 s stall set a process 30 s ahead, and
 * it took a 0400 for a refusal while its payment was landing; completed, never reported). A longer trip is
 * read again, and after `CLOCK_TRIES` such trips the store counts as not answering.
 */
export const CLOCK_MAX_TRIP_MS = 2_000;
const CLOCK_TRIES = 3;

/** A host's clocks: its wall clock (may be stepped or drift) and a monotonic one (never steps). */
export interface HostClocks {
  wall(): number;
  monotonic(): number;
}

const HOST: HostClocks = { wall: HOST_RUNTIME.now, monotonic: HOST_RUNTIME.monotonic };

/**
 * The one clock every process judges the money's times on (DESIGN: one clock): the store's. A try's send is
 * stamped by one process and "past the grace" judged by another; on two hosts' own clocks, one ahead of the
 * other by more than the grace took a try for absent while its request could still land (charged twice).
 *
 * The store's time is read (Redis `TIME`) before the first transition and then every `CLOCK_RESYNC_MS`,
 * and carried forward between readings on the host's monotonic clock, so a host whose wall clock is stepped
 * or drifts changes nothing; the reading counts for the middle of its round trip (off by half of it at most).
 * A store with no clock of its own (memory, one process; a custom store without `time`) leaves the host's.
 */
export class StoreClock {
  /** The store's time at the last reading, and the monotonic time it counts for. */
  private base: { store: number; at: number } | null = null;
  private reading: Promise<void> | null = null;
  /** The offset last logged (ms), so a steady one is logged once. */
  private logged = 0;

  constructor(
    private readonly store: Pick<ProxyStore, 'time'>,
    private readonly logger?: Pick<Logger, 'warn'>,
    private readonly host: HostClocks = HOST,
  ) {}

  /** Now, in epoch milliseconds, on the store's clock (the host's until the store's was first read). */
  readonly now = (): number => (this.base ? this.base.store + (this.host.monotonic() - this.base.at) : this.host.wall());

  /** How far the store's clock is from this host's wall clock (ms; 0 when under a second, or not read yet). */
  get offsetMs(): number {
    const offset = this.base ? this.now() - this.host.wall() : 0;
    return Math.abs(offset) < 1_000 ? 0 : offset;
  }

  /**
   * Resolves once `now` is the store's: at once when it was read, else after reading it (rejects, as any
   * store call, when the store does not answer). A reading older than `CLOCK_RESYNC_MS` is renewed in the
   * background: the old one stays good meanwhile (the monotonic clock drifts by milliseconds a minute).
   */
  async ensure(): Promise<void> {
    if (!this.store.time) return;
    if (!this.base) return this.read();
    if (this.host.monotonic() - this.base.at >= CLOCK_RESYNC_MS) this.read().catch(() => undefined);
  }

  /** Reads the store's clock (one reading at a time: callers meanwhile share it). */
  private read(): Promise<void> {
    this.reading ??= (async () => {
      try {
        for (let tries = 1; ; tries++) {
          const before = this.host.monotonic();
          const store = await this.store.time!();
          const after = this.host.monotonic();
          if (after - before <= CLOCK_MAX_TRIP_MS) {
            this.base = { store, at: (before + after) / 2 };
            break;
          }
          if (tries >= CLOCK_TRIES) throw new StoreUnavailableError('time', new Error(`the store's clock took over ${CLOCK_MAX_TRIP_MS} ms to answer, ${tries} times`));
        }
        this.logOffset();
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  private logOffset(): void {
    const offset = this.offsetMs;
    const changed = Math.abs(offset - this.logged) >= 1_000;
    this.logged = offset;
    if (changed && offset !== 0) this.logger?.warn({ offsetMs: Math.round(offset) }, "this host's clock is off the store's; the proxy keeps the store's time (check the host's time synchronisation)");
  }
}
