// npm run cluster: the production topology on this machine, in one command.
//   Postgres (as `npm run dev`) -> migrations (database delivery_api_cluster) -> Temporal Server v1.29.1 built when
//   missing -> Temporal's two databases and their schema (temporal-sql-tool) -> frontend, history, matching and worker
//   services, each its own process -> namespace and search attributes -> Temporal UI server -> production build ->
//   simulator and demo tenant -> two workers and two APIs (node .build/dist/worker.js / server.js).
// Ctrl-C stops everything; the next start reuses the databases and DATA_DIR/cluster (logs, demo keys).
import path from 'node:path';
import { ROOT_DIR } from '../src/platform/config.js';
import { DATA_DIR } from './lib/postgres.js';
import { waitForPort } from './lib/net.js';
import { Proc, productionBuild } from './lib/processes.js';
import { appDatabase, printReady, startDemo, step, supervise } from './lib/supervisor.js';
import {
  ensureClusterBinaries,
  setupTemporalSchema,
  startTemporalCluster,
  SERVICES,
  TEMPORAL_SERVER_VERSION,
} from './lib/temporal-server.js';

const apiPorts = [Number(process.env.PORT ?? 3000), Number(process.env.PORT ?? 3000) + 1];
const temporalPort = Number(process.env.TEMPORAL_PORT ?? 7233);
const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
const simulatorPort = Number(process.env.SIMULATOR_PORT ?? 4010);
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const dir = path.join(DATA_DIR, 'cluster');
const supervisor = supervise('npm run cluster');

async function main() {
  const started = Date.now();
  // A database of its own: the dev stack's deliveries have no workflows in this cluster (its reconciler would start them).
  const { pg, databaseUrl } = await appDatabase(supervisor, 'delivery_api_cluster');

  step(
    `Temporal Server ${TEMPORAL_SERVER_VERSION}, temporal-sql-tool, Temporal UI server and CLI (built once with Go)`,
  );
  await ensureClusterBinaries();

  const temporalServer = process.env.TEMPORAL_DATABASE_URL ?? pg.serverUrl;
  step(
    `Temporal databases temporal and temporal_visibility on ${new URL(temporalServer).host} (TEMPORAL_DATABASE_URL)`,
  );
  await setupTemporalSchema({ serverUrl: temporalServer });

  step(
    `Temporal cluster: ${SERVICES.join(', ')}, one process each (frontend on ${temporalPort}, TEMPORAL_PORT); UI on ${uiPort}`,
  );
  const cluster = await startTemporalCluster({
    databases: { serverUrl: temporalServer },
    port: temporalPort,
    uiPort,
    dir,
    namespace,
  });
  supervisor.onStop(() => cluster.stop());
  for (const proc of [...Object.values(cluster.services), cluster.ui!]) supervisor.watch(proc);

  step('Production build (npm run build)');
  productionBuild();

  const { simulator, demo } = await startDemo(supervisor, databaseUrl, dir, simulatorPort);

  step(`Two workers and two APIs (ports ${apiPorts.join(' and ')}), production bundles`);
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: cluster.address,
    TEMPORAL_NAMESPACE: namespace,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // The prebuilt bundle as is: two workers must not rebuild it at the same time.
    WORKFLOW_BUNDLE_PATH: path.join(ROOT_DIR, '.build', 'workflow-bundle.js'),
    // Loopback webhook URLs are allowed here (a receiver on this machine); the default refuses them (SSRF protection).
    ALLOW_LOOPBACK_WEBHOOKS: process.env.ALLOW_LOOPBACK_WEBHOOKS ?? 'true',
    // Where couriers send fleet events and tracking links point: a load balancer's address in production.
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://localhost:${apiPorts[0]}`,
  };
  const procs = [
    ...[1, 2].map((i) =>
      Proc.production(`worker ${i}`, 'start:worker', { env, logFile: path.join(dir, `worker-${i}.log`) }),
    ),
    ...apiPorts.map((port, i) =>
      Proc.production(`API ${i + 1}`, 'start:api', {
        env: { ...env, PORT: String(port) },
        logFile: path.join(dir, `api-${i + 1}.log`),
      }),
    ),
  ];
  for (const proc of procs) {
    proc.start();
    supervisor.watch(proc);
  }
  await Promise.all(apiPorts.map((port) => waitForPort(port, '127.0.0.1', 60_000)));

  printReady({
    title: `The delivery API runs on a Temporal cluster (ready in ${Math.round((Date.now() - started) / 1000)} s).`,
    apiUrl: `http://localhost:${apiPorts[0]}`,
    rows: [
      [
        'API',
        apiPorts.map((port) => `http://localhost:${port}`).join('  and  ') +
          '   (two processes; put a load balancer in front)',
      ],
      ['API reference', `http://localhost:${apiPorts[0]}/docs`],
      ['Temporal', `${cluster.address} (namespace ${namespace}; temporal --address ${cluster.address} ...)`],
      ['Temporal UI', cluster.uiUrl!],
      ['DATABASE_URL', databaseUrl],
      ['Logs', `${dir}/{frontend,history,matching,worker,ui,api-1,api-2,worker-1,worker-2}.log`],
    ],
    demo,
    simulator,
    footer: 'Ctrl-C stops everything; the databases and DATA_DIR/cluster stay for the next start.',
  });
}

supervisor.run(main, 'The cluster did not start');
