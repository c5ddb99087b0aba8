/**
 * The order's model checker (DESIGN: proof). fast-check generates a run: how the provider reads (status by
 * referenceNo, referenceId or either; sessions listed or not), which loss the run suffers (store flushes, or
 * process restarts), and a list of commands (customers paying by mobile money and by hosted checkout on either
 * of two instances, with reloads, second tabs, other numbers; approvals and declines on the phone; lost and late
 * answers, 503s, read errors; callbacks; reconciling passes and sweeps; time passing; another shop's payment
 * under our reference). Its scheduler picks the order of every store call and every provider call of every
 * instance, and the run owns the clock. After the commands the world quiesces (callbacks delivered, late
 * requests landed or expired, time past every deadline and window, every instance sweeping and draining), and
 * the money rules are checked (invariants.ts).
 *
 * A failure prints fast-check's seed and path; `MODEL_SEED=… MODEL_PATH=… npx vitest run
 * test/proof/order-model.test.ts` replays it bit for bit. `npm run proof:model` runs it long (MODEL_RUNS).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brokenRules } from './model/invariants.js';
import type { Fault } from './model/scripted-provider.js';
import { NUMBERS, ORDERS, World, type WorldConfig } from './model/world.js';

type Command =
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
  | { kind: 'foreign'; order: number };

const instance = fc.integer({ min: 0, max: 1 });
const order = fc.integer({ min: 0, max: ORDERS.length - 1 });

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('pay' as const), i: instance, order, number: fc.integer({ min: 0, max: NUMBERS.length - 1 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('checkout' as const), i: instance, order }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('answer' as const), order, how: fc.constantFrom('COMPLETED' as const, 'CANCELLED' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pay-session' as const), order }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('reconcile' as const), i: instance, order }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sweep' as const), i: instance }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 500, max: 40_000 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      on: fc.constantFrom('payment' as const, 'read' as const, 'checkout' as const),
      fault: fc.constantFrom<Fault>('lose-answer', 'land-late', '503-late', 'down', 'read-error'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'land-late' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('callbacks' as const), i: instance }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('loss' as const), i: instance }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('foreign' as const), order }) },
);

const worldConfig: fc.Arbitrary<WorldConfig> = fc.record({
  statusReference: fc.constantFrom('either' as const, 'referenceNo' as const, 'referenceId' as const),
  lists: fc.boolean(),
  prefix: fc.constantFrom('' as const, 'SHOP-A-' as const),
  losses: fc.constantFrom('flush' as const, 'restart' as const),
});

function apply(w: World, c: Command): void {
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
      return w.config.losses === 'flush' ? w.flush() : w.restart(c.i);
    case 'foreign':
      return w.provider.foreignPayment(`${ref}-1`);
  }
}

/** Lets every microtask run (continuations of resolved scheduled tasks register their next step). */
const drained = () => new Promise<void>((resolve) => setImmediate(resolve));

async function settle(s: fc.Scheduler, w: World): Promise<void> {
  for (let rounds = 0; rounds < 10_000; rounds++) {
    await drained();
    if (s.count() === 0 && !w.busy) return;
    if (s.count() > 0) await s.waitOne();
  }
  throw new Error('the world never settled');
}

/**
 * After the commands: callbacks, late landings, time past every deadline and window, every instance reading
 * and draining; then the operator resolves what no read could (DESIGN: the operator's part), from the
 * provider's own records, and the instances read and drain again.
 */
async function quiesce(s: fc.Scheduler, w: World): Promise<void> {
  await settle(s, w);
  for (let round = 0; round < 20; round++) {
    while (w.provider.late.length > 0) w.provider.landLate();
    w.callbacks(w.instances.findIndex((x) => x.alive));
    if (round === 14) w.operator();
    w.advance(30_000);
    await settle(s, w);
  }
}

const runs = Number(process.env['MODEL_RUNS'] ?? 1_000);
const replay = process.env['MODEL_SEED'] ? { seed: Number(process.env['MODEL_SEED']), ...(process.env['MODEL_PATH'] ? { path: process.env['MODEL_PATH'] } : {}) } : {};

describe('the order model', () => {
  it(`keeps the money rules over ${runs} generated runs of two instances, both ways to pay, lost and late answers and losses`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        worldConfig,
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.tuple(command, fc.nat({ max: 8 })), { minLength: 6, maxLength: 40, size: 'max' }),
        async (s, config, seed, commands) => {
          const w = new World(config, seed, (label) => s.schedule(Promise.resolve(label)).then(() => undefined));
          w.ready();
          await settle(s, w);
          for (const [c, steps] of commands) {
            apply(w, c);
            for (let k = 0; k < steps && s.count() > 0; k++) {
              await drained();
              if (s.count() > 0) await s.waitOne();
            }
          }
          await quiesce(s, w);
          if (process.env['MODEL_STATS']) {
            const p = [...w.provider.payments.values()];
            console.log(JSON.stringify({ cmds: commands.length, payments: p.length, completed: p.filter((x) => x.status === 'COMPLETED').length, sessions: w.provider.sessions.size, paidSessions: [...w.provider.sessions.values()].filter((x) => x.status === 'completed').length, received: w.received.size, init: w.provider.initiations }));
          }
          const broken = await brokenRules(w);
          if (broken.length > 0 && process.env['MODEL_TRACE']) {
            const orders = await Promise.all(ORDERS.map((o) => w.memory.get(`ord:${o}`)));
            console.log(JSON.stringify({ config, commands, broken, orders, provider: [...w.provider.payments.values(), ...w.provider.sessions.values()], received: [...w.received.keys()] }, null, 1));
          }
          expect(broken).toEqual([]);
        },
      ),
      { numRuns: runs, ...replay },
    );
  }, Math.max(60_000, runs * 200));
});
