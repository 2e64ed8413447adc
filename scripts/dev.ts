// npm run dev: brings up the whole stack on this machine and prints the keys and URLs.
//   Postgres (DATABASE_URL, else 127.0.0.1:5432, else embedded) -> migrations -> Temporal dev server
//   (unless TEMPORAL_ADDRESS is set) -> workflow bundle -> demo seed (courier simulator) -> SMSC simulator (unless
//   SMPP_URL is set) -> dashboard build and demo user -> API + worker.
// Ctrl-C stops every child; the next start reuses .data/ (database, Temporal's SQLite file, demo keys).
// `npm run cluster` (scripts/cluster.ts) is the production topology: a Temporal cluster, two APIs, two workers.
import path from 'node:path';
import { buildWorkflowBundle } from '../src/platform/workflow-bundle.js';
import { DATA_DIR } from './lib/postgres.js';
import { appDatabase, printReady, startDemo, step, supervise } from './lib/supervisor.js';
import { startTemporalDevServer } from './lib/temporal-cli.js';
import { waitForPort } from './lib/net.js';
import { createPool } from '../src/platform/db.js';
import { ensureDashboard, watchDashboard } from './lib/dashboard.js';
import { seedDemoUser } from './lib/demo-user.js';
import { createSmsc } from '../simulator/smsc/server.js';

const port = Number(process.env.PORT ?? 3000);
const simulatorPort = Number(process.env.SIMULATOR_PORT ?? 4010);
// Prometheus metrics: the API's second listener and the worker's (docs/operations.md "Observability").
const metricsPort = Number(process.env.METRICS_PORT ?? 9464);
const workerMetricsPort = Number(process.env.WORKER_METRICS_PORT ?? 9465);
// The SMSC simulator (docs/recipients.md): SMPP and its control API.
const smscSmppPort = Number(process.env.SMSC_SMPP_PORT ?? 2775);
const smscHttpPort = Number(process.env.SMSC_HTTP_PORT ?? 4020);
const supervisor = supervise('npm run dev');

async function main() {
  const { databaseUrl } = await appDatabase(supervisor, 'delivery_api');

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let uiUrl: string | null = null;
  if (temporalAddress) {
    step(`Temporal: using ${temporalAddress} (TEMPORAL_ADDRESS)`);
  } else {
    const temporalPort = Number(process.env.TEMPORAL_PORT ?? 7233);
    const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
    step(`Temporal dev server (port ${temporalPort}, UI ${uiPort}, data in .data/temporal.db)`);
    const temporal = await startTemporalDevServer({
      port: temporalPort,
      uiPort,
      dbFile: path.join(DATA_DIR, 'temporal.db'),
      logFile: path.join(DATA_DIR, 'temporal.log'),
    });
    supervisor.onStop(() => temporal.stop());
    temporalAddress = temporal.address;
    uiUrl = temporal.uiUrl;
  }

  step('Workflow bundle');
  await buildWorkflowBundle();

  const { simulator, demo } = await startDemo(supervisor, databaseUrl, DATA_DIR, simulatorPort);

  // Recipients' SMS go to the SMSC simulator unless SMPP_URL names a real SMSC (or SMS_PROVIDER says otherwise).
  let smppUrl = process.env.SMPP_URL;
  let smscControl = '(SMPP_URL: an external SMSC)';
  if (!smppUrl) {
    step(
      `SMSC simulator (SMPP port ${smscSmppPort}, control API port ${smscHttpPort}; SMSC_SMPP_PORT, SMSC_HTTP_PORT)`,
    );
    const smsc = await createSmsc({
      smppPort: smscSmppPort,
      httpPort: smscHttpPort,
      log: (line) => console.log(`    [smsc] ${line}`),
    });
    supervisor.onStop(() => smsc.close());
    smppUrl = smsc.smppUrl;
    smscControl = `${smsc.controlUrl}/_control/messages   (SMPP ${smppUrl})`;
  }

  // The merchant dashboard (docs/dashboard.md): built now when web/dashboard changed, and again on every change.
  step('Dashboard (web/dashboard, Vite; rebuilt on change)');
  await ensureDashboard((line) => console.log(`    ${line}`));
  const stopWatching = watchDashboard((line) => console.log(`    [dashboard] ${line}`));
  supervisor.onStop(async () => stopWatching());
  const userPool = createPool(databaseUrl, 1);
  const demoUser = await seedDemoUser(userPool, DATA_DIR, demo.tenant_id, `http://localhost:${port}`);
  await userPool.end();

  step('API and worker');
  // Loopback webhook URLs are allowed here (a receiver on this machine); the default refuses them (SSRF protection).
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    PORT: String(port),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ALLOW_LOOPBACK_WEBHOOKS: process.env.ALLOW_LOOPBACK_WEBHOOKS ?? 'true',
    METRICS_PORT: String(metricsPort),
    WORKER_METRICS_PORT: String(workerMetricsPort),
    SMPP_URL: smppUrl,
  };
  supervisor.node('worker', ['--import', 'tsx', 'src/worker.ts'], env);
  supervisor.node('API', ['--import', 'tsx', 'src/server.ts'], env);
  // Ready when both answer: the API, and the worker's metrics listener, which opens once the worker is created (its
  // workflow bundle loaded), just before it polls. The banner below prints both URLs.
  await Promise.all([waitForPort(port, '127.0.0.1', 60_000), waitForPort(workerMetricsPort, '127.0.0.1', 60_000)]);

  printReady({
    title: 'The delivery API is running.',
    apiUrl: `http://localhost:${port}`,
    rows: [
      ['API', `http://localhost:${port}`],
      ['API reference', `http://localhost:${port}/docs   (OpenAPI JSON: /v1/openapi.json)`],
      [
        'Dashboard',
        `http://localhost:${port}/dashboard   (sign in: ${demoUser.email} / ${demoUser.password}, an owner)`,
      ],
      ['Temporal UI', uiUrl ?? '(external Temporal: see its own UI)'],
      ['API metrics', `http://localhost:${metricsPort}/metrics`],
      ['SMSC (SMS)', smscControl],
      ['Worker metrics', `http://localhost:${workerMetricsPort}/metrics   (with the Temporal SDK's)`],
      ['DATABASE_URL', databaseUrl],
    ],
    demo,
    simulator,
    footer: 'Ctrl-C stops everything; data stays in .data/ for the next start.',
  });
}

supervisor.run(main, 'The stack did not start');
