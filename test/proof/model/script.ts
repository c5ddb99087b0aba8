/**
 * Scripted runs of the order model (DESIGN: proof): a run written out (its world, its commands, and the order
 * in which the world's scheduled calls went on) that drives the same World and checks the same rules as a
 * generated run, with no fast-check: neither its path nor how deep the microtasks run decides what happens.
 *
 * A schedule is a list of segments, one per point where the run lets calls go on (the start, after each
 * command, each settling of the quiescing). Each segment is the calls that went on, in order, each by what
 * it is (`CODES`), and `#k` when it was not the oldest such call waiting but the k-th after it.
 */
import { brokenRules } from './invariants.js';
import { run, type Command, type Driver } from './run.js';
import { ORDER_KEYS } from '../../../src/proxy/order/keys.js';
import { ORDERS, WORK, World, type WorldConfig } from './world.js';

/** A short name for each scheduling point of the world (store calls, the provider's trips, sleeps). */
export const CODES: Record<string, string> = {
  'store get': 'g',
  'store set': 's',
  'store setIfAbsent': 'i',
  'store compareAndSet': 'x',
  'store commit': 'c',
  'store del': 'd',
  'store incr': 'n',
  'store addToSet': 'a',
  'store removeFromSet': 'rm',
  'store members': 'm',
  'store time': 't',
  'store subscribers': 'u',
  sleep: 'z',
  'payment request on its way': 'P',
  'payment answer on its way': 'Pa',
  'status read': 'R',
  'status answer on its way': 'Ra',
  'checkout request on its way': 'C',
  'checkout answer on its way': 'Ca',
  'checkout status read': 'S',
  'checkout status answer on its way': 'Sa',
  'checkout listing': 'L',
  'checkout listing answer on its way': 'La',
};

/** A run written out: see the module's comment. */
export interface Scenario {
  /** The world: how the provider reads, which loss, the second process's clock, presence. */
  world: WorldConfig;
  /** The seed of the world's ids and jitter. */
  seed: number;
  commands: ReadonlyArray<readonly [Command, number]>;
  /** One string per segment: the codes of the calls that went on, space-separated. */
  schedule: readonly string[];
}

interface Waiting {
  /** The call's code and the work it is part of: `c@12`. */
  label: string;
  go: () => void;
}

/** What a scheduling point is called in a schedule: its code, and the piece of work it is part of. */
function named(label: string): string {
  const code = CODES[label];
  if (!code) throw new Error(`no code for the scheduling point ${label}`);
  return `${code}@${WORK.getStore() ?? '-'}`;
}

/** Turns of the event loop a scripted call is waited for before it is taken as not coming (the run diverged). */
const PATIENCE = 20;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Drives a world by a schedule. A call the script names that never comes (the code changed since the run was
 * written out) is passed over and counted in `diverged`; calls the script does not name go on oldest first
 * where the run settles: so a scenario still runs its commands to the end and checks every rule, and says
 * how far it kept to its schedule.
 */
export class ScriptedScheduler implements Driver {
  private readonly waiting: Waiting[] = [];
  private index = 0;
  /** Calls the script named that did not come, with where. */
  readonly diverged: string[] = [];
  /** The schedule as it ran (the script's, where it kept to it): a scenario that diverged is written out again from it. */
  readonly ran: string[][] = [];

  constructor(
    private readonly w: () => World,
    private readonly schedule: readonly string[],
  ) {}

  /** The world's scheduling point: it waits until the script lets it go on. */
  readonly step = (label: string): Promise<void> => new Promise<void>((go) => this.waiting.push({ label: named(label), go }));

  /** The tokens of the command's segment not yet followed. */
  private tokens: string[] = [];

  segment(): void {
    this.ran.push([]);
    this.tokens = (this.schedule[this.index++] ?? '').split(' ').filter(Boolean);
  }

  count(): number {
    return this.tokens.length;
  }

  async one(): Promise<void> {
    await this.follow(this.tokens.shift()!);
  }

  async settle(): Promise<void> {
    this.ran.push([]);
    for (const token of (this.schedule[this.index++] ?? '').split(' ').filter(Boolean)) await this.follow(token);
    // As a generated run settles: a turn of the event loop after the last call went on, then it looks; calls
    // that come later (a background drain's) go on in the next segment, as they did.
    for (let k = 0; k < 100_000; k++) {
      await turn();
      if (this.waiting.length === 0) {
        if (!this.w().busy) return;
        continue;
      }
      this.go(0);
    }
    throw new Error('the world never settled');
  }

