// npm run dev: brings up the whole stack on this machine and prints the keys and URLs.
//   Postgres (DATABASE_URL, else 127.0.0.1:5432, else embedded) -> migrations -> Temporal dev server
//   (unless TEMPORAL_ADDRESS is set) -> workflow bundle -> demo seed -> API + worker.
// Ctrl-C stops every child; the next start reuses .data/ (database, Temporal's SQLite file, demo keys).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../src/config.js';
import { createPool } from '../src/db.js';
import { buildWorkflowBundle } from '../src/workflow-bundle.js';
import { DATA_DIR, databaseUrlFor, ensureDatabase, migrate, resolvePostgres } from './lib/postgres.js';
import { seedDemo, simulatorCouriers } from './lib/seed.js';
import { createSimulator, type Simulator } from '../simulator/server.js';
import { DEMO_SIMULATOR_COMPANIES } from '../simulator/demo.js';
import { startTemporalDevServer, type DevServer } from './lib/temporal-cli.js';

const step = (text: string) => console.log(`\x1b[36m==>\x1b[0m ${text}`);
const port = Number(process.env.PORT ?? 3000);
const children: ChildProcess[] = [];
let temporal: DevServer | null = null;
const simulatorPort = Number(process.env.SIMULATOR_PORT ?? 4010);
let simulator: Simulator | null = null;
let stopPostgres: () => Promise<void> = async () => {};
let stopping = false;

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  step('Stopping...');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 8000).unref();
        }),
    ),
  );
  await simulator?.close();
  await temporal?.stop();
  await stopPostgres();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
// Under `npm run dev` this process is npm's direct child (`exec` in the script). npm forwards SIGINT/SIGTERM;
// if npm itself is killed without a chance to forward (SIGKILL), this process is re-parented: stop too, so
// nothing is left holding the ports.
if (process.env.npm_lifecycle_event === 'dev') {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) {
      console.error('npm run dev was stopped: stopping the stack.');
      void shutdown(0);
    }
  }, 1000).unref();
}

function run(name: string, script: string, env: NodeJS.ProcessEnv) {
  // The IPC channel tells the child when this process is gone, even after a SIGKILL (see src/lib/parent.ts).
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}). Stopping the stack; fix the error above and run \`npm run dev\` again.`);
      void shutdown(1);
    }
  });
  children.push(child);
  return child;
}

async function main() {
  step('Postgres');
  const pg = await resolvePostgres(step);
  stopPostgres = pg.stop;
  const databaseUrl = process.env.DATABASE_URL ?? databaseUrlFor(pg.serverUrl, 'delivery_api');
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  console.log(`    ${pg.source}: ${databaseUrl.replace(/:[^:@/]*@/, ':***@')} (migrated)`);

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (temporalAddress) {
    step(`Temporal: using ${temporalAddress} (TEMPORAL_ADDRESS)`);
  } else {
    const temporalPort = Number(process.env.TEMPORAL_PORT ?? 7233);
    const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
    step(`Temporal dev server (port ${temporalPort}, UI ${uiPort}, data in .data/temporal.db)`);
    temporal = await startTemporalDevServer({
      port: temporalPort,
      uiPort,
      dbFile: path.join(DATA_DIR, 'temporal.db'),
      logFile: path.join(DATA_DIR, 'temporal.log'),
    });
    temporalAddress = temporal.address;
  }

  step('Workflow bundle');
  await buildWorkflowBundle();

  step(`Courier simulator (port ${simulatorPort}, SIMULATOR_PORT)`);
  simulator = await createSimulator({ port: simulatorPort, companies: DEMO_SIMULATOR_COMPANIES, log: (line) => console.log(`    [simulator] ${line}`) });

  step('Demo tenant and couriers');
  const pool = createPool(databaseUrl, 2);
  const demo = await seedDemo(pool, DATA_DIR, simulatorCouriers(simulator.url));
  await pool.end();

  step('API and worker');
  // Loopback webhook URLs are allowed here (a receiver on this machine); the default refuses them (SSRF protection).
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    PORT: String(port),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ALLOW_LOOPBACK_WEBHOOKS: process.env.ALLOW_LOOPBACK_WEBHOOKS ?? 'true',
  };
  run('worker', 'src/worker.ts', env);
  run('API', 'src/server.ts', env);
  const { waitForPort } = await import('./lib/net.js');
  await waitForPort(port, '127.0.0.1', 60_000);

  console.log(`
\x1b[32mThe delivery API is running.\x1b[0m
  API             http://localhost:${port}
  API reference   http://localhost:${port}/docs   (OpenAPI JSON: /v1/openapi.json)
  Temporal UI     ${temporal?.uiUrl ?? '(external Temporal: see its own UI)'}
  Simulator       ${simulator.url}   (couriers ${DEMO_SIMULATOR_COMPANIES.map((c) => c.slug).join(', ')}; control: /_control/companies)
  DATABASE_URL    ${databaseUrl}

  Demo tenant     ${demo.tenant_id}
  Secret key      ${demo.secret_key}
  Publishable key ${demo.publishable_key}   (origins: http://localhost:3000, http://localhost:5173)

  Try: curl -H "Authorization: Bearer ${demo.secret_key}" http://localhost:${port}/v1/couriers
  Ctrl-C stops everything; data stays in .data/ for the next start.
`);
}

main().catch(async (err) => {
  console.error(`\n\x1b[31mThe stack did not start:\x1b[0m ${(err as Error).message}`);
  await shutdown(1);
});
