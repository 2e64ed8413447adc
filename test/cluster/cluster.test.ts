// npm run test:cluster — the production topology under fire: a Temporal Server cluster (frontend, history, matching
// and worker services, one process each, on PostgreSQL; scripts/lib/temporal-server.ts as `npm run cluster` starts
// it), two API processes and two worker processes from the production build, and the courier simulator driving
// CLUSTER_DELIVERIES (500) deliveries while the test SIGKILLs and restarts one worker, one API, the history service,
// then the matching service, and restarts Postgres.
//
// The crash test's deliveries (plain ones, and the last mile of test/helpers/last-mile.ts: a failed attempt, a return
// to sender, stalls recovered through POST /recover while the kills go on) and its invariants (test/helpers/chaos.ts:
// every delivery and return final, none duplicated, no duplicated or backwards event within an attempt, each kind
// ended as it should, every webhook received under one webhook-id), and: the rest kept serving through each kill. The
// client spreads requests over both APIs (as a load balancer would) and every answer is recorded: no 5xx at all
// but for requests on their way during the Postgres restart, no transport error except from the killed API while it is down, and events keep
// being recorded while one worker is down (the other one runs the activities).
//
// Everything runs against its own embedded PostgreSQL 15 (the app's database and Temporal's two), so restarting it
// disturbs nothing else on the machine. KEEP_CHAOS_DIR=1 keeps the processes' logs; TEST_CLUSTER_PORT sets the
// frontend's port (the other services' ports follow it, see clusterPorts), else a free one is picked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../src/platform/config.js';
import { createTenant } from '../../src/tenants/service.js';
import { freePorts, waitForPort } from '../../scripts/lib/net.js';
import { Proc, productionBuild } from '../../scripts/lib/processes.js';
import {
  ensureClusterBinaries,
  freeClusterPort,
  setupTemporalSchema,
  startTemporalCluster,
  type Service,
  type TemporalCluster,
} from '../../scripts/lib/temporal-server.js';
import type { Simulator } from '../../simulator/server.js';
import {
  CHAOS_ENV,
  ChaosClient,
  chaosLoop,
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
import { startLastMile, type LastMile } from '../helpers/last-mile.js';

const DELIVERIES = Number(process.env.CLUSTER_DELIVERIES ?? 500);
/** Creations started a second: spread over the kills, so every kill meets deliveries in flight. */
const RATE = Number(process.env.CLUSTER_RATE ?? 8);
const log = logger('cluster');

let workspace: Workspace;
let cluster: TemporalCluster;
let apis: Proc[];
let workers: Proc[];
let apiPorts: number[];
let sim: Simulator;
let receiver: Receiver;
let client: ChaosClient;
let lastMile: LastMile;
let tenantId: string;
const outcomes: Outcome[] = [];

beforeAll(async () => {
  const started = Date.now();
  await ensureClusterBinaries(log);
  // Connections at most: 4 Temporal processes x 13 (scripts/lib/temporal-server.ts), 4 application processes x 20, this
  // test's 4; above Postgres's default 100, as in production (docs/operations.md, "Connections").
  workspace = await chaosWorkspace('cluster', log, 200);
  const { dir, databaseUrl, pool, postgres } = workspace;

  log('Temporal schema (temporal-sql-tool), then the four services');
  await setupTemporalSchema({ serverUrl: postgres.serverUrl }, log);
  const port = Number(process.env.TEST_CLUSTER_PORT ?? 0) || (await freeClusterPort());
  cluster = await startTemporalCluster({ databases: { serverUrl: postgres.serverUrl }, port, dir, log });

  const tenant = await createTenant(pool, 'cluster merchant');
  tenantId = tenant.tenant_id;
  receiver = await startReceiver();
  sim = await startCouriers(pool, tenantId, path.join(dir, 'simulator.log'));
  lastMile = await startLastMile(sim, pool, tenantId, DELIVERIES);

  log('production build (npm run build), then two workers and two APIs');
  productionBuild();
  const bundle = path.join(dir, 'workflow-bundle.js'); // a copy: a later `npm run build` elsewhere cannot change it under us
  fs.copyFileSync(path.join(ROOT_DIR, '.build', 'workflow-bundle.js'), bundle);
  const env = {
    ...CHAOS_ENV,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: cluster.address,
    TEMPORAL_TASK_QUEUE: `cluster-${randomUUID()}`,
    WORKFLOW_BUNDLE_PATH: bundle,
  };
  apiPorts = await freePorts(2);
  const apiUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  // PUBLIC_BASE_URL is where couriers send their fleet events (a load balancer's address in production): worker i
  // books with API i's address, so each API takes the events of half the deliveries.
  const start = (kind: 'api' | 'worker', i: number) =>
    Proc.production(`${kind} ${i + 1}`, kind === 'api' ? 'start:api' : 'start:worker', {
      env: { ...env, PORT: String(apiPorts[i]), PUBLIC_BASE_URL: apiUrls[i] },
      logFile: path.join(dir, `${kind}-${i + 1}.log`),
    });
  workers = [0, 1].map((i) => start('worker', i));
  apis = [0, 1].map((i) => start('api', i));
  for (const proc of [...workers, ...apis]) proc.start();
  await Promise.all(apiPorts.map((port) => waitForPort(port, '127.0.0.1', 60_000)));

  await registerReceiver(apiUrls[0], tenant.secret_key, receiver);
  client = new ChaosClient(apiUrls, tenant.secret_key, (outcome) => outcomes.push(outcome), lastMile.route);
  log(`stack up in ${Math.round((Date.now() - started) / 1000)} s`);
}, 20 * 60_000);

afterAll(async () => {
  for (const proc of [...(apis ?? []), ...(workers ?? [])]) await proc.stop();
  await cluster?.stop();
  await sim?.close();
  receiver?.close();
  await workspace?.remove();
});

/** Whether the delivery gets an event besides `delivery.created` (which the API writes) within `ms`: a worker ran it. */
async function dispatchedWithin(deliveryId: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const { rowCount } = await workspace.pool.query(
      `SELECT 1 FROM delivery_events WHERE delivery_id = $1 AND event_type <> 'delivery.created' LIMIT 1`,
      [deliveryId],
    );
    if (rowCount) return true;
    await sleep(250);
  }
  return false;
}

