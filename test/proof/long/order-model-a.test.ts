// Half of the order model checker's long run (vitest.proof.config.ts); the halves take the even and the odd seeds, so they never run the same runs.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { modelProperty } from '../model/property.js';

const runs = Number(process.env['MODEL_RUNS'] ?? 50_000);
const seed = 2 * Number(process.env['MODEL_SEED'] ?? Date.now());

describe('the order model, long run (half a)', () => {
  it(`keeps the money rules over ${runs} generated runs from seed ${seed}`, async () => {
    await fc.assert(modelProperty(), { numRuns: runs, seed });
  });
});
