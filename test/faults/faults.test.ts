// npm run test:faults — deliveries run while the network between the service's processes and what they call goes
// wrong, one fault kind per phase: Toxiproxy (scripts/lib/toxiproxy.ts, test/helpers/faults.ts) sits between the API
// and worker processes and the couriers (simulator), the merchant's webhook receiver, Postgres and the Temporal
// frontend, and adds latency (500 ms +- 250), a bandwidth limit, silent connections closed after a timeout, connections
// reset mid-answer, and lost answers (the courier books, the receiver takes the webhook, the answer never comes back).
// At the end: every delivery final, one courier job per booking (Idempotency-Key) and never two live jobs for a
// delivery, no event twice or backwards, every webhook received, repeats only under the same webhook-id
// (test/helpers/chaos.ts, shared with the crash tests). FAULT_DELIVERIES (default 30) deliveries per phase, 3
// created a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import {
  bookingCounts,
  expectOneJobPerBooking,
  FAULTS,
  startFault,
  startFaultProxies,
  type FaultProxies,
} from '../helpers/faults.js';

const PER_PHASE = Number(process.env.FAULT_DELIVERIES ?? 30);
/** Creations started a second: a phase's deliveries spread over its faults' pulses. */
const RATE = 3;
const log = logger('faults');

let workspace: Workspace;
let temporal: Proc;
let api: Proc;
let worker: Proc;
let sim: Simulator;
let receiver: Receiver;
let client: ChaosClient;
let net: FaultProxies;
let tenantId = '';

beforeAll(async () => {
  workspace = await chaosWorkspace('faults', log);
  const { dir, pool, postgres } = workspace;

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
  temporalArgs.push(...devServerSearchAttributeArgs());
  temporal = new Proc('temporal', await ensureTemporalCli(), temporalArgs, { logFile: path.join(dir, 'temporal.log') });
  temporal.start();
  await waitForPort(temporalPort, '127.0.0.1', 120_000);

  receiver = await startReceiver();
  const pgPort = new URL(postgres.serverUrl).port;
  net = await startFaultProxies(dir, {
    courier: '127.0.0.1:9', // set once the simulator listens
    webhook: new URL(receiver.url).host,
    postgres: `127.0.0.1:${pgPort}`,
    temporal: `127.0.0.1:${temporalPort}`,
  });
  log(`proxies: ${JSON.stringify(net.listen)}`);

  const tenant = await createTenant(pool, 'faults merchant');
  tenantId = tenant.tenant_id;
  sim = await startCouriers(pool, tenantId, path.join(dir, 'simulator.log'), {
    endpoint: (direct) => direct.replace(new URL(direct).host, net.listen.courier),
  });
  await net.setUpstream('courier', new URL(sim.url).host);

  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const databaseUrl = new URL(workspace.databaseUrl);
  databaseUrl.host = net.listen.postgres;
  const env = {
    ...CHAOS_ENV,
    DATABASE_URL: databaseUrl.href,
    TEMPORAL_ADDRESS: net.listen.temporal,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: apiUrl,
    TEMPORAL_TASK_QUEUE: `faults-${randomUUID()}`,
  };
  ({ api, worker } = await startApiAndWorker('faults', dir, env, apiPort));

  // The merchant's endpoint is the receiver behind its proxy.
  const direct = receiver.url;
  receiver.url = direct.replace(new URL(direct).host, net.listen.webhook);
  await registerReceiver(apiUrl, tenant.secret_key, receiver);
  client = new ChaosClient([apiUrl], tenant.secret_key);
}, 300_000);

afterAll(async () => {
  await api?.kill('SIGTERM');
  await worker?.kill('SIGTERM');
  await temporal?.kill('SIGTERM');
  await net?.server.kill('SIGTERM');
  await sim?.close();
  receiver?.close();
  await workspace?.remove();
});

/** Waits up to `ms` until the deliveries are final; how many are not. */
async function waitFinal(ids: string[], ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await workspace.pool.query(
      `SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1) AND status NOT IN ('delivered', 'cancelled', 'failed')`,
      [ids],
    );
    if (rows[0].n === 0 || Date.now() > deadline) return rows[0].n;
    await sleep(1000);
  }
}

/** Waits up to `ms` until every (not ignored) event of the deliveries reached the receiver; how many did not. */
async function waitWebhooks(ids: string[], ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await workspace.pool.query(
      `SELECT id FROM delivery_events WHERE delivery_id = ANY($1) AND NOT coalesce((payload->>'ignored')::boolean, false)`,
      [ids],
    );
    const missing = rows.filter((r) => !receiver.received.has(r.id)).length;
    if (missing === 0 || Date.now() > deadline) return missing;
    await sleep(1000);
  }
}

describe('network faults', () => {
  it(`${PER_PHASE} deliveries per fault reach a final state with one courier job per booking and every webhook once per id`, async () => {
    const started = Date.now();
    const figures: Record<string, unknown>[] = [];
    let total = 0;
    for (const fault of FAULTS) {
      const phaseStarted = Date.now();
      const before = bookingCounts(sim);
      const hitsBefore = receiver.hits;
      const eventsBefore = receiver.received.size;
      log(`phase "${fault.name}": adding toxics, creating ${PER_PHASE} deliveries`);
      const faulty = startFault(net, fault);
      const ids = await client.createMany(PER_PHASE, 8, log, RATE);
      total += ids.length;
      // The fault stays while the deliveries run (at most 60 s), then the network heals and they finish.
      const openUnderFault = await waitFinal(ids, 60_000);
      const pulses = await faulty.stop();
      const open = await waitFinal(ids, 5 * 60_000);
      const missing = await waitWebhooks(ids, 3 * 60_000);
      const after = bookingCounts(sim);
      const calls = after.calls - before.calls;
      const jobs = after.jobs - before.jobs;
      const row = {
        fault: fault.name,
        deliveries: ids.length,
        finalUnderFault: ids.length - openUnderFault,
        pulses,
        bookingCalls: calls,
        jobs,
        retriedBookingCalls: calls - jobs,
        webhooks: receiver.hits - hitsBefore,
        webhookRepeats: receiver.hits - hitsBefore - (receiver.received.size - eventsBefore),
        seconds: Math.round((Date.now() - phaseStarted) / 1000),
      };
      figures.push(row);
      log(`phase "${fault.name}" done: ${JSON.stringify(row)}`);
      expect(open, `${fault.name}: deliveries not final`).toBe(0);
      expect(missing, `${fault.name}: webhook events not received`).toBe(0);
    }

    const events = await expectConverged({ pool: workspace.pool, tenantId, expected: total, sim, receiver, log });
    const jobs = expectOneJobPerBooking(sim);
    console.table(figures);
    log(
      `done in ${Math.round((Date.now() - started) / 1000)} s: ${total} deliveries, ${jobs} courier jobs, ${events} events, ${receiver.hits} webhooks received`,
    );
  });
});
