import { defineConfig } from 'vitest/config';

// `npm run proof:model`: the order model checker's long run (DESIGN: proof), 100,000 generated runs split
// over two files so the two cores of a CI machine share them; `.ci/run` runs it after `npm test` (which runs
// 1,000). A failure prints fast-check's seed and path: replay it with MODEL_SEED and MODEL_PATH.
export default defineConfig({
  test: {
    include: ['test/proof/long/**/*.test.ts'],
    environment: 'node',
    testTimeout: 3_600_000,
    pool: 'forks',
    maxWorkers: 2,
    // Room for the checker's worlds between two collections on a busy machine.
    execArgv: ['--max-old-space-size=4096'],
  },
});
