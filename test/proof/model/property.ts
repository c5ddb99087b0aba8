/**
 * The order model's generators and property (DESIGN: proof): runs of commands over a world of two instances,
 * the scripted provider and a clock the run owns; see test/proof/order-model.test.ts.
 */
import fc from 'fast-check';
import { brokenRules } from './invariants.js';
import { FLIP_BOUND_MS, type Fault } from './scripted-provider.js';
import { run as runWorld, type Command, type Driver } from './run.js';
import type { RunRecord, ScheduleRecorder } from './script.js';
import { NUMBERS, ORDERS, World, type WorldConfig } from './world.js';

/** Which instance a command goes to: the third stands for the first until it joined. */
const instance = fc.integer({ min: 0, max: 2 });
/** Which instance a loss strikes: one of the two that run from the start. */
const original = fc.integer({ min: 0, max: 1 });
const order = fc.integer({ min: 0, max: ORDERS.length - 1 });

const commands = [
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
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('loss' as const), i: original }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'join' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('foreign' as const), order }) },
] as const;

/**
 * A run's commands: the customers', the provider's, time's and the faults' (see `Command`), every one the
 * model knows. A run worth keeping is kept as a scenario (script.ts), so this one generator can change.
 */
const command: fc.Arbitrary<Command> = fc.oneof(
  ...commands,
  { weight: 1, arbitrary: fc.constant({ kind: 'operator' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('store-fault' as const), how: fc.constantFrom('lost' as const, 'applied' as const, 'resent' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('foreign-same-price' as const), order }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flip' as const), order, what: fc.constantFrom('payment' as const, 'session' as const), callback: fc.boolean(), delayMs: fc.integer({ min: 0, max: FLIP_BOUND_MS }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fault' as const, on: 'payment' as const, fault: '0400-late' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lag' as const), i: instance, reads: fc.integer({ min: 1, max: 6 }) }) },
);

const worldOf = {
  statusReference: fc.constantFrom('either' as const, 'referenceNo' as const, 'referenceId' as const),
  lists: fc.boolean(),
  prefix: fc.constantFrom('' as const, 'SHOP-A-' as const),
};

/**
 * The world a run varies: how the provider reads, which loss, how far the second process's clock is off
 * (none, a little, or more than the grace, either way), whether the second order's tokens lock its number
 * (kept as a lock: a store of format 2), whether orders are split into shards (each loss then strikes one). A
 * store that goes back in time only where the provider can be read by reference (DESIGN: the provider is the
 * ledger; elsewhere the store is required not to).
 */
const worldConfig: fc.Arbitrary<WorldConfig> = fc
  .record({ ...worldOf, losses: fc.constantFrom('flush' as const, 'restart' as const, 'rollback' as const), skewMs: fc.constantFrom(0, 0, 1_500, -1_500, 25_000, -25_000, 90_000), locks: fc.boolean(), shards: fc.boolean() })
  .map((c) => (c.losses === 'rollback' ? { ...c, lists: true, statusReference: c.statusReference === 'referenceId' ? ('either' as const) : c.statusReference } : c));

/** Far more steps than any run takes (about 1,500 at most in 3,000 runs of seed 77; half take under 600). */
const MAX_STEPS = 100_000;

/** fast-check's scheduler lets the calls go on, in its (the seed's) order. */
function fastCheckDriver(s: fc.Scheduler, w: World, recorder?: RunRecord): Driver {
  return {
    segment: () => recorder?.next(),
    count: () => s.count(),
    one: () => s.waitOne(),
    async settle() {
      recorder?.next();
      for (let rounds = 0; rounds < 1_000; rounds++) {
        await s.waitIdle();
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (s.count() === 0 && !w.busy) return;
      }
      throw new Error('the world never settled');
    },
  };
}

/** A run as fast-check reports it, without its scheduler: the world, the run's seed, and the commands. */
export type FixedRun = [WorldConfig, number, [Command, number][]];

export interface ModelOptions {
  /** Prints a failing run's end: its orders, the provider's records, what the merchant received. */
  trace?: boolean;
  /** Given each run's fingerprint: its steps and its end. */
  record?: (fingerprint: string) => void;
  /** Given each run's world as it begins (the long run counts the eras it ran). */
  seen?: (world: WorldConfig) => void;
  /** The third process joins when told to (`MODEL_JOIN=0` turns joins into nothing, the generated commands unchanged). */
  join?: boolean;
  /** Writes the first run out as a scenario. */
  recorder?: ScheduleRecorder;
  /** Only this run, under every order of its calls the scheduler picks (a failure CI's log kept no seed of). */
  run?: FixedRun;
}

/**
 * The property: a generated run keeps every money rule. Throws an Error listing the broken rules (fast-check
 * reports it with the run's seed and path; `assertModel` shortens that report).
 */
export function modelProperty({ trace = false, record, seen, join = process.env['MODEL_JOIN'] !== '0', recorder, run: fixed }: ModelOptions = {}) {
  return fc.asyncProperty(
    fc.scheduler(),
    fixed ? fc.constant(fixed[0]) : worldConfig,
    fixed ? fc.constant(fixed[1]) : fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    fixed ? fc.constant(fixed[2]) : fc.array(fc.tuple(command, fc.nat({ max: 8 })), { minLength: 6, maxLength: 40, size: 'max' }),
    async (s, config, seed, commands) => {
      const world = { ...config, readsInFlight: true, presence: true };
      seen?.(world);
      const run = recorder?.start({ world, seed, commands });
      const steps: string[] = [];
      const step = (label: string): Promise<void> => {
        // A run that never settles (calls that go on for ever: a livelock) fails instead of hanging its long run.
        if (steps.length > MAX_STEPS) return Promise.reject(new Error(`more than ${MAX_STEPS} steps: the run does not settle`));
        const wentOn = run?.scheduled(label);
        return s.schedule(Promise.resolve(label)).then(() => {
          wentOn?.();
          steps.push(label);
        });
      };
      const w = new World(world, seed, step);
      try {
        await runWorld(w, commands, fastCheckDriver(s, w, run), join);
        const broken = await brokenRules(w);
        if (record) {
          const orders = await Promise.all(ORDERS.map((o) => w.memoryOf(o).get(`ord:${o}`)));
          record(JSON.stringify({ steps, orders, received: [...w.received.keys()].sort() }));
        }
        if (broken.length > 0 && trace) {
          const orders = await Promise.all(ORDERS.map((o) => w.memoryOf(o).get(`ord:${o}`)));
          console.log(JSON.stringify({ config, commands, broken, orders, provider: [...w.provider.payments.values(), ...w.provider.sessions.values()], received: [...w.received.keys()] }, null, 1));
        }
        if (broken.length > 0) throw new Error(`money rules broken:\n${broken.join('\n')}`);
      } finally {
        await w.close();
      }
    },
  );
}

/**
 * `fc.assert` of the model with a failure's report cut to what replays it: the broken rules, the seed and
 * path, and the run without its scheduler (for `MODEL_RUN`). fast-check's own report prints every step the
 * scheduler let go on, thousands of lines, and CI's log kept only their end: the seed was lost.
 */
export async function assertModel(property: ReturnType<typeof modelProperty>, params: fc.Parameters<[fc.Scheduler, WorldConfig, number, [Command, number][]]>): Promise<void> {
  const out = await fc.check(property, params);
  if (!out.failed) return;
  const why = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  const run = out.counterexample ? JSON.stringify(out.counterexample.slice(1)) : 'none';
  throw new Error(`${why}\nreplay: MODEL_SEED=${out.seed} MODEL_PATH=${out.counterexamplePath} npx vitest run test/proof/order-model.test.ts (with the MODEL_RUN it was given, if any)\nthe run (world, seed, commands), for MODEL_RUN=<a file of it>: ${run}`);
}
