// A real Temporal cluster on PostgreSQL: Temporal Server v1.29.1 with its frontend, history, matching and worker
// services each in a process of its own, the schema applied by temporal-sql-tool, the namespace and the delivery
// workflow's search attributes registered with the Temporal CLI, and the Temporal UI server v2.42.1.
// The same versions, configuration (deploy/temporal/config) and schema steps as docker-compose.yml.
//
// The binaries are built once with `go install` into the per-user cache (scripts/lib/go-install.ts):
//   ~/.cache/delivery-api/temporal-server-v1.29.1/{server,sql}   ~/.cache/delivery-api/temporal-ui-v2.42.1/server
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ROOT_DIR } from '../../src/platform/config.js';
import { SEARCH_ATTRIBUTES } from '../../shared/search-attributes.js';
import { goInstall, isExecutable, userCacheDir } from './go-install.js';
import { isListening, waitForPort } from './net.js';
import { Proc } from './processes.js';
import { ensureTemporalCli } from './temporal-cli.js';

const run = promisify(execFile);

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const UI_SERVER_VERSION = 'v2.42.1';
const SERVER_DIR = userCacheDir(`temporal-server-${TEMPORAL_SERVER_VERSION}`);
const UI_DIR = userCacheDir(`temporal-ui-${UI_SERVER_VERSION}`);
const SERVER_BIN = path.join(SERVER_DIR, 'server');
const SQL_TOOL_BIN = path.join(SERVER_DIR, 'sql');
const UI_BIN = path.join(UI_DIR, 'server');
/** The cluster's server processes, by command line (bench/lifecycle.ts counts their CPU). */
export const TEMPORAL_SERVER_PROCESS = new RegExp(
  `${SERVER_BIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .* start --service`,
);
const CONFIG_ROOT = path.join(ROOT_DIR, 'deploy', 'temporal');

export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type Service = (typeof SERVICES)[number];
/** Port offsets from the frontend's gRPC port, as Temporal's defaults (7233 frontend, 7234 history, 7235 matching, 7239 worker). */
const OFFSET: Record<Service, number> = { frontend: 0, history: 1, matching: 2, worker: 6 };

/** Every port a cluster whose frontend listens on `port` takes: gRPC, membership (port - 300 + offset), HTTP, metrics. */
export function clusterPorts(port: number) {
  const of = (base: number) =>
    Object.fromEntries(SERVICES.map((s) => [s, base + OFFSET[s]])) as Record<Service, number>;
  return { grpc: of(port), membership: of(port - 300), metrics: of(port + 767), frontendHttp: port + 10 };
}

/**
 * A frontend port whose whole cluster's ports are free, below the kernel's ephemeral range (32768+): a port in that
 * range can be taken as the source port of an outgoing connection before the server binds it.
 */
export async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = 20_500 + Math.floor(Math.random() * 90) * 100;
    if ((await takenPorts(port)).length === 0) return port;
  }
}

async function takenPorts(port: number, uiPort?: number): Promise<number[]> {
  const { grpc, membership, metrics, frontendHttp } = clusterPorts(port);
  const all = [
    ...Object.values(grpc),
    ...Object.values(membership),
    ...Object.values(metrics),
    frontendHttp,
    ...(uiPort ? [uiPort] : []),
  ];
  const listening = await Promise.all(all.map((p) => isListening(p)));
  return all.filter((_, i) => listening[i]);
}

const buildAdvice = 'or run against a Temporal server of your own with `npm run dev` (TEMPORAL_ADDRESS).';

