import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: files run in parallel but each starts its own servers on port 0.
    pool: 'forks',
  },
});
