import { defineConfig } from 'vitest/config';

// npm run test:cluster: the production topology under fire (a Temporal cluster, two APIs, two workers). It brings up
// its own Postgres, Temporal services, APIs and workers.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 45 * 60_000,
    hookTimeout: 20 * 60_000,
    reporters: ['default'],
  },
});
