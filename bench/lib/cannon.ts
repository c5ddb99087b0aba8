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
  /** CPU time the bench process (autocannon, the load) spent per answer, in µs. */
  loadUs: number;
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
  const loadBefore = process.cpuUsage();
  // Our own clock: autocannon notices that a fixed `amount` is done only at its next one-second tick, so
  // its start and finish would round a 1.2 s run up to 2 s.
  const started = performance.now();
  let lastAnswer = started;
  const instance = autocannon({ connections: 10, timeout: 10, ...options });
  instance.on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await instance;
  const load = process.cpuUsage(loadBefore);
  const after = await cpuTimes(watched);
  const answers = Object.values(result.statusCodeStats).reduce((sum, s) => sum + Number(s.count), 0);
  const seconds = (lastAnswer - started) / 1000;
  return {
    cpuUs: Object.fromEntries(after.map(([name, t], i) => [name, (t - before[i]![1]) / answers])),
    loadUs: (load.user + load.system) / answers,
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
  /** Median CPU µs per answer of the load generator. */
  loadUs: number;
}

const side = (runs: CannonRun[]): PairSide => ({
  runs,
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
  mismatches: runs.reduce((n, r) => n + r.mismatches, 0),
  cpuUs: Object.fromEntries(Object.keys(runs[0]?.cpuUs ?? {}).map((name) => [name, median(runs.map((r) => r.cpuUs[name]!))])),
  loadUs: median(runs.map((r) => r.loadUs)),
});

/**
 * Measures `a` against `b`: one warm-up run of each (discarded, but handed to the runs, which may size
 * themselves by it), then `pairs` pairs of runs in ABBA order (A B, B A, A B…, so that a drift of the
 * machine's load weighs on both sides alike); medians of each side, and the median of the pairs' own
 * ratios (each of two runs made back to back, under the same load).
 */
export async function interleaved(
  pairs: number,
  a: (warm?: CannonRun) => Promise<CannonRun>,
  b: (warm?: CannonRun) => Promise<CannonRun>,
): Promise<{ a: PairSide; b: PairSide; ratios: number[]; ratio: number }> {
  const warmA = await a();
  const warmB = await b();
  const runsA: CannonRun[] = [];
  const runsB: CannonRun[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      runsA.push(await a(warmA));
      runsB.push(await b(warmB));
    } else {
      runsB.push(await b(warmB));
      runsA.push(await a(warmA));
    }
  }
  const ratios = runsA.map((run, i) => run.rps / runsB[i]!.rps);
  return { a: side(runsA), b: side(runsB), ratios, ratio: median(ratios) };
}
