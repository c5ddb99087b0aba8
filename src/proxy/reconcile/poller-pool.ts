import { backoffDelay, type BackoffOptions } from './backoff.js';
import type { GateTicket, ReadGate } from './read-gate.js';

/**
 * What one poll decided: keep polling on the backoff schedule, stop (a final state), poll again after this
 * many milliseconds (the reconciler's slow cadence once a page stopped waiting), or `backOff`: a read failed
 * as unavailable, so the next poll comes later than `next` says (see `failureCeilingMs`).
 */
export type TickResult = 'continue' | 'done' | number | { backOff: 'continue' | number };

/** One poll of a reference; it must not throw (a throw is reported to `onError` and polling goes on). */
export type Tick = () => Promise<TickResult>;

/** The pool's clock and timers (injected by tests; the real ones are unref'd, so a pool never holds a process open). */
export interface PoolTimers {
  now(): number;
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: PoolTimers = {
  now: () => Date.now(),
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface PollerPoolOptions extends BackoffOptions {
  /**
   * Least time between two polls of one reference, even when woken (a flood of callback hints must
   * not become a flood of upstream reads).
   */
  minWakeGapMs?: number;
  /**
   * Bounds the ticks in flight: a tick waits for a slot, a woken poller's (or one started `urgent`) before
   * routine ones. None: every tick runs when its timer fires.
   */
  gate?: ReadGate;
  /**
   * The longest wait after ticks that failed as unavailable: each one in a row doubles the planned wait, up
   * to this (never below the plan). Default: `maxIntervalMs` × 6.
   */
  failureCeilingMs?: number;
  /** Told of a tick that threw; polling goes on. */
  onError?: (key: string, err: unknown) => void;
  random?: () => number;
  timers?: PoolTimers;
}

interface Poller {
  stopped: boolean;
  /** Set by wake(): the next sleep ends early (not before the wake gap), and the next tick is urgent. */
  woken: boolean;
  lastTickAt: number;
  /** Ends the current sleep early. */
  interrupt: (() => void) | null;
  /** Its place in the gate while it waits for (or holds) a slot. */
  ticket: GateTicket | null;
  done: Promise<void>;
}

/**
 * One poller per key however many ask for it (DESIGN: status relay, coalesced). A poller runs its tick
 * at once (within the gate's bound), then on a jittered backoff schedule, until the tick answers `done` or
 * the pool stops it. `wake(key)` makes it poll now, ahead of routine polls waiting at the gate.
 */
export class PollerPool {
  private readonly pollers = new Map<string, Poller>();
  private readonly timers: PoolTimers;
  private closed = false;

  constructor(private readonly options: PollerPoolOptions) {
    this.timers = options.timers ?? REAL_TIMERS;
  }

  /**
   * Starts polling `key` with `tick` unless a poller for it already runs; true when this call started one.
   * `urgent`: someone waits for its first read (a fresh payment, a customer's look), not a sweep.
   */
  ensure(key: string, tick: Tick, urgent = false): boolean {
    if (this.closed || this.pollers.has(key)) return false;
    const poller: Poller = { stopped: false, woken: urgent, lastTickAt: 0, interrupt: null, ticket: null, done: Promise.resolve() };
    this.pollers.set(key, poller);
    poller.done = this.run(key, poller, tick);
    return true;
  }

  /** Makes the poller of `key` poll now (after the wake gap, ahead of routine polls); false when none runs for it. */
  wake(key: string): boolean {
    const poller = this.pollers.get(key);
    if (!poller) return false;
    poller.woken = true;
    poller.ticket?.promote();
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
    poller.ticket?.withdraw();
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
    const ceiling = this.options.failureCeilingMs ?? this.options.maxIntervalMs * 6;
    let attempt = 0;
    let failures = 0;
    try {
      while (!poller.stopped) {
        // Without a gate the tick starts in this turn of the loop (a wake after ensure() comes during it).
        if (this.options.gate && !(await this.turn(poller, this.options.gate))) break;
        poller.woken = false;
        poller.lastTickAt = this.timers.now();
        let result: TickResult = 'continue';
        try {
          result = await tick();
        } catch (err) {
          this.options.onError?.(key, err);
        } finally {
          poller.ticket?.release();
          poller.ticket = null;
        }
        if (poller.stopped) break;
        // Woken while the tick ran: someone wants a fresh read (a reference sent again), whatever the tick said.
        if (result === 'done' && !poller.woken) break;
        if (result === 'done') continue;
        const next = typeof result === 'object' ? result.backOff : result;
        failures = typeof result === 'object' ? failures + 1 : 0;
        let planned = typeof next === 'number' ? next : backoffDelay(attempt++, this.options, this.options.random);
        if (failures > 0) planned = Math.max(planned, Math.min(ceiling, planned * 2 ** failures));
        await this.sleep(poller, planned, gap);
      }
    } finally {
      poller.ticket?.release();
      if (this.pollers.get(key) === poller) this.pollers.delete(key);
    }
  }

  /** Waits for the gate's slot (urgent when woken); false when the poller was stopped meanwhile. */
  private async turn(poller: Poller, gate: ReadGate): Promise<boolean> {
    poller.ticket = gate.enter(poller.woken);
    const granted = await poller.ticket.granted;
    if (granted && !poller.stopped) return true;
    poller.ticket.release();
    poller.ticket = null;
    return false;
  }

  /** Sleeps `planned` ms, or less when woken, but never less than `gap` after the last tick. */
  private sleep(poller: Poller, planned: number, gap: number): Promise<void> {
    const { timers } = this;
    return new Promise<void>((resolve) => {
      let timer: unknown;
      const finish = () => {
        if (timer !== undefined) timers.clear(timer);
        poller.interrupt = null;
        resolve();
      };
      const arm = (ms: number) => {
        if (timer !== undefined) timers.clear(timer);
        timer = timers.set(finish, Math.max(0, ms));
      };
      const earliest = () => poller.lastTickAt + gap - timers.now();
      poller.interrupt = () => {
        if (poller.stopped) finish();
        else arm(Math.min(planned - (timers.now() - poller.lastTickAt), earliest()));
      };
      if (poller.stopped) finish();
      else if (poller.woken) arm(earliest());
      else arm(planned);
    });
  }
}
