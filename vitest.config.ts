import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.unit.test.ts', 'test/chaos/**', 'test/cluster/**', 'test/faults/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // expect.poll waits for a page or a workflow to catch up: 1 s (vitest's default) is too short on a busy 2-core CI.
    expect: { poll: { timeout: 15_000 } },
    reporters: ['default'],
  },
});