/** The Temporal Server, temporal-sql-tool and the UI server, from the per-user cache or built now with Go. */
export async function ensureClusterBinaries(log: (line: string) => void = console.log): Promise<void> {
  if (!isExecutable(SERVER_BIN) || !isExecutable(SQL_TOOL_BIN)) {
    const packages = ['cmd/server', 'cmd/tools/sql'].map(
      (p) => `go.temporal.io/server/${p}@${TEMPORAL_SERVER_VERSION}`,
    );
    await goInstall(
      {
        what: `the Temporal Server ${TEMPORAL_SERVER_VERSION} and temporal-sql-tool`,
        packages,
        dir: SERVER_DIR,
        otherwise: buildAdvice,
      },
      log,
    );
  }
  if (!isExecutable(UI_BIN)) {
    const packages = [`github.com/temporalio/ui-server/v2/cmd/server@${UI_SERVER_VERSION}`];
    await goInstall(
      { what: `the Temporal UI server ${UI_SERVER_VERSION}`, packages, dir: UI_DIR, otherwise: buildAdvice },
      log,
    );
  }
  await ensureTemporalCli(log);
}

export interface TemporalDatabases {
  /** A Postgres server URL whose user may create databases (the path is ignored). */
  serverUrl: string;
  /** [temporal] */
  main?: string;
  /** [temporal_visibility] */
  visibility?: string;
}

/** The environment temporal-sql-tool and the server's configuration read (deploy/temporal/config/cluster.yaml). */
function sqlEnv({
  serverUrl,
  main = 'temporal',
  visibility = 'temporal_visibility',
}: TemporalDatabases): NodeJS.ProcessEnv {
  const url = new URL(serverUrl);
  return {
    SQL_PLUGIN: 'postgres12',
    SQL_HOST: url.hostname,
    SQL_PORT: url.port || '5432',
    SQL_USER: decodeURIComponent(url.username) || 'postgres',
    SQL_PASSWORD: decodeURIComponent(url.password),
    TEMPORAL_DB: main,
    TEMPORAL_VISIBILITY_DB: visibility,
  };
}

/**
 * Creates Temporal's two databases when missing and brings their schemas to this server version: temporal-sql-tool's
 * create-database, setup-schema -v 0.0 and update-schema with the schema compiled into the tool (the files of
 * schema/postgresql/v12/{temporal,visibility}/versioned). Every step is idempotent: run it before every start.
 */
export async function setupTemporalSchema(
  databases: TemporalDatabases,
  log: (line: string) => void = console.log,
): Promise<void> {
  const env = sqlEnv(databases);
  for (const [database, schema] of [
    [env.TEMPORAL_DB!, 'temporal'],
    [env.TEMPORAL_VISIBILITY_DB!, 'visibility'],
  ]) {
    const steps = [
      ['create-database'],
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', `postgresql/v12/${schema}`],
    ];
    for (const args of steps) {
      try {
        await run(SQL_TOOL_BIN, args, { env: { ...process.env, ...env, SQL_DATABASE: database } });
      } catch (err) {
        const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
        const lastLines = `${stdout}${stderr}`.trim().split('\n').slice(-5).join('\n');
        throw new Error(
          `temporal-sql-tool ${args.join(' ')} on database ${database} failed:\n${lastLines}\n` +
            `Next: check that ${env.SQL_USER}@${env.SQL_HOST}:${env.SQL_PORT} accepts connections and may create databases ` +
            '(or set TEMPORAL_DATABASE_URL to a Postgres server URL whose user may), then run this again.',
        );
      }
    }
    log(`    database ${database}: schema ${schema} up to date`);
  }
}

export interface ClusterOptions {
  databases: TemporalDatabases;
  /** The frontend's gRPC port; the other services' ports follow it (clusterPorts). */
  port: number;
  /** The Temporal UI server's port; none without it. */
  uiPort?: number;
  /** Log files and the UI's configuration go here. */
  dir: string;
  namespace?: string;
  /** The address the services bind to and are reached at (127.0.0.1 unless on a host of their own). */
  host?: string;
  /** A command prefix the services run under, e.g. ['ip', 'netns', 'exec', ns] for a network namespace. */
  exec?: string[];
  /** [4] Fixed when the cluster's database is created (docs/operations.md). */
  historyShards?: number;
  log?: (line: string) => void;
}

