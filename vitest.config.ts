import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Element tests run in Chromium under @web/test-runner (web-test-runner.config.mjs).
    // The consumer applications run by `npm run test:consumers` (vitest.consumers.config.ts).
    // The long proofs (the order model's long run, the long fuzzing) by `npm run proof:long` (vitest.proof.config.ts).
    exclude: ['test/elements/**', 'test/consumers/**', 'test/proof/long/**', 'node_modules/**'],
    environment: 'node',
    // A folder of the run, for what several files share and one builds (test/support/built-once.ts).
    globalSetup: ['test/support/run-folder.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Files run two at a time, each starting its own servers on port 0. Vitest's default is one worker fewer
    // than the cores, so on this 2-core machine every file ran alone: 536 s of a CI run under load, 334 s
    // with two.
    pool: 'forks',
    maxWorkers: 2,
  },
});
