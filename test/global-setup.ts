// Once per test run: a fresh Postgres database (migrated), a real Temporal dev server (own port,
// headless, in memory) and the workflow bundle. Test files get their addresses through `inject`.
import type { TestProject } from 'vitest/node';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ROOT_DIR } from '../src/platform/config.js';
import { buildWorkflowBundle } from '../src/platform/workflow-bundle.js';
import { databaseUrlFor, dropDatabase, ensureDatabase, migrate, resolvePostgres } from '../scripts/lib/postgres.js';
import { ensureChromium } from '../scripts/lib/chromium.js';
import { ensureClientSchema } from '../scripts/lib/client-schema.js';
import { ensureDashboard } from '../scripts/lib/dashboard.js';
import { startTemporalDevServer } from '../scripts/lib/temporal-cli.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    bundlePath: string;
    /** The Chromium binary for the browser tests, or the reason there is none. */
    chromium: { path: string } | { error: string };
  }
}

export default async function setup(project: TestProject) {
  const log = (line: string) => console.log(`[setup] ${line}`);
  const started = Date.now();
  log(`tests run on Node ${process.version}`);
  ensureClientSchema(log); // `npm test` generated it already; a file run alone on a fresh clone needs it too
  // The dashboard, built here once (when its sources changed) for every browser test file: built by each file, several
  // files running at once would each rebuild .build/dashboard and swap it under the others' pages.
  await ensureDashboard(log);
  const pg = await resolvePostgres(log);
  const databaseUrl = databaseUrlFor(pg.serverUrl, `delivery_api_test_${Date.now()}_${process.pid}`);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  log(`Postgres database ready (${pg.source})`);

  const port = Number(process.env.TEST_TEMPORAL_PORT ?? 17233);
  const temporal = await startTemporalDevServer({
    port,
    headless: true,
    logFile: path.join(ROOT_DIR, '.build', 'test-temporal.log'),
  });
  log(`Temporal dev server on ${temporal.address}`);
  const bundlePath = await buildWorkflowBundle(path.join(ROOT_DIR, '.build', `workflow-bundle.test-${process.pid}.js`));
  log(`Workflow bundle built; setup took ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The browser tests' Chromium: installed here once when missing (scripts/lib/chromium.ts); a failure
  // is reported by the browser tests themselves, so the other files still run.
  let chromium: { path: string } | { error: string };
  try {
    chromium = { path: ensureChromium(log) };
  } catch (err) {
    chromium = { error: (err as Error).message };
    log(`No Chromium: ${chromium.error}`);
  }

  project.provide('databaseUrl', databaseUrl);
  project.provide('chromium', chromium);
  project.provide('temporalAddress', temporal.address);
  project.provide('bundlePath', bundlePath);

  return async () => {
    await temporal.stop();
    await rm(bundlePath, { force: true });
    if (!process.env.KEEP_TEST_DB) await dropDatabase(databaseUrl).catch(() => {});
    await pg.stop();
  };
}