export interface TemporalCluster {
  address: string;
  uiUrl: string | null;
  services: Record<Service, Proc>;
  ui: Proc | null;
  /** Starts a service again (after a kill) and waits until it listens. */
  restart(service: Service): Promise<void>;
  stop(): Promise<void>;
}

type Ports = ReturnType<typeof clusterPorts>;

/** The environment every service process shares: the databases, the ports of all four, the dynamic config. */
function serviceEnv(options: ClusterOptions, ports: Ports, host: string, address: string): Record<string, string> {
  return {
    ...sqlEnv(options.databases),
    NUM_HISTORY_SHARDS: String(options.historyShards ?? 4),
    // Connections per process (default store, visibility): 4 processes x 13 at most, leaving room under Postgres's
    // default max_connections (100) for the APIs' and workers' pools (docs/operations.md, "Connections").
    SQL_MAX_CONNS: '10',
    SQL_VIS_MAX_CONNS: '3',
    BIND_ON_IP: host,
    TEMPORAL_FRONTEND_ADDRESS: address,
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    DYNAMIC_CONFIG_FILE_PATH: path.join(CONFIG_ROOT, 'config', 'dynamicconfig', 'cluster.yaml'),
    ...Object.fromEntries(
      SERVICES.flatMap((s) => [
        [`${s.toUpperCase()}_GRPC_PORT`, String(ports.grpc[s])],
        [`${s.toUpperCase()}_MEMBERSHIP_PORT`, String(ports.membership[s])],
      ]),
    ),
  };
}

/** One process per service (not started), under the `exec` prefix when given (e.g. a network namespace). */
function serviceProcs(options: ClusterOptions, ports: Ports, host: string, address: string): Record<Service, Proc> {
  const { dir, exec = [] } = options;
  const common = serviceEnv(options, ports, host, address);
  return Object.fromEntries(
    SERVICES.map((service) => [
      service,
      new Proc(
        `temporal ${service}`,
        exec[0] ?? SERVER_BIN,
        [
          ...exec.slice(1),
          ...(exec.length ? [SERVER_BIN] : []),
          '--root',
          CONFIG_ROOT,
          '--config',
          'config',
          '--env',
          'cluster',
          '--allow-no-auth',
          'start',
          '--service',
          service,
        ],
        {
          env: { ...common, PROMETHEUS_ENDPOINT: `${host}:${ports.metrics[service]}` },
          logFile: path.join(dir, `${service}.log`),
        },
      ),
    ]),
  ) as Record<Service, Proc>;
}

/** Starts the Temporal UI server on `uiPort` for the cluster's frontend and waits until it listens. */
async function startUi(dir: string, uiPort: number, address: string, namespace: string): Promise<Proc> {
  const uiConfigDir = path.join(dir, 'ui');
  fs.mkdirSync(uiConfigDir, { recursive: true });
  const uiConfig = `temporalGrpcAddress: ${address}\nhost: 127.0.0.1\nport: ${uiPort}\nenableUi: true\ndefaultNamespace: ${namespace}\n`;
  fs.writeFileSync(path.join(uiConfigDir, 'cluster.yaml'), uiConfig);
  const ui = new Proc('temporal ui', UI_BIN, ['--root', dir, '--config', 'ui', '--env', 'cluster', 'start'], {
    logFile: path.join(dir, 'ui.log'),
  });
  ui.start();
  await waitForPort(uiPort, '127.0.0.1', 30_000);
  return ui;
}

/**
 * Starts the four services as separate processes (after setupTemporalSchema), waits until the frontend reports the
 * cluster healthy, ensures the namespace and the search attributes, then starts the UI server. Logs: `<dir>/<service>.log`.
 */
