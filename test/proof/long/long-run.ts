// The order model checker's long run, in chunks of the `npm test` run's size: each chunk is one fast-check
// assertion of 1,000 runs from a seed of its own, so a failure replays with the ordinary model test
// (`MODEL_SEED=<the chunk's seed> npx vitest run test/proof/order-model.test.ts`), and nothing a chunk
// allocated outlives it (one assertion of 50,000 runs ran a worker out of heap).
import fc from 'fast-check';
import { modelProperty } from '../model/property.js';

/** Runs of one chunk: what `npm test` runs, so its seed replays there. */
export const CHUNK = 1_000;

/** Runs `runs` generated runs in chunks; chunk `k` takes seed `2 × (base + k) + half`, so the halves never meet. */
export async function longRun(runs: number, base: number, half: 0 | 1): Promise<void> {
  for (let k = 0; k * CHUNK < runs; k++) {
    await fc.assert(modelProperty(), { numRuns: Math.min(CHUNK, runs - k * CHUNK), seed: 2 * (base + k) + half });
  }
}
