import { defineConfig } from 'vitest/config';

// `npm run test:consumers`: the applications a merchant writes (script tag, Express, React, Vue, Next.js,
// CommonJS, Fastify) and every guide's code, built and run from the packed tarballs in Chromium. Too heavy for `npm test`'s ten
// minutes (a package build, an npm install, next build, two Vite builds), so a script of its own, which
// `.ci/run` runs after `npm test`. The package is built, packed and installed once, by the global setup.
export default defineConfig({
  test: {
    include: ['test/consumers/**/*.test.ts'],
    globalSetup: ['test/consumers/global-setup.ts'],
    environment: 'node',
    // Builds on a shared 2-core machine: generous, and never what a test asserts.
    testTimeout: 240_000,
    hookTimeout: 480_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
