import autocannon from 'autocannon';
import type { BenchProcess } from './processes.js';
import { median } from './stats.js';

/** One autocannon run, reduced to what the report uses. */
export interface CannonRun {
  /** Answers per second, from the start of the run to its last answer. */
  rps: number;
  p50: number;
  p99: number;
  answers: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers whose body was not the expected one (`verifyBody`). */
  mismatches: number;
  /** CPU time (user + system) each watched server process spent per answer, in µs, by process name. */
  cpuUs: Record<string, number>;
}

const cpuTimes = (processes: Record<string, BenchProcess>) =>
  Promise.all(
    Object.entries(processes).map(async ([name, p]) => {
      const usage = await p.ask<NodeJS.CpuUsage>('cpu');
      return [name, usage.user + usage.system] as const;
    }),
  );

/**
 * Runs autocannon (in this process; the servers run in theirs) and reduces its result, with the CPU time
 * the `watched` server processes spent during the run.
 */
export async function cannon(options: autocannon.Options, watched: Record<string, BenchProcess> = {}): Promise<CannonRun> {
  const before = await cpuTimes(watched);
  // Our own clock: autocannon notices that a fixed `amount` is done only at its next one-second tick, so
  // its start and finish would round a 1.2 s run up to 2 s.
  const started = performance.now();
  let lastAnswer = started;
  const instance = autocannon({ connections: 10, timeout: 10, ...options });
  instance.on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await instance;
  const after = await cpuTimes(watched);
  const answers = Object.values(result.statusCodeStats).reduce((sum, s) => sum + Number(s.count), 0);
  const seconds = (lastAnswer - started) / 1000;
  return {
    cpuUs: Object.fromEntries(after.map(([name, t], i) => [name, (t - before[i]![1]) / answers])),
    rps: answers / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    answers,
    errors: result.errors + result.timeouts,
    mismatches: result.mismatches,
  };
}

/** The medians of several runs of one side. */
export interface PairSide {
  runs: CannonRun[];
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  mismatches: number;
  /** Median CPU µs per answer, by process name. */
  cpuUs: Record<string, number>;
}

const side = (runs: CannonRun[]): PairSide => ({
  runs,
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
  mismatches: runs.reduce((n, r) => n + r.mismatches, 0),
  cpuUs: Object.fromEntries(Object.keys(runs[0]?.cpuUs ?? {}).map((name) => [name, median(runs.map((r) => r.cpuUs[name]!))])),
});

/**
 * Measures `a` against `b`: one warm-up run of each (discarded, but handed to the runs, which may size
 * themselves by it), then `pairs` interleaved runs A, B, A, B…; medians of each side.
 */
export async function interleaved(
  pairs: number,
  a: (warm?: CannonRun) => Promise<CannonRun>,
  b: (warm?: CannonRun) => Promise<CannonRun>,
): Promise<{ a: PairSide; b: PairSide }> {
  const warmA = await a();
  const warmB = await b();
  const runsA: CannonRun[] = [];
  const runsB: CannonRun[] = [];
  for (let i = 0; i < pairs; i++) {
    runsA.push(await a(warmA));
    runsB.push(await b(warmB));
  }
  return { a: side(runsA), b: side(runsB) };
}
