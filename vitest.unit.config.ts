import { defineConfig } from 'vitest/config';

// The unit tier (`npm run test:unit`): pure logic only. No global setup, so no Postgres, no Temporal server and no
// Chromium: it must pass on a machine that has none of them, in seconds. Files end in `.unit.test.ts`.
export default defineConfig({
  test: {
    include: ['test/**/*.unit.test.ts'],
    exclude: ['node_modules/**'],
    pool: 'threads',
    testTimeout: 5_000,
    // Closed ports: a unit test that reached for Postgres or Temporal by mistake fails at once instead of finding a
    // developer's running server.
    env: {
      DATABASE_URL: 'postgres://unit-tier@127.0.0.1:1/none',
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      REDIS_URL: '',
    },
    reporters: ['default'],
  },
});
