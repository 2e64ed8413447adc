import { defineConfig } from 'vitest/config';

// npm run test:chaos: the crash-and-restart test. It brings up its own Postgres, Temporal, API and worker.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 45 * 60_000,
    hookTimeout: 10 * 60_000,
    reporters: ['default'],
  },
});
