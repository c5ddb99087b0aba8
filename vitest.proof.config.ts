import { defineConfig } from 'vitest/config';

// `npm run proof:long`: the proofs too long for `npm test`, which `.ci/run` runs after it. The order model
// checker's long run (DESIGN: proof), 100,000 generated runs split over two files so the two cores of a CI
// machine share them (`npm test` runs 1,000; a failure prints the chunk's seed: replay it with MODEL_SEED),
// and the fuzzing of the proxy and the sandbox at 2,000 requests a route (`npm test` sends 200).
// `npm run proof:model` runs the model's half only.
export default defineConfig({
  test: {
    include: ['test/proof/long/**/*.test.ts'],
    environment: 'node',
    // A half of the model's long run takes about half an hour on a quiet machine and an hour or more beside
    // other work; CI's own limit (90 minutes for everything) is the one that judges a run too slow.
    testTimeout: 85 * 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Room for the checker's worlds between two collections on a busy machine.
    execArgv: ['--max-old-space-size=4096'],
  },
});
