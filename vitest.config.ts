import { defineConfig } from 'vitest/config';

/** Element tests run in Chromium under @web/test-runner (web-test-runner.config.mjs); the consumer
 * applications by `npm run test:consumers` (vitest.consumers.config.ts); the long proofs (the order model's
 * long run, the long fuzzing) by `npm run proof:long` (vitest.proof.config.ts). */
const ELSEWHERE = ['test/elements/**', 'test/consumers/**', 'test/proof/long/**', 'node_modules/**'];

/** Files that replace modules or the clock (vi.mock, fake timers): each runs in a process of its own. */
const ISOLATED = [
  'test/proof/order-model-canary.test.ts',
  'test/provider/deadline.test.ts',
  'test/provider/client.breaker-log.test.ts',
  'test/proxy/store-format.test.ts',
  'test/sandbox/email.test.ts',
  'test/sandbox/sms.test.ts',
];

export default defineConfig({
  test: {
    environment: 'node',
    // A folder of the run, for what several files share and one builds (test/support/built-once.ts).
    globalSetup: ['test/support/run-folder.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Files run three at a time, each starting its own servers on port 0. Vitest's default is one worker fewer
    // than the cores, so on this 2-core machine every file ran alone: 536 s of a CI run under load, 334 s
    // with two. A third gained nothing while the full browser kept the two cores busy; with the headless
    // shell (test/support/chromium.mjs) a journey waits on its shop's clock more than it uses a core, and
    // npm test went from 534 s with two to 458 s with three, the cores about nine tenths busy.
    pool: 'forks',
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        // A worker runs file after file without starting afresh: each file's imports (Express, Vite,
        // Playwright, zod's schemas) loaded once a worker, not once a file. In a process per file, importing
        // took 196 s of the run's worker time; test/proxy alone went from 69 s to 32 s. Every file closes
        // what it starts (servers, browsers, stores) and puts back what it changes (process.env).
        test: { name: 'node', include: ['test/**/*.test.ts'], exclude: [...ELSEWHERE, ...ISOLATED], isolate: false },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED, exclude: ELSEWHERE, isolate: true },
      },
    ],
  },
});
