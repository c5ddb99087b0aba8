import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Element tests run in Chromium under @web/test-runner (web-test-runner.config.mjs).
    exclude: ['test/elements/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: files run in parallel but each starts its own servers on port 0.
    pool: 'forks',
  },
});