export async function startTemporalCluster(options: ClusterOptions): Promise<TemporalCluster> {
  const { port, dir, namespace = 'default', log = console.log, host = '127.0.0.1' } = options;
  const ports = clusterPorts(port);
  const address = `${host}:${port}`;
  const taken = await takenPorts(port, options.uiPort);
  if (taken.length) {
    throw new Error(
      `Port(s) ${taken.join(', ')} already taken (another Temporal server? \`npm run dev\` uses 7233 and 8233). ` +
        'Next: stop it, or choose other ports with TEMPORAL_PORT (the other services follow it) and TEMPORAL_UI_PORT.',
    );
  }
  fs.mkdirSync(dir, { recursive: true });
  const services = serviceProcs(options, ports, host, address);

  // Every service listens on its membership port (the worker service on nothing else).
  const listening = (service: Service) =>
    Promise.race([
      waitForPort(ports.membership[service], host, 120_000),
      new Promise((_, reject) =>
        services[service].child!.once('exit', (code, signal) =>
          reject(
            new Error(
              `Temporal ${service} exited (${signal ?? code}) before it listened on ${ports.membership[service]}: see ${services[service].options.logFile}. ` +
                'Next: read the end of that log (a Postgres it cannot reach, a port taken meanwhile), fix the cause and start again.',
            ),
          ),
        ),
      ),
    ]);
  let ui: Proc | null = null;
  const stop = async () => {
    await ui?.stop();
    // The frontend first (no new work accepted), history last (it persists what is in flight).
    for (const service of ['frontend', 'worker', 'matching', 'history'] as const) await services[service].stop();
  };
  try {
    for (const service of SERVICES) {
      services[service].start();
      await listening(service);
      log(
        `    ${service} up (gRPC ${ports.grpc[service]}, membership ${ports.membership[service]}, metrics ${ports.metrics[service]}; log ${services[service].options.logFile})`,
      );
    }
    const cli = await ensureTemporalCli(log);
    const temporal = (...args: string[]) => run(cli, [...args, '--address', address], { encoding: 'utf8' });
    await until(() => temporal('operator', 'cluster', 'health'), 60_000, 'the cluster to report SERVING');
    await ensureNamespace(temporal, namespace, log);
    if (options.uiPort) ui = await startUi(dir, options.uiPort, address, namespace);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : null,
    services,
    ui,
    async restart(service) {
      services[service].start();
      await listening(service);
    },
    stop,
  };
}

type Cli = (...args: string[]) => Promise<{ stdout: string }>;

async function until(attempt: () => Promise<unknown>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await attempt();
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** The namespace (3 days of retention) and the search attributes (shared/search-attributes.ts), created when missing. */
async function ensureNamespace(temporal: Cli, namespace: string, log: (line: string) => void): Promise<void> {
  const exists = await temporal('operator', 'namespace', 'describe', '--namespace', namespace).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await temporal('operator', 'namespace', 'create', '--namespace', namespace, '--retention', '72h');
    log(`    namespace ${namespace} created`);
  }
  // A new namespace reaches the frontend's namespace cache within its refresh interval (2 s, dynamicconfig).
  let listed: { customAttributes?: Record<string, string> } = {};
  await until(
    async () =>
      (listed = JSON.parse(
        (await temporal('operator', 'search-attribute', 'list', '--namespace', namespace, '--output', 'json')).stdout,
      )),
    30_000,
    `namespace ${namespace} to be usable`,
  );
  const missing = SEARCH_ATTRIBUTES.filter(({ name }) => !listed.customAttributes?.[name]);
  for (const { name, type } of missing)
    await temporal('operator', 'search-attribute', 'create', '--namespace', namespace, '--name', name, '--type', type);
  if (missing.length) {
    log(`    search attributes ${missing.map((a) => a.name).join(', ')} registered`);
    // Every service sees a namespace's new search attributes on its next namespace cache refresh (2 s, dynamicconfig).
    await new Promise((r) => setTimeout(r, 3000));
  }
}

// `npm run cluster:install`: build the cluster's binaries now (CI does this before the tests).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    await ensureClusterBinaries();
    console.log(
      `Temporal Server ${TEMPORAL_SERVER_VERSION} and temporal-sql-tool in ${SERVER_DIR}; Temporal UI server ${UI_SERVER_VERSION} in ${UI_DIR}.`,
    );
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
