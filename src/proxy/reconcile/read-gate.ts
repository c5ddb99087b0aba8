/** A place in the gate's line: `granted` resolves true with a slot, or false when cancelled first. */
export interface GateTicket {
  readonly granted: Promise<boolean>;
  /** Moves a ticket still waiting in the routine line to the end of the urgent one (someone now waits on it). */
  promote(): void;
  /** Gives the slot back once the pass is over, or leaves the line (`granted` resolves false); once only. */
  release(): void;
  /** Leaves the line if still waiting in it (`granted` resolves false); nothing once granted. */
  withdraw(): void;
}

interface Waiter {
  urgent: boolean;
  grant: (ok: boolean) => void;
}

/**
 * Bounds the reconciler's passes in flight in one process (DESIGN: reconcile, a bound on reads): at most
 * `limit` hold a slot; the rest wait in two first-come lines, and a freed slot goes to the urgent line first
 * (a read someone is waiting for: a callback hint, a customer's look, a fresh payment), then to routine polls.
 * Under a slow provider the backlog waits here, in the process, instead of as sockets and timed-out reads.
 */
export class ReadGate {
  private inFlight = 0;
  // Sets keep insertion order and delete in O(1): a promoted or cancelled waiter leaves from anywhere.
  private readonly urgent = new Set<Waiter>();
  private readonly routine = new Set<Waiter>();

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError('ReadGate: limit must be at least 1');
  }

  /** Passes holding a slot now. */
  get active(): number {
    return this.inFlight;
  }

  /** Waiting, by line. */
  get waiting(): { urgent: number; routine: number } {
    return { urgent: this.urgent.size, routine: this.routine.size };
  }

  /** Joins the line, or takes a free slot at once; the ticket's `release()` ends its turn. */
  enter(urgent: boolean): GateTicket {
    let state: 'waiting' | 'granted' | 'done' = 'waiting';
    let grant!: (ok: boolean) => void;
    const granted = new Promise<boolean>((resolve) => (grant = resolve));
    const waiter: Waiter = {
      urgent,
      grant: (ok) => {
        state = ok ? 'granted' : 'done';
        grant(ok);
      },
    };
    // A slot is free only while nobody waits: leave() hands a freed slot straight to the next in line.
    if (this.inFlight < this.limit) {
      this.inFlight++;
      waiter.grant(true);
    } else (urgent ? this.urgent : this.routine).add(waiter);
    const withdraw = () => {
      if (state !== 'waiting') return;
      (waiter.urgent ? this.urgent : this.routine).delete(waiter);
      waiter.grant(false);
    };
    return {
      granted,
      withdraw,
      promote: () => {
        if (state !== 'waiting' || waiter.urgent) return;
        this.routine.delete(waiter);
        waiter.urgent = true;
        this.urgent.add(waiter);
      },
      release: () => {
        if (state !== 'granted') return withdraw();
        state = 'done';
        this.leave();
      },
    };
  }

  /** A slot is free: the next urgent waiter gets it, else the next routine one. */
  private leave(): void {
    const next = first(this.urgent) ?? first(this.routine);
    if (!next) {
      this.inFlight = Math.max(0, this.inFlight - 1);
      return;
    }
    (next.urgent ? this.urgent : this.routine).delete(next);
    next.grant(true);
  }
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}
