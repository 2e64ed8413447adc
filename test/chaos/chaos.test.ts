// npm run test:chaos — deliveries driven by the courier simulator through their whole lifecycle while the
// test SIGKILLs and restarts the worker, the API and the Temporal dev server (same SQLite file), and
// restarts Postgres. Besides plain lifecycles, the last mile as it really happens (test/helpers/last-mile.ts): one in
// ten fails an attempt then is delivered, one in ten exhausts its attempts and returns to the sender, and some stall
// and are recovered by the merchant (POST /recover, redispatch or resume) while the kills go on. At the end: every
// delivery and every return reached a final state, no event is duplicated and no status went backwards within an
// attempt, each kind ended as it should, and every webhook event reached the merchant's receiver at least once, always
// under one webhook-id (test/helpers/chaos.ts, shared with the cluster test in test/cluster). Cash on delivery
// (test/helpers/cod-chaos.ts): some deliveries are COD, some paid short; the couriers remit (each remittance_ref sent
// again: the same answer) and the merchant confirms while the kills go on; at the end every journal transaction
// balances, each delivered COD delivery is collected exactly once, each remittance booked once, and per company
// collected = remitted + fee_deducted + outstanding, in the ledger and in GET /v1/cod/balances.
//
// Everything runs in processes of its own (API, worker, Temporal) against its own embedded PostgreSQL 15,
// so restarting them disturbs nothing else on the machine. CHAOS_DELIVERIES (default 1000) sets the size.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createTenant } from '../../src/tenants/service.js';
import { ensureTemporalCli } from '../../scripts/lib/temporal-cli.js';
import { freePort, waitForPort } from '../../scripts/lib/net.js';
import { Proc } from '../../scripts/lib/processes.js';
import { devServerSearchAttributeArgs } from '../../shared/search-attributes.js';
import type { Simulator } from '../../simulator/server.js';
import {
  CHAOS_ENV,
  startApiAndWorker,
  ChaosClient,
  chaosLoop,
  chaosWorkspace,
  expectConverged,
  logger,
  registerReceiver,
  sleep,
  startCouriers,
  startReceiver,
  type Receiver,
  type Workspace,
} from '../helpers/chaos.js';
import { startLastMile, type LastMile } from '../helpers/last-mile.js';
import { startCodChaos, type CodChaos } from '../helpers/cod-chaos.js';

const DELIVERIES = Number(process.env.CHAOS_DELIVERIES ?? 1000);
const log = logger('chaos');

let workspace: Workspace;
let temporal: Proc;
let api: Proc;
let worker: Proc;
let sim: Simulator;
let receiver: Receiver;
let client: ChaosClient;
let lastMile: LastMile;
let cod: CodChaos;
const context = { tenantId: '', apiPort: 0 };

beforeAll(async () => {
  workspace = await chaosWorkspace('chaos', log);
  const { dir, databaseUrl, pool } = workspace;

  const temporalPort = await freePort();
  const temporalArgs = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(temporalPort),
    '--headless',
    '--log-level',
    'error',
  ];
  temporalArgs.push('--db-filename', path.join(dir, 'temporal.db'));
  temporalArgs.push(...devServerSearchAttributeArgs());
  temporal = new Proc('temporal', await ensureTemporalCli(), temporalArgs, { logFile: path.join(dir, 'temporal.log') });
  temporal.start();
  await waitForPort(temporalPort, '127.0.0.1', 120_000);

  const tenant = await createTenant(pool, 'chaos merchant');
  receiver = await startReceiver();
  sim = await startCouriers(pool, tenant.tenant_id, path.join(dir, 'simulator.log'));
  lastMile = await startLastMile(sim, pool, tenant.tenant_id, DELIVERIES);
  cod = await startCodChaos(sim, pool, tenant.tenant_id);

  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env = {
    ...CHAOS_ENV,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: apiUrl,
    TEMPORAL_TASK_QUEUE: `chaos-${randomUUID()}`,
  };
  ({ api, worker } = await startApiAndWorker('chaos', dir, env, apiPort));

  await registerReceiver(apiUrl, tenant.secret_key, receiver);
  client = new ChaosClient([apiUrl], tenant.secret_key, undefined, cod.route(lastMile.route), cod.extra);
  Object.assign(context, { tenantId: tenant.tenant_id, apiPort });
}, 300_000);

afterAll(async () => {
  await api?.kill('SIGTERM');
  await worker?.kill('SIGTERM');
  await temporal?.kill('SIGTERM');
  await sim?.close();
  receiver?.close();
  await workspace?.remove();
});

describe('under fire', () => {
  it(`${DELIVERIES} deliveries reach a final state through worker, API, Temporal and Postgres restarts`, async () => {
    const started = Date.now();
    const chaos = chaosLoop(
      [
        [
          'SIGKILL worker, restart',
          async () => {
            await worker.kill();
            await sleep(1500);
            worker.start();
          },
        ],
        [
          'SIGKILL API, restart',
          async () => {
            await api.kill();
            await sleep(1000);
            api.start();
            await waitForPort(context.apiPort, '127.0.0.1', 60_000);
          },
        ],
        [
          'SIGKILL Temporal, restart on the same database file',
          async () => {
            await temporal.kill();
            await sleep(1000);
            temporal.start();
            await sleep(3000);
          },
        ],
        [
          'restart Postgres',
          async () => {
            await workspace.postgres.stop();
            await sleep(1000);
            await workspace.postgres.start();
          },
        ],
      ],
      6000,
      log,
    );

    // Create with bounded concurrency, retrying through outages (Idempotency-Key makes retries safe); the stalled
    // ones are recovered meanwhile, as soon as they all exist.
    const recovered = lastMile.recover(client, log);
    recovered.catch(() => {}); // awaited below; a failure meanwhile is not an unhandled rejection
    const ids = await client.createMany(DELIVERIES, 8, log, Infinity, lastMile.created);
    log(
      `all ${ids.length} created in ${Math.round((Date.now() - started) / 1000)} s; letting chaos run one more round`,
    );
    // Meanwhile the couriers remit the cash collected so far, every 5 s, and the merchant confirms every other one.
    const oneMoreRound = Promise.all([sleep(25_000), recovered]);
    await Promise.all([oneMoreRound, cod.remitWhile(client, oneMoreRound, 5000, log)]);
    const rounds = await chaos.stop();
    log(`chaos stopped after ${rounds} actions; waiting for every delivery and return to finish`);
    await lastMile.settled(log);

    const events = await expectConverged({
      pool: workspace.pool,
      tenantId: context.tenantId,
      expected: DELIVERIES,
      sim,
      receiver,
      log,
    });
    await lastMile.expectOutcomes(log);
    await cod.expectLedger(client, context.tenantId, DELIVERIES, log);
    log(
      `done in ${Math.round((Date.now() - started) / 1000)} s: ${DELIVERIES} deliveries, ${events} events, ${receiver.received.size} webhook events received, ${rounds} chaos actions`,
    );
  });
});
