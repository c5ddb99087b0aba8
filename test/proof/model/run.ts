/**
 * One run of the order model (DESIGN: proof): the world, its commands and the quiescing after them, driven by
 * a scheduler that lets the world's scheduled calls go on: fast-check's (property.ts, a generated run) or a
 * script's (script.ts, a scenario written out).
 */
import { AMOUNT, NUMBERS, ORDERS, type World } from './world.js';
import type { Fault } from './scripted-provider.js';

export type Command =
  | { kind: 'pay'; i: number; order: number; number: number }
  | { kind: 'checkout'; i: number; order: number }
  | { kind: 'answer'; order: number; how: 'COMPLETED' | 'CANCELLED' }
  | { kind: 'pay-session'; order: number }
  | { kind: 'reconcile'; i: number; order: number }
  | { kind: 'sweep'; i: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'fault'; on: 'payment' | 'read' | 'checkout'; fault: Fault }
  | { kind: 'land-late' }
  | { kind: 'callbacks'; i: number }
  | { kind: 'loss'; i: number }
  | { kind: 'foreign'; order: number }
  | { kind: 'join' }
  | { kind: 'operator' }
  | { kind: 'store-fault'; how: 'lost' | 'applied' | 'resent' }
  | { kind: 'foreign-same-price'; order: number }
  | { kind: 'flip'; order: number; what: 'payment' | 'session'; callback: boolean; delayMs: number }
  | { kind: 'snapshot' }
  | { kind: 'lag'; i: number; reads: number };


/**
 * What lets the world's scheduled calls go on. The run calls it in the very pattern of awaits a generated
 * run was found with: which calls are waiting when one is let go depends on how far the microtasks ran, so
 * one more await here would change what every pinned seed explores (the scenarios have no such dependence).
 */
export interface Driver {
  /** A command's segment of the run begins (its calls go on by `one`). */
  segment(): void;
  /** How many calls wait (for a script: how many it lets go on in this segment still). */
  count(): number;
  /** One waiting call goes on. */
  one(): Promise<void>;
  /** Until nothing of a live instance is under way. */
  settle(): Promise<void>;
}

/** Lets the microtasks run (continuations of resolved scheduled tasks register their next step). */
async function drained(): Promise<void> {
  for (let i = 0; i < 16; i++) await Promise.resolve();
}

export function apply(w: World, c: Command, join: boolean): void {
  const ref = ORDERS[('order' in c ? c.order : 0) as number]!;
  switch (c.kind) {
    case 'pay':
      return w.pay(c.i, ref, NUMBERS[c.number]!);
    case 'checkout':
      return w.checkout(c.i, ref);
    case 'answer':
      return w.provider.answer(`${w.config.prefix}${ref}-`, c.how);
    case 'pay-session':
      return w.provider.paySession(`${w.config.prefix}${ref}`);
    case 'reconcile':
      return w.reconcile(c.i, ref);
    case 'sweep':
      return w.sweep(c.i);
    case 'advance':
      return w.advance(c.ms);
    case 'fault':
      return w.provider.queue(c.on, c.fault);
    case 'land-late':
      return w.provider.landLate();
    case 'callbacks':
      return w.callbacks(c.i);
    case 'loss':
      // In the `shards` era a flush or a going back strikes one shard, the one the command's `i` names.
      return w.config.losses === 'flush' ? w.flush(c.i) : w.config.losses === 'rollback' ? w.rollback(c.i) : w.restart(c.i);
    case 'snapshot':
      return w.snapshot();
    case 'lag':
      // In the `shards` era the replica of one shard lags: the one the parity of its reads names.
      return w.lag(c.i, c.reads, c.reads);
    case 'foreign':
      return w.provider.foreignPayment(`${ref}-1`);
    case 'join':
      return join ? w.join() : undefined;
    case 'operator':
      return w.operator();
    case 'foreign-same-price':
      return w.provider.foreignPayment(`${ref}-1`, AMOUNT);
    case 'store-fault':
      return void w.storeFaults.push(c.how);
    case 'flip':
      return c.what === 'payment' ? w.provider.flip(`${w.config.prefix}${ref}-`, c.callback, c.delayMs) : w.provider.flipSession(`${w.config.prefix}${ref}`, c.delayMs);
  }
}

/**
 * The run: the instances start, the commands (each with how many scheduled calls go on after it), then the
 * quiescing: callbacks, late landings, time past every deadline and window, every instance reading and
 * draining; then the operator resolves what no read could (DESIGN: the operator's part), from the provider's
 * own records, and the instances read and drain again. The operator looks three times: a resolution the
 * proxy could not check (the provider unreadable) is refused with "try again", and is. `join`: the third
 * process joins when told to.
 */
export async function run(w: World, commands: ReadonlyArray<readonly [Command, number]>, driver: Driver, join = true): Promise<void> {
  w.ready();
  await driver.settle();
  for (const [index, [c, count]] of commands.entries()) {
    w.command = index;
    apply(w, c, join);
    driver.segment();
    for (let k = 0; k < count && driver.count() > 0; k++) {
      await drained();
      if (driver.count() > 0) await driver.one();
    }
  }
  w.command = 'quiesce';
  await driver.settle();
  for (let round = 0; round < 20; round++) {
    while (w.provider.late.length > 0) w.provider.landLate();
    w.callbacks(w.instances.findIndex((x) => x.alive));
    if (round === 14 || round === 16 || round === 18) w.operator();
    w.advance(30_000);
    await driver.settle();
  }
}
