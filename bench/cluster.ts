// npm run bench:cluster — the create and lifecycle benchmarks again, on the production topology's Temporal: a cluster
// of four server processes (frontend, history, matching, worker) on Postgres, as `npm run cluster` starts it
// (scripts/lib/temporal-server.ts), on fresh Temporal databases dropped at the end. The benchmarks run unchanged with
// TEMPORAL_ADDRESS pointing at it (bench:lifecycle then counts the CPU of the four server processes too), so their
// figures stand beside the dev server's ones from `npm run bench:deliveries` and `npm run bench:lifecycle`.
// `npm run bench` runs this after those. BENCH_* settings pass through (BENCH_RATES=1 for a quick look).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../src/platform/config.js';
import { databaseUrlFor, dropDatabase, resolvePostgres } from '../scripts/lib/postgres.js';
import {
  ensureClusterBinaries,
  freeClusterPort,
  setupTemporalSchema,
  startTemporalCluster,
} from '../scripts/lib/temporal-server.js';
import { say } from './lib.js';

const runBench = (script: string, env: NodeJS.ProcessEnv) =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT_DIR,
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });

const cleanups: (() => Promise<unknown>)[] = [];
const cleanup = async () => {
  for (const fn of cleanups.reverse()) await fn().catch((err) => console.error(`cleanup: ${(err as Error).message}`));
};
process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

try {
  await ensureClusterBinaries(say);
  const pg = await resolvePostgres(say);
  cleanups.push(() => pg.stop());
  const suffix = `bench_${Date.now()}`;
  const databases = {
    serverUrl: pg.serverUrl,
    main: `temporal_${suffix}`,
    visibility: `temporal_visibility_${suffix}`,
  };
  cleanups.push(async () => {
    for (const name of [databases.main, databases.visibility]) await dropDatabase(databaseUrlFor(pg.serverUrl, name));
  });
  say(`Temporal databases ${databases.main} and ${databases.visibility} (${pg.source} Postgres)`);
  await setupTemporalSchema(databases, say);
  const port = await freeClusterPort();
  say(`Temporal cluster: four server processes, frontend on ${port}`);
  const cluster = await startTemporalCluster({
    databases,
    port,
    dir: path.join(ROOT_DIR, '.build', 'bench-cluster'),
    log: say,
  });
  cleanups.push(() => cluster.stop());

  // The benchmarks use the cluster's Postgres server too (each in a database of its own): with the embedded fallback a
  // second embedded server on the same data folder could not start.
  const env = {
    TEMPORAL_ADDRESS: cluster.address,
    DATABASE_URL: pg.serverUrl,
    BENCH_TOPOLOGY: 'Temporal cluster (frontend, history, matching, worker processes on Postgres)',
  };
  say('Create benchmark (bench:deliveries, create only) on the cluster');
  const create = await runBench('bench/deliveries.ts', { ...env, BENCH_ONLY: 'create' });
  say('Lifecycle benchmark (bench:lifecycle) on the cluster');
  const lifecycle = await runBench('bench/lifecycle.ts', env);
  if (create !== 0 || lifecycle !== 0) process.exitCode = 1;
} catch (err) {
  console.error(`The cluster benchmark failed: ${(err as Error).message}`);
  console.error(
    'Next: check that Postgres is reachable (DATABASE_URL or 127.0.0.1:5432) and `npm run cluster:install` works, then run it again.',
  );
  process.exitCode = 1;
} finally {
  await cleanup();
}
