import { BoundedMap } from '../bounded-map.js';
import { isUnsettled, type PlanEnv } from '../reconcile/reconcile-plan.js';
import type { TransitionEnv } from './events.js';
import { isLiveSession, isLiveTry, recordValue, type Order } from './order-record.js';
import { transition } from './transition.js';

/** One order as this process keeps it: the record as stored (its JSON), and what is asked of it often. */
interface Copy {
  id: string;
  v: number;
  raw: string;
  /** A try or session not final: unsettled whatever the time. */
  live: boolean;
  /** Not live but unsettled when kept (a void read on for its window): looked at again when swept. */
  late: boolean;
}

/**
 * The copies an order book keeps to put back what the store loses (bounded: the oldest go first), each as
 * the JSON it was stored as, parsed only when put back or merged. Kept parsed, a pending payment's copy was
 * some 55 objects and 3 KiB of heap (`bench/sections/scale-heap.ts`), ten thousand of them in a flash sale;
 * its JSON is the string the store's read or write already made.
 */
export class OrderCopies {
  private readonly entries: BoundedMap<string, Copy>;

  constructor(limit: number) {
    this.entries = new BoundedMap(limit);
  }

  /**
   * Keeps `order`, stored as `raw` (its JSON). A copy of the same JSON stays the object it was (only whether
   * it is read late is looked at again), not replaced by each read's equal string.
   */
  set(ref: string, order: Order, raw: string, env: PlanEnv): void {
    const live = order.tries.some(isLiveTry) || order.sessions.some(isLiveSession);
    const late = !live && isUnsettled(order, env);
    const kept = this.entries.get(ref);
    if (kept && kept.raw === raw) {
      kept.late = late;
      return;
    }
    this.entries.set(ref, { id: order.id, v: order.v, raw, live, late });
  }

  /**
   * Keeps `order`, just written as `raw` by a write that took the copy kept as `accounted` into account (the
   * record it read, or the copy it merged). A copy that moved on since (another request of this process wrote
   * meanwhile) means the write went through on a store that went back behind it: what the copy knew and the
   * write did not (a try claimed and sent) stays, merged (the transition's `restore`), so that the order's
   * next read in this process puts it back.
   */
  keep(ref: string, accounted: string | null, order: Order, raw: string, env: TransitionEnv & PlanEnv): void {
    const kept = this.entries.get(ref);
    if (kept && kept.raw !== accounted && kept.raw !== raw) {
      const merged = transition(order, { type: 'restore', copy: JSON.parse(kept.raw) as Order }, env).order;
      if (merged !== order) return this.set(ref, merged, recordValue(merged, env), env);
    }
    this.set(ref, order, raw, env);
  }

  /** The record's id, version and JSON, without parsing it. */
  head(ref: string): { id: string; v: number; raw: string } | undefined {
    return this.entries.get(ref);
  }

  /** The order as kept (a fresh object each time). */
  get(ref: string): Order | undefined {
    const copy = this.entries.get(ref);
    return copy ? (JSON.parse(copy.raw) as Order) : undefined;
  }

  /** Every order kept. */
  refs(): string[] {
    return [...this.entries.keys()];
  }

  /** The orders kept whose money is not settled now. */
  unsettled(env: PlanEnv): string[] {
    const out: string[] = [];
    for (const [ref, copy] of this.entries) {
      if (copy.live || (copy.late && isUnsettled(JSON.parse(copy.raw) as Order, env))) out.push(ref);
    }
    return out;
  }
}