interface Window {
  what: 'worker' | 'api' | Service | 'postgres';
  from: number;
  to: number;
}

describe('the production topology under fire', () => {
  it(`${DELIVERIES} deliveries reach a final state through kills of a worker, an API, history and matching, and a Postgres restart`, async () => {
    const started = Date.now();
    const windows: Window[] = [];
    /** Runs `act` as a window of `what`, ending 2 s after `act` returns (connections settle). */
    const during = async (what: Window['what'], act: () => Promise<void>) => {
      const window = { what, from: Date.now(), to: Infinity };
      windows.push(window);
      await act();
      await sleep(2000);
      window.to = Date.now();
    };
    /** Deliveries created while worker 1 was down, and how many of them worker 2 dispatched meanwhile. */
    const createdWhileWorkerDown: string[] = [];
    let dispatchedWhileWorkerDown = 0;
    const killService = (service: Service) => async () => {
      await during(service, async () => {
        await cluster.services[service].kill();
        await sleep(3000);
        await cluster.restart(service);
      });
    };
    const chaos = chaosLoop(
      [
        [
          'SIGKILL worker 1; a delivery created meanwhile must be dispatched by worker 2; restart worker 1',
          () =>
            during('worker', async () => {
              await workers[0].kill();
              const id = await client.createOne(DELIVERIES + createdWhileWorkerDown.length);
              createdWhileWorkerDown.push(id);
              // Worker 2 alone then carries every delivery in flight (and, after a Postgres restart, their retries):
              // on a loaded two-core CI machine the new one has waited past 30 s in its queue. Worker 1 stays down
              // until it is dispatched or 90 s have passed.
              const waited = Date.now();
              const dispatched = await dispatchedWithin(id, 90_000);
              if (dispatched) dispatchedWhileWorkerDown++;
              const s = Math.round((Date.now() - waited) / 1000);
              log(
                `  created while worker 1 was down: ${dispatched ? `dispatched by worker 2 in ${s} s` : `not dispatched in ${s} s`}`,
              );
              workers[0].start();
            }),
        ],
        [
          'SIGKILL API 1, restart',
          () =>
            during('api', async () => {
              await apis[0].kill();
              await sleep(3000);
              apis[0].start();
              await waitForPort(apiPorts[0], '127.0.0.1', 60_000);
            }),
        ],
        ['SIGKILL Temporal history, restart', killService('history')],
        ['SIGKILL Temporal matching, restart', killService('matching')],
        [
          'restart Postgres',
          () =>
            during('postgres', async () => {
              await workspace.postgres.stop();
              await sleep(1000);
              await workspace.postgres.start();
            }),
        ],
      ],
      6000,
      log,
      1,
    );

    // A reader beside the writers: the surviving API must answer it through every kill.
    let probing = true;
    const probe = (async () => {
      const reader = new ChaosClient(client.apiUrls, client.key, (outcome) => outcomes.push(outcome));
      while (probing) {
        await reader.persist('GET', '/v1/deliveries?limit=1');
        await sleep(100);
      }
    })();

    // The stalled ones are recovered as soon as they all exist, while creation and the kills go on.
    const recovered = lastMile.recover(client, log);
    recovered.catch(() => {}); // awaited below; a failure meanwhile is not an unhandled rejection
    const ids = await client.createMany(DELIVERIES, 4, log, RATE, lastMile.created);
    log(`all ${ids.length} created in ${Math.round((Date.now() - started) / 1000)} s; finishing the round of kills`);
    const [actions] = await Promise.all([chaos.stop(), recovered]);
    probing = false;
    await probe;
    log(`${actions} kills and restarts done; waiting for every delivery and return to finish`);
    await lastMile.settled(log);

    const events = await expectConverged({
      pool: workspace.pool,
      tenantId,
      expected: DELIVERIES + createdWhileWorkerDown.length,
      sim,
      receiver,
      log,
    });
    await lastMile.expectOutcomes(log);

    // The rest kept serving: 5xx only while Postgres restarted; transport errors only from API 1 while it was down.
    const inWindow = (o: Outcome, what: Window['what']) =>
      windows.some((w) => w.what === what && o.at >= w.from && o.at <= w.to);
    // A request on its way while Postgres restarted (sent before, answered after): a recovery waits up to 30 s for
    // the workflow, whose writes retry with a backoff, and may answer 503 recovery_pending after the restart.
    const spans = (o: Outcome, what: Window['what']) =>
      windows.some((w) => w.what === what && o.at >= w.from && o.at - o.ms <= w.to);
    // A recovery on its way while worker 1, Temporal's history or its matching service was killed, or up to 30 s after
    // (the longest activity timeout), may wait past its 30 s for the workflow task or activity the dead process held
    // (Temporal hands them on only after their timeouts; a restarted history or matching service first takes its shards
    // and task queues back): 503 recovery_pending is its documented answer (docs/deliveries.md "Recovering a stalled
    // delivery"), and recoverOne() checks that the action took effect.
    const afterTemporalKill = (o: Outcome) =>
      windows.some(
        (w) =>
          (w.what === 'worker' || w.what === 'history' || w.what === 'matching') &&
          o.at >= w.from &&
          o.at - o.ms <= w.to + 30_000,
      );
    // A request on its way while Postgres restarted is told to retry: 503 (service_unavailable, or a route's own
    // pending code), never 500 internal_error (src/http/unavailable.ts).
    const expectedServerError = (o: Outcome) =>
      (spans(o, 'postgres') && o.status === 503) ||
      (o.status === 503 && o.code === 'recovery_pending' && afterTemporalKill(o));
    const serverErrors = outcomes.filter((o) => o.status !== undefined && o.status >= 500);
    const transportErrors = outcomes.filter((o) => o.error !== undefined);
    log(
      `${outcomes.length} answers recorded: ${serverErrors.length} 5xx (${serverErrors.filter((o) => spans(o, 'postgres')).length} on their way during the Postgres restart, ${serverErrors.filter((o) => !spans(o, 'postgres') && expectedServerError(o)).length} recoveries pending across a worker, history or matching kill), ` +
        `${transportErrors.length} transport errors (${transportErrors.filter((o) => o.api === 0 && inWindow(o, 'api')).length} from API 1 while it was down)`,
    );
    const slowest = [...outcomes].sort((a, b) => b.ms - a.ms);
    log(
      `answer times: p99 ${slowest[Math.floor(slowest.length / 100)]?.ms} ms, slowest ${slowest[0]?.ms} ms (at ${new Date(slowest[0]?.at).toISOString()})`,
    );
    expect(
      serverErrors
        .filter((o) => !expectedServerError(o))
        .map((o) => `${o.status} ${o.code ?? ''} from API ${o.api + 1} at ${new Date(o.at).toISOString()}`),
    ).toEqual([]);
    expect(
      transportErrors
        .filter((o) => !(o.api === 0 && inWindow(o, 'api')))
        .map((o) => `${o.error} from API ${o.api + 1} at ${new Date(o.at).toISOString()}`),
    ).toEqual([]);
    const answeredBySurvivor = outcomes.filter(
      (o) => o.api === 1 && inWindow(o, 'api') && o.status !== undefined,
    ).length;
    expect(answeredBySurvivor, 'requests API 2 answered while API 1 was down').toBeGreaterThan(0);
    expect(dispatchedWhileWorkerDown, 'deliveries worker 2 dispatched while worker 1 was down').toBe(
      createdWhileWorkerDown.length,
    );

    log(
      `done in ${Math.round((Date.now() - started) / 1000)} s: ${DELIVERIES + createdWhileWorkerDown.length} deliveries, ${events} events, ${receiver.received.size} webhook events received, ${actions} kills and restarts`,
    );
  });
});
