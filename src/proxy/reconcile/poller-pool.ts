import { backoffDelay, type BackoffOptions } from './backoff.js';

/**
 * What one poll decided: keep polling on the backoff schedule, stop (a final state), or poll again after
 * this many milliseconds (the reconciler's slow cadence once a page stopped waiting).
 */
export type TickResult = 'continue' | 'done' | number;

/** One poll of a reference; it must not throw (a throw is reported to `onError` and polling goes on). */
export type Tick = () => Promise<TickResult>;

export interface PollerPoolOptions extends BackoffOptions {
  /**
   * Least time between two polls of one reference, even when woken (a flood of callback hints must
   * not become a flood of upstream reads).
   */
  minWakeGapMs?: number;
  /** Told of a tick that threw; polling goes on. */
  onError?: (key: string, err: unknown) => void;
  random?: () => number;
}

interface Poller {
  stopped: boolean;
  /** Set by wake(): the next sleep ends early (not before the wake gap). */
  woken: boolean;
  lastTickAt: number;
  /** Ends the current sleep early. */
  interrupt: (() => void) | null;
  done: Promise<void>;
}

/**
 * One poller per key however many ask for it (DESIGN: status relay, coalesced). A poller runs its tick
 * at once, then on a jittered backoff schedule, until the tick answers `done` or the pool stops it.
 * `wake(key)` makes it poll now. Timers are unref'd so a pool never holds a process open.
 */
export class PollerPool {
  private readonly pollers = new Map<string, Poller>();
  private closed = false;

  constructor(private readonly options: PollerPoolOptions) {}

  /** Starts polling `key` with `tick` unless a poller for it already runs; true when this call started one. */
  ensure(key: string, tick: Tick): boolean {
    if (this.closed || this.pollers.has(key)) return false;
    const poller: Poller = { stopped: false, woken: false, lastTickAt: 0, interrupt: null, done: Promise.resolve() };
    this.pollers.set(key, poller);
    poller.done = this.run(key, poller, tick);
    return true;
  }

  /** Makes the poller of `key` poll now (after the wake gap); false when no poller runs for it. */
  wake(key: string): boolean {
    const poller = this.pollers.get(key);
    if (!poller) return false;
    poller.woken = true;
    poller.interrupt?.();
    return true;
  }

  has(key: string): boolean {
    return this.pollers.has(key);
  }

  /** Number of running pollers. */
  get size(): number {
    return this.pollers.size;
  }

  /** Stops the poller of `key` (its current tick, if any, finishes). */
  stop(key: string): void {
    const poller = this.pollers.get(key);
    if (!poller) return;
    poller.stopped = true;
    poller.interrupt?.();
    this.pollers.delete(key);
  }

  /** Stops every poller and waits for running ticks to finish. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pollers.values()];
    for (const key of [...this.pollers.keys()]) this.stop(key);
    await Promise.all(all.map((p) => p.done));
  }

  private async run(key: string, poller: Poller, tick: Tick): Promise<void> {
    const gap = this.options.minWakeGapMs ?? 250;
    let attempt = 0;
    try {
      while (!poller.stopped) {
        poller.woken = false;
        poller.lastTickAt = Date.now();
        let result: TickResult = 'continue';
        try {
          result = await tick();
        } catch (err) {
          this.options.onError?.(key, err);
        }
        if (poller.stopped) break;
        // Woken while the tick ran: someone wants a fresh read (a reference sent again), whatever the tick said.
        if (result === 'done' && !poller.woken) break;
        if (result === 'done') continue;
        const planned = typeof result === 'number' ? result : backoffDelay(attempt++, this.options, this.options.random);
        await this.sleep(poller, planned, gap);
      }
    } finally {
      if (this.pollers.get(key) === poller) this.pollers.delete(key);
    }
  }

  /** Sleeps `planned` ms, or less when woken, but never less than `gap` after the last tick. */
  private sleep(poller: Poller, planned: number, gap: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (timer) clearTimeout(timer);
        poller.interrupt = null;
        resolve();
      };
      const arm = (ms: number) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(finish, Math.max(0, ms));
        timer.unref();
      };
      const earliest = () => poller.lastTickAt + gap - Date.now();
      poller.interrupt = () => {
        if (poller.stopped) finish();
        else arm(Math.min(planned - (Date.now() - poller.lastTickAt), earliest()));
      };
      if (poller.stopped) finish();
      else if (poller.woken) arm(earliest());
      else arm(planned);
    });
  }
}
