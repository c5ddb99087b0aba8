// The order model checker's long run, in chunks of the `npm test` run's size: each chunk is one fast-check
// assertion of 1,000 runs from a seed of its own, so a failure replays with the ordinary model test
// (`MODEL_SEED=<the chunk's seed> npx vitest run test/proof/order-model.test.ts`). Every tenth chunk says
// how far the run is and the worker's heap, which stays flat (each world closes its stores: unclosed, their
// timers held every world and a worker ran out of heap after 36 minutes).
import { assertModel, modelProperty } from '../model/property.js';

/** Runs of one chunk: what `npm test` runs, so its seed replays there. */
export const CHUNK = 1_000;

/** Runs `runs` generated runs in chunks; chunk `k` takes seed `2 × (base + k) + half`, so the halves never meet. */
export async function longRun(runs: number, base: number, half: 0 | 1): Promise<void> {
  const started = performance.now();
  let sharded = 0;
  for (let k = 0; k * CHUNK < runs; k++) {
    await assertModel(modelProperty({ seen: (world) => (sharded += world.shards ? 1 : 0) }), { numRuns: Math.min(CHUNK, runs - k * CHUNK), seed: 2 * (base + k) + half });
    if ((k + 1) % 10 === 0) {
      const seconds = Math.round((performance.now() - started) / 1000);
      const heap = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      console.info(`half ${half}: ${Math.min((k + 1) * CHUNK, runs)} of ${runs} runs kept every rule (${seconds} s, heap ${heap} MiB)`);
    }
  }
  console.info(`half ${half}: ${runs} runs kept every rule, ${sharded} of them with orders split into shards`);
}
