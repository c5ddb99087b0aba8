/**
 * The order's model checker (DESIGN: proof). fast-check generates a run: how the provider reads (status by
 * referenceNo, referenceId or either; sessions listed or not), which loss the run suffers (store flushes, or
 * process restarts), and a list of commands (customers paying by mobile money and by hosted checkout on either
 * of two instances, or a third that joins later with no copy of anything, with reloads, second tabs, other
 * numbers; approvals and declines on the phone, and declines the provider completes after all; lost and late
 * answers, 503s, read errors; callbacks;
 * reconciling passes and sweeps; time passing; another shop's payment under our reference). Its scheduler
 * picks the order of every store call and every provider call of every instance, and the run owns the clock.
 * After the commands the world quiesces (callbacks delivered, late requests landed or expired, time past every
 * deadline and window, every instance sweeping and draining), and the money rules are checked (invariants.ts).
 *
 * A failure prints fast-check's seed and path; `MODEL_SEED=… MODEL_PATH=… npx vitest run
 * test/proof/order-model.test.ts` replays it bit for bit. It prints the run too (its world, seed and commands,
 * without the scheduler's steps): `MODEL_RUN=<a file of it>` runs that run alone under `MODEL_RUNS` orders of
 * its calls, which finds the failure again when its seed is lost. A run worth keeping is written out as a scenario
 * (`MODEL_SCENARIO=<file>` with the seed and path writes it; test/proof/order-model-scenarios.test.ts runs them). `npm run proof:model` runs it long (vitest.proof.config.ts;
 * CI runs it with the other long proofs, `npm run proof:long`).
 */
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { assertModel, modelProperty, type FixedRun } from './model/property.js';
import { ScheduleRecorder } from './model/script.js';

const runs = Number(process.env['MODEL_RUNS'] ?? 1_000);
const fixed = process.env['MODEL_RUN'] ? (JSON.parse(readFileSync(process.env['MODEL_RUN'], 'utf8')) as FixedRun) : undefined;
const replay = process.env['MODEL_SEED'] ? { seed: Number(process.env['MODEL_SEED']), ...(process.env['MODEL_PATH'] ? { path: process.env['MODEL_PATH'] } : {}) } : {};

describe('the order model', () => {
  it(`keeps the money rules over ${runs} generated runs of two instances, both ways to pay, lost and late answers and losses`, async () => {
    const file = process.env['MODEL_SCENARIO'];
    const recorder = file ? new ScheduleRecorder() : undefined;
    try {
      await assertModel(modelProperty({ trace: !!process.env['MODEL_TRACE'], recorder, ...(fixed ? { run: fixed } : {}) }), { numRuns: runs, ...replay, ...(file ? { numRuns: 1, endOnFailure: true } : {}) });
    } finally {
      if (file && recorder) writeFileSync(file, JSON.stringify(recorder.scenario, null, 1));
    }
  }, Math.max(120_000, runs * 600));

  // Runs the long run found whose scripted scenario does not reach the bug (the scripted scheduler lets the
  // microtasks run longer before a call goes on, and the run parts from it before), each kept as its run and
  // the seed and path of an order of its calls that reached the bug (`MODEL_RUN`; order-model-found.json).
  // That order holds only while the code's awaits do: once the run no longer fails on the code before its fix,
  // search its orders again there. 2258466: after a flush an older copy was put back in which an earlier try
  // held the number a customer's try had just claimed; the gateway answered 0400 without words, the read
  // before answering found the payment on that earlier try, and the request crashed looking for its own try
  // in a record that no longer had it (pay-flow's answer takes the try the reply names).
  it('keeps the money rules on the runs the long run found', async () => {
    const found = JSON.parse(readFileSync(new URL('order-model-found.json', import.meta.url), 'utf8')) as { seed: number; path: string; run: FixedRun }[];
    for (const { seed, path, run } of found) await assertModel(modelProperty({ run }), { seed, path, numRuns: 1, endOnFailure: true });
  }, 120_000);

  it('replays a run alone from its seed and path exactly as it ran among the others (same steps, same end)', async () => {
    // Were anything in a run not owned by the test (a real timer, Math.random, a cache that outlives a
    // world), a run would depend on the runs before it, and a failure's seed and path would not replay it.
    const seed = Date.now() % 2 ** 31;
    const fingerprint = (f: string) => createHash('sha256').update(f).digest('hex');
    const inChunk: string[] = [];
    await fc.assert(modelProperty({ record: (f) => inChunk.push(fingerprint(f)) }), { numRuns: 60, seed });
    const alone: Record<number, string | undefined> = {};
    const expected: Record<number, string | undefined> = {};
    for (let run = 59; run >= 0; run -= 3) {
      await fc.assert(modelProperty({ record: (f) => void (alone[run] = fingerprint(f)) }), { numRuns: 1, seed, path: String(run) });
      expected[run] = inChunk[run];
    }
    expect(alone, `seed ${seed}`).toEqual(expected);
  }, 120_000);
});
