import { defineConfig } from 'vitest/config';

// npm run test:faults: the network-fault test. It brings up its own Postgres, Temporal, Toxiproxy, API and worker.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 30 * 60_000,
    hookTimeout: 10 * 60_000,
    reporters: ['default'],
  },
});
