import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SectionResult } from '../lib/report.js';
import { fmt, median, times } from '../lib/stats.js';

const BIN = fileURLToPath(new URL('../../bin/merchant-elements.js', import.meta.url));
const EAGER = fileURLToPath(new URL('../fixtures/cli-eager.mjs', import.meta.url));
const RUNS = 9;

/** Wall time of one run of `node <script> help`, in ms (the process's start to its exit). */
function timed(script: string): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [script, 'help'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${script} help exited ${run.status}: ${run.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * How long `merchant-elements help` takes to start and finish, against the baseline of the same command
 * with every command's module imported first (bench/fixtures/cli-eager.mjs: what each run did before
 * commands were imported lazily). Runs alternate, one of each after the other, so that the machine's
 * load falls on both alike; one unmeasured run of each first fills tsx's transform cache.
 */
export async function cliStart(): Promise<SectionResult> {
  timed(BIN);
  timed(EAGER);
  const lazy: number[] = [];
  const eager: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    lazy.push(timed(BIN));
    eager.push(timed(EAGER));
  }
  const ratio = median(eager) / median(lazy);
  return {
    title: 'CLI start',
    figures: [
      {
        figure: '`merchant-elements help`, start to exit (median)',
        value: `${fmt(median(lazy))} ms`,
        baseline: `${fmt(median(eager))} ms with every command's module imported first`,
        ratio: `${times(ratio, 1)} faster`,
        target: '≥ 2× faster (issue 37)',
        met: ratio >= 2,
      },
    ],
    method: [
      `${RUNS} runs each of \`node bin/merchant-elements.js help\` and of the baseline \`node bench/fixtures/cli-eager.mjs help\` (the same command with every command's module, and so the proxy, the provider client, Express and the sandbox, imported before it runs), alternating; wall time from spawn to exit; medians. Both run a checkout's sources through tsx as bin/merchant-elements.js does; one unmeasured run of each first.`,
    ],
    notes: [`runs (ms): help ${lazy.map((v) => fmt(v)).join(', ')}; baseline ${eager.map((v) => fmt(v)).join(', ')}`],
  };
}
