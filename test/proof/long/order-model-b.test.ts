// Half of the order model checker's long run (vitest.proof.config.ts); the halves take the even and the odd seeds, so they never run the same runs.
import { describe, it } from 'vitest';
import { longRun } from './long-run.js';

const runs = Number(process.env['MODEL_RUNS'] ?? 50_000);
const base = Number(process.env['MODEL_SEED'] ?? Date.now());

describe('the order model, long run (half b)', () => {
  it(`keeps the money rules over ${runs} generated runs, in chunks of 1,000 from seed ${2 * base + 1} (step 2)`, async () => {
    await longRun(runs, base, 1);
  });
});
