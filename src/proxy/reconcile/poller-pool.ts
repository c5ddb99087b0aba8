import { backoffDelay, type BackoffOptions } from './backoff.js';
import type { GateTicket, ReadGate } from './read-gate.js';
import { HOST_RUNTIME } from '../runtime.js';

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
  now: HOST_RUNTIME.now,
  set: (run, ms) => HOST_RUNTIME.timeout(run, ms).unref(),
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
  readonly key: string;
  readonly tick: Tick;
  stopped: boolean;
  /** Set by wake(): the sleep ends early (not before the wake gap), and the next tick is urgent. */
  woken: boolean;
  lastTickAt: number;
  /** The current sleep's planned length (a wake shortens what is left of it). */
  planned: number;
  /** Polls made on the backoff schedule, and unavailable ticks in a row. */
  attempt: number;
  failures: number;
  /** The sleep's timer, while it sleeps. */
  timer: unknown;
  /** Its place in the gate while it waits for (or holds) a slot. */
  ticket: GateTicket | null;
  /** The running tick and what follows it, while one runs. */
  running: Promise<void> | null;
  /** Ends the sleep: one closure per poller, made once. */
  readonly fire: () => void;
}

/**
 * One poller per key however many ask for it (DESIGN: status relay, coalesced). A poller runs its tick
 * at once (within the gate's bound), then on a jittered backoff schedule, until the tick answers `done` or
 * the pool stops it. `wake(key)` makes it poll now, ahead of routine polls waiting at the gate.
 *
 * A poller is a record and one timer between its ticks, not a suspended loop: ten thousand pending payments
 * keep ten thousand of them (`npm run bench`, scale), and an async loop held a generator, a promise and
 * three closures per sleep for each.
 */
export class PollerPool {
  private readonly pollers = new Map<string, Poller>();
  private readonly timers: PoolTimers;
  private readonly gap: number;
  private readonly ceiling: number;
  private closed = false;

  constructor(private readonly options: PollerPoolOptions) {
    this.timers = options.timers ?? REAL_TIMERS;
    this.gap = options.minWakeGapMs ?? 250;
    this.ceiling = options.failureCeilingMs ?? options.maxIntervalMs * 6;
  }

  /**
   * Starts polling `key` with `tick` unless a poller for it already runs; true when this call started one.
   * `urgent`: someone waits for its first read (a fresh payment, a customer's look), not a sweep.
   */
  ensure(key: string, tick: Tick, urgent = false): boolean {
    if (this.closed || this.pollers.has(key)) return false;
    const poller: Poller = {
      key,
      tick,
      stopped: false,
      woken: urgent,
      lastTickAt: 0,
      planned: 0,
      attempt: 0,
      failures: 0,
      timer: undefined,
      ticket: null,
      running: null,
      fire: () => {
        poller.timer = undefined;
        this.next(poller);
      },
    };
    this.pollers.set(key, poller);
    this.next(poller);
    return true;
  }

  /** Makes the poller of `key` poll now (after the wake gap, ahead of routine polls); false when none runs for it. */
  wake(key: string): boolean {
    const poller = this.pollers.get(key);
    if (!poller) return false;
    poller.woken = true;
    poller.ticket?.promote();
    if (poller.timer !== undefined) {
      const now = this.timers.now();
      this.arm(poller, Math.min(poller.planned - (now - poller.lastTickAt), poller.lastTickAt + this.gap - now));
    }
    return true;
  }

  has(key: string): boolean {
    return this.pollers.has(key);
  }

  /** True while the poller of `key` is backing off: its last tick failed as unavailable. */
  failing(key: string): boolean {
    return (this.pollers.get(key)?.failures ?? 0) > 0;
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
    if (poller.timer !== undefined) this.timers.clear(poller.timer);
    poller.timer = undefined;
    this.pollers.delete(key);
  }

  /** Stops every poller and waits for running ticks to finish. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pollers.values()];
    for (const key of [...this.pollers.keys()]) this.stop(key);
    await Promise.all(all.map((p) => p.running));
  }

  /** The poller's next tick: at once without a gate; with one, once it grants a slot (urgent when woken). */
  private next(poller: Poller): void {
    if (poller.stopped) return this.end(poller);
    const gate = this.options.gate;
    if (!gate) return this.run(poller);
    const ticket = gate.enter(poller.woken);
    poller.ticket = ticket;
    void ticket.granted.then((granted) => {
      if (granted && !poller.stopped) return this.run(poller);
      ticket.release();
      poller.ticket = null;
      this.end(poller);
    });
  }

  private run(poller: Poller): void {
    poller.woken = false;
    poller.lastTickAt = this.timers.now();
    let ticked: Promise<TickResult>;
    try {
      ticked = poller.tick();
    } catch (err) {
      ticked = Promise.reject(err);
    }
    poller.running = ticked.then(
      (result) => this.after(poller, result),
      (err: unknown) => {
        this.options.onError?.(poller.key, err);
        this.after(poller, 'continue');
      },
    );
  }

  private after(poller: Poller, result: TickResult): void {
    poller.ticket?.release();
    poller.ticket = null;
    poller.running = null;
    if (poller.stopped) return this.end(poller);
    if (result === 'done') {
      // Woken while the tick ran: someone wants a fresh read (a reference sent again), whatever the tick said.
      if (poller.woken) return this.next(poller);
      return this.end(poller);
    }
    const next = typeof result === 'object' ? result.backOff : result;
    poller.failures = typeof result === 'object' ? poller.failures + 1 : 0;
    let planned = typeof next === 'number' ? next : backoffDelay(poller.attempt++, this.options, this.options.random);
    if (poller.failures > 0) planned = Math.max(planned, Math.min(this.ceiling, planned * 2 ** poller.failures));
    poller.planned = planned;
    // From the start of the tick that ended, as `wake` counts it: a read that took a while does not push the
    // next one later, so a payment at the ceiling is read once per interval and a change is seen within one.
    // Woken while the tick ran: the sleep lasts only the wake gap.
    this.arm(poller, (poller.woken ? this.gap : planned) - (this.timers.now() - poller.lastTickAt));
  }

  private arm(poller: Poller, ms: number): void {
    if (poller.timer !== undefined) this.timers.clear(poller.timer);
    poller.timer = this.timers.set(poller.fire, Math.max(0, ms));
  }

  private end(poller: Poller): void {
    if (this.pollers.get(poller.key) === poller) this.pollers.delete(poller.key);
  }
}