  /** The call the token names goes on, once it waits (or, not coming, is passed over). */
  private async follow(token: string): Promise<void> {
    const [label, rank] = token.split('#') as [string, string | undefined];
    const k = Number(rank ?? 0);
    let at = -1;
    // The microtasks first, as fast-check's scheduler lets calls go on; turns of the event loop only for a
    // call that is not there by then.
    for (let i = 0; i < 64; i++) await Promise.resolve();
    at = nth(this.waiting, label, k);
    for (let wait = 0; wait < PATIENCE && at < 0; wait++) {
      await turn();
      at = nth(this.waiting, label, k);
    }
    if (at < 0) this.diverged.push(`segment ${this.index - 1}: ${token}`);
    else this.go(at);
  }

  /** The waiting call at `at` goes on. */
  private go(at: number): void {
    const call = this.waiting[at]!;
    const k = this.waiting.slice(0, at).filter((x) => x.label === call.label).length;
    this.ran.at(-1)!.push(k === 0 ? call.label : `${call.label}#${k}`);
    this.waiting.splice(at, 1);
    call.go();
  }
}

/** Where the k-th waiting call of `label` is (-1: there are not that many). */
function nth(waiting: readonly Waiting[], label: string, k: number): number {
  let seen = 0;
  for (let i = 0; i < waiting.length; i++) {
    if (waiting[i]!.label !== label) continue;
    if (seen++ === k) return i;
  }
  return -1;
}

/** Runs a scenario; what it ends with: every rule broken, and how far it kept to its schedule. */
export async function runScenario(scenario: Scenario): Promise<{ broken: string[]; diverged: string[]; end: string; ran: string[] }> {
  let world: World | undefined;
  const scheduler = new ScriptedScheduler(() => world!, scenario.schedule);
  world = new World(scenario.world, scenario.seed, scheduler.step);
  try {
    await run(world, scenario.commands, scheduler);
    const broken = await brokenRules(world);
    return { broken, diverged: scheduler.diverged, end: await endOf(world), ran: scheduler.ran.map((x) => x.join(' ')) };
  } finally {
    await world.close();
  }
}

/** Where a run ended: the order records the store holds and the notifications the merchant received. */
export async function endOf(w: World): Promise<string> {
  const orders = await Promise.all(ORDERS.map((o) => w.memoryOf(o).get(ORDER_KEYS.order(o))));
  return JSON.stringify({ orders, received: [...w.received.keys()].sort() });
}

/**
 * Writes a generated run's schedule out as it runs (fast-check's scheduler decides; this watches): each
 * call when it is scheduled and when it goes on, and where the run's segments begin.
 */
export class RunRecord {
  private readonly waiting: Array<{ label: string }> = [];
  private readonly segments: string[][] = [];

  constructor(private readonly values: Omit<Scenario, 'schedule'>) {}

  /** A segment begins (the driver was asked to let calls go on). */
  next(): void {
    this.segments.push([]);
  }

  /** A call reached its scheduling point: returns what to call when it goes on. */
  scheduled(step: string): () => void {
    const label = named(step);
    const entry = { label };
    this.waiting.push(entry);
    return () => {
      const k = this.waiting.filter((x) => x.label === label).indexOf(entry);
      this.waiting.splice(this.waiting.indexOf(entry), 1);
      this.segments.at(-1)!.push(k === 0 ? label : `${label}#${k}`);
    };
  }

  /** The run written out. */
  get scenario(): Scenario {
    return { ...this.values, schedule: this.segments.map((s) => s.join(' ')) };
  }
}

/**
 * Every run a property ran, written out. fast-check replaying a path runs the run at that path first, then
 * (when it passes) goes on to the runs its shrinking would have tried next: `scenario` is the first.
 */
export class ScheduleRecorder {
  readonly runs: RunRecord[] = [];

  /** A run begins, with what it was generated with. */
  start(values: Omit<Scenario, 'schedule'>): RunRecord {
    const record = new RunRecord(values);
    this.runs.push(record);
    return record;
  }

  /** The first run written out. */
  get scenario(): Scenario {
    return this.runs[0]!.scenario;
  }
}
