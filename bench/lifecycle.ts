// npm run bench:lifecycle — what a whole delivery lifecycle costs, and how many a second the stack keeps up with.
//
// The stack runs as in production: the API and the worker each in its own process (npm run build; start:api,
// start:worker), a Temporal server (a dev server of its own, or TEMPORAL_ADDRESS), Postgres. The courier simulator
// (in this process) books every delivery and moves it every BENCH_STEP_MS to `delivered`; one merchant webhook
// endpoint is registered and its receiver (in this process) answers 200.
//
// For each offered rate of BENCH_RATES (deliveries a second: quote + create through the API), for BENCH_STEP_S:
//   - backlog: deliveries created but not yet delivered, older than the simulator's own delays, sampled every 2 s;
//     the rate is sustained when the backlog stays flat over the step's second half (it grows by less than 5 % of
//     the offered rate per second) and drains within BENCH_DRAIN_S after the step;
//   - CPU seconds per completed lifecycle, summed over the API, the worker, the Temporal server and Postgres
//     (from /proc, from the step's start until its deliveries are all delivered);
//   - lifecycle time (created -> delivered) p50 / p95.
// Then, from a sample of delivered deliveries, Temporal's work per delivery: history events, workflow tasks and
// actions (roughly as Temporal Cloud bills them), summed over the delivery's workflow and every workflow started
// for it (webhook fan-outs).
// The floor, in the same run and the same way: lifecycleFloorWorkflow (bench/floor/workflows.ts, not in the production
// bundle) on a worker process of its own (bench/floor/worker.ts, its CPU counted as the worker's), started by this
// process, signalled once per fleet event the courier sent, writing one row per signal with one activity; no API.
//
// Stepping up stops at the first rate that is not sustained. Set BENCH_RATES=1 for a quick look.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto'; // CommonJS: its namespaces come through the default export under tsx
import type { Pool } from '../src/platform/db.js';
import { createTenant } from '../src/tenants/service.js';
import { createCourier, linkCouriers } from '../src/couriers/service.js';
import { deliveryWorkflowId } from '../shared/deliveries/definitions.js';
import { webhookFanoutWorkflowId } from '../shared/webhooks/definitions.js';
import { floorEventSignal, lifecycleFloorWorkflow } from './floor/workflows.js';
import { TEMPORAL_SERVER_PROCESS } from '../scripts/lib/temporal-server.js';
import { createSimulator, newFleetSecret } from '../simulator/server.js';
import {
  benchDatabaseWithPool,
  benchTemporal,
  cleanupList,
  merchantApi,
  QUOTE_BODY,
  productionStack,
  registerEndpoint,
  machineLine,
  pct,
  pidsMatching,
  postmasterOf,
  say,
  stackCpu,
  webhookReceiver,
} from './lib.js';

const RATES = (process.env.BENCH_RATES ?? '1,2,3,4,6,8,12,16').split(',').map(Number);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 60);
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 120);
const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 300); // the courier moves a job every 300 ms
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 20);
const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? (process.env.TEMPORAL_ADDRESS ? 'TEMPORAL_ADDRESS' : 'dev server');
/** Deliveries younger than this are not backlog: the simulator's own delays (booking + four moves) and some slack. */
const BACKLOG_AFTER_MS = 5 * STEP_MS + 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface StepResult {
  rate: number;
  offered: number;
  completed: number;
  errors: number;
  sustained: boolean;
  backlogSlope: number;
  drainedInS: number | null;
  cpuPerLifecycle: number;
  cpuByProcess: Record<string, number>;
  lifecycleP50: number;
  lifecycleP95: number;
}

/** Least-squares slope of (t seconds, value) points. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/**
 * Offers `rate` lifecycles a second for STEP_S, sampling the backlog, then waits for the step's lifecycles to end.
 * `startOne` starts a lifecycle and returns its id; `openCount(ids, olderThanMs)` counts those not finished yet;
 * `durations(ids)` gives the finished ones' lifecycle times in ms.
 */
async function runStep(
  label: string,
  rate: number,
  pids: Record<string, number>,
  postmaster: number,
  startOne: () => Promise<string | null>,
  openCount: (ids: string[], olderThanMs: number) => Promise<number>,
  durations: (ids: string[]) => Promise<number[]>,
): Promise<StepResult> {
  const ids: string[] = [];
  const startedAt = new Map<string, number>();
  let errors = 0;
  let inFlight = 0;
  const cpuBefore = stackCpu(pids, postmaster);
  const t0 = performance.now();
  const samples: [number, number][] = [];
  let offered = 0;
  const ticker = setInterval(async () => {
    const t = (performance.now() - t0) / 1000;
    const older = ids.filter((id) => performance.now() - startedAt.get(id)! > BACKLOG_AFTER_MS);
    const backlog = older.length ? await openCount(older, BACKLOG_AFTER_MS) : 0;
    samples.push([t, backlog]);
    console.log(
      `    [${label} ${rate}/s] ${t.toFixed(0).padStart(3)} s  ${ids.length} created  backlog ${backlog}  errors ${errors}  in flight ${inFlight}`,
    );
  }, 2000);
  // Open-loop arrivals at the offered rate (a slow API does not slow the offer down), at most 256 in flight.
  const pending: Promise<void>[] = [];
  while (performance.now() - t0 < STEP_S * 1000) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate) + 1;
    while (offered < due && inFlight < 256) {
      offered++;
      inFlight++;
      pending.push(
        startOne()
          .then((id) => {
            if (id) {
              ids.push(id);
              startedAt.set(id, performance.now());
            } else errors++;
          })
          .catch(() => void errors++)
          .finally(() => void inFlight--),
      );
    }
    await sleep(Math.max(1, Math.min(50, 1000 / rate / 2)));
  }
  await Promise.all(pending);
  clearInterval(ticker);
  const stepEnd = performance.now();
  // Drain: until every lifecycle of the step has ended, at most DRAIN_S.
  let drainedInS: number | null = null;
  while ((performance.now() - stepEnd) / 1000 < DRAIN_S) {
    const open = await openCount(ids, 0);
    if (open === 0) {
      drainedInS = (performance.now() - stepEnd) / 1000;
      break;
    }
    console.log(`    [${label} ${rate}/s] draining: ${open} not finished`);
    await sleep(2000);
  }
  const cpuAfter = stackCpu(pids, postmaster);
  const cpuByProcess = Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, cpuAfter[k] - cpuBefore[k]]));
  const completed = ids.length - (await openCount(ids, 0));
  const cpu = Object.values(cpuByProcess).reduce((s, v) => s + (Number.isNaN(v) ? 0 : v), 0);
  const secondHalf = samples.filter(([t]) => t >= STEP_S / 2);
  const backlogSlope = slope(secondHalf);
  const lifecycles = (await durations(ids)).sort((a, b) => a - b);
  return {
    rate,
    offered,
    completed,
    errors,
    sustained: errors === 0 && backlogSlope < 0.05 * rate && drainedInS !== null && drainedInS < 30,
    backlogSlope,
    drainedInS,
    cpuPerLifecycle: completed ? cpu / completed : NaN,
    cpuByProcess: Object.fromEntries(
      Object.entries(cpuByProcess).map(([k, v]) => [k, completed ? v / completed : NaN]),
    ),
    lifecycleP50: pct(lifecycles, 50),
    lifecycleP95: pct(lifecycles, 95),
  };
}

/** Steps up through RATES until one is not sustained. */
async function stepUp(label: string, run: (rate: number) => Promise<StepResult>): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const rate of RATES) {
    say(`${label}: ${rate} lifecycles/s for ${STEP_S} s`);
    const r = await run(rate);
    results.push(r);
    console.log(
      `    ${label} ${rate}/s: ${r.completed}/${r.offered} completed, backlog slope ${r.backlogSlope.toFixed(2)}/s, drained in ${r.drainedInS?.toFixed(0) ?? '-'} s, ` +
        `${r.cpuPerLifecycle.toFixed(3)} CPU s per lifecycle: ${r.sustained ? 'sustained' : 'NOT sustained'}`,
    );
    if (!r.sustained) break;
  }
  return results;
}

// ---- Temporal's work per delivery, from the histories ------------------------------------------------------------

const E = protos.temporal.api.enums.v1.EventType;
interface HistoryCounts {
  workflows: number;
  events: number;
  workflowTasks: number;
  activities: number;
  localActivities: number;
  actions: number;
}

/**
 * Counts over the histories of `workflowIds` (missing ones are skipped). Actions approximate Temporal Cloud's billing:
 * workflow started, signal, update, activity attempt, timer, child start, external signal, search-attribute upsert,
 * continue-as-new, and one per workflow task that ran local activities.
 */
async function countHistories(temporal: Client, workflowIds: string[]): Promise<HistoryCounts> {
  const c: HistoryCounts = { workflows: 0, events: 0, workflowTasks: 0, activities: 0, localActivities: 0, actions: 0 };
  for (const workflowId of workflowIds) {
    let history;
    try {
      history = await temporal.workflow.getHandle(workflowId).fetchHistory();
    } catch {
      continue; // never started (e.g. no webhook for this event)
    }
    c.workflows++;
    let localInTask = false;
    for (const ev of history.events ?? []) {
      c.events++;
      switch (ev.eventType) {
        case E.EVENT_TYPE_WORKFLOW_TASK_STARTED:
          c.workflowTasks++;
          localInTask = false;
          break;
        case E.EVENT_TYPE_MARKER_RECORDED:
          if (ev.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
            c.localActivities++;
            if (!localInTask) c.actions++;
            localInTask = true;
          }
          break;
        case E.EVENT_TYPE_ACTIVITY_TASK_STARTED:
          c.activities++;
          c.actions += ev.activityTaskStartedEventAttributes?.attempt ?? 1;
          break;
        case E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        case E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        case E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        case E.EVENT_TYPE_TIMER_STARTED:
        case E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        case E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
        case E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        case E.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
          c.actions++;
          break;
      }
    }
  }
  return c;
}

/** Every workflow id a delivery may have caused: its own, and one webhook fan-out per event. */
async function workflowIdsOfDelivery(pool: Pool, deliveryId: string): Promise<{ own: string; related: string[] }> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM delivery_events WHERE delivery_id = $1', [
    deliveryId,
  ]);
  return { own: deliveryWorkflowId(deliveryId), related: rows.map((r) => webhookFanoutWorkflowId(r.id)) };
}

const per = (c: HistoryCounts, n: number) => ({
  workflows: +(c.workflows / n).toFixed(1),
  'history events': +(c.events / n).toFixed(1),
  'workflow tasks': +(c.workflowTasks / n).toFixed(1),
  activities: +(c.activities / n).toFixed(1),
  'local activities': +(c.localActivities / n).toFixed(1),
  'actions (approx.)': +(c.actions / n).toFixed(1),
});

async function main() {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups);
    const postmaster = await postmasterOf(pool);

    const { address: temporalAddress, pid: devServerPid } = await benchTemporal(cleanups);
    const pids: Record<string, number> = {};
    if (devServerPid) pids.temporal = devServerPid;
    else {
      // A cluster started elsewhere (npm run cluster): its server processes, found by their command line.
      pidsMatching(TEMPORAL_SERVER_PROCESS).forEach((pid, i) => (pids[`temporal${i}`] = pid));
      say(`${Object.keys(pids).length} Temporal server process(es) counted`);
    }
    const connection = await Connection.connect({ address: temporalAddress });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });

    const sim = await createSimulator({ port: 0, host: '127.0.0.1', companies: [], eventRetries: 600 });
    cleanups.push(() => sim.close());
    const tenant = await createTenant(pool, 'lifecycle merchant');
    const slug = `life-${randomUUID().slice(0, 6)}`;
    const secret = newFleetSecret();
    sim.control.upsert({
      slug,
      fleet_secret: secret,
      pricing: { base_fee_aoa: 100_000 },
      booking_status: 'accepted',
      auto_progress: { delay_ms: STEP_MS },
    });
    await createCourier(pool, {
      name: slug,
      slug,
      adapter: 'http',
      endpoint: sim.endpoint(slug),
      fleet_secret: secret,
    });
    await linkCouriers(pool, tenant.tenant_id, slug);

    const receiver = await webhookReceiver(cleanups);

    const taskQueue = `lifecycle-${Date.now()}`;
    const { apiUrl, api, worker } = await productionStack(cleanups, { databaseUrl, temporalAddress, taskQueue });
    pids.api = api.pid!;
    pids.worker = worker.pid!;

    const call = merchantApi(cleanups, apiUrl, tenant.secret_key, 64);
    await registerEndpoint(call, receiver.url);

    // ---- the product: quote + create through the API; the simulator drives each delivery to delivered ----
    const createOne = async (): Promise<string | null> => {
      const quotes = await call('POST', '/v1/quotes', QUOTE_BODY);
      if (quotes.status !== 200 || !quotes.json.data.length) return null;
      const created = await call('POST', '/v1/deliveries', { quote_id: quotes.json.data[0].quote_id, ...QUOTE_BODY });
      return created.status === 201 ? created.json.id : null;
    };
    const openDeliveries = async (ids: string[], olderThanMs: number) =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1::uuid[]) AND status <> 'delivered'
              AND inserted_at < now() - make_interval(secs => $2::double precision / 1000)`,
          [ids, olderThanMs],
        )
      ).rows[0].n;
    const deliveryDurations = async (ids: string[]) =>
      (
        await pool.query<{ ms: number }>(
          `SELECT extract(epoch FROM max(e.occurred_at) - d.inserted_at) * 1000 AS ms
             FROM deliveries d JOIN delivery_events e ON e.delivery_id = d.id
            WHERE d.id = ANY($1::uuid[]) AND d.status = 'delivered' GROUP BY d.id, d.inserted_at`,
          [ids],
        )
      ).rows.map((r) => Number(r.ms));

    say('Warm-up: 5 lifecycles');
    for (let i = 0; i < 5; i++) await createOne();
    await sleep(5 * STEP_MS + 3000);

    const product = await stepUp('delivery', (rate) =>
      runStep('delivery', rate, pids, postmaster, createOne, openDeliveries, deliveryDurations),
    );

    // ---- Temporal's work per delivery, from a sample of the first step's deliveries ----
    const { rows: sample } = await pool.query<{ id: string }>(
      `SELECT id FROM deliveries WHERE tenant_id = $1 AND status = 'delivered' ORDER BY inserted_at LIMIT $2`,
      [tenant.tenant_id, SAMPLE],
    );
    const signalsPerDelivery =
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM delivery_events WHERE delivery_id = ANY($1::uuid[]) AND source = 'fleet_webhook'`,
          [sample.map((r) => r.id)],
        )
      ).rows[0].n / Math.max(1, sample.length);
    const eventsPerDelivery =
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM delivery_events WHERE delivery_id = ANY($1::uuid[])`,
          [sample.map((r) => r.id)],
        )
      ).rows[0].n / Math.max(1, sample.length);
    let own: HistoryCounts | null = null;
    let all: HistoryCounts | null = null;
    for (const { id } of sample) {
      const ids = await workflowIdsOfDelivery(pool, id);
      const o = await countHistories(temporal, [ids.own]);
      const r = await countHistories(temporal, ids.related);
      own = own ? addCounts(own, o) : o;
      all = addCounts(all ?? zeroCounts(), addCounts(o, r));
    }

    // ---- the floor: the same number of signals, one row per signal by one activity, no API ----
    const signals = Math.round(signalsPerDelivery);
    const floorQueue = `${taskQueue}-floor`;
    const floorWorker = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./floor/worker.ts', import.meta.url))],
      {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          TEMPORAL_ADDRESS: temporalAddress,
          FLOOR_TASK_QUEUE: floorQueue,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    cleanups.push(async () => {
      floorWorker.kill('SIGTERM');
      if (floorWorker.exitCode === null) await once(floorWorker, 'exit');
    });
    await new Promise<void>((resolve, reject) => {
      floorWorker.once('exit', () => reject(new Error('the floor worker exited before it was ready')));
      floorWorker.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
    });
    const floorPids = { ...pids, worker: floorWorker.pid! };
    const floorIds: string[] = [];
    const floorStart = new Map<string, number>();
    const floorDone = new Map<string, number>();
    const startFloor = async (): Promise<string | null> => {
      const id = `floor-${randomUUID()}`;
      const handle = await temporal.workflow.start(lifecycleFloorWorkflow, {
        taskQueue: floorQueue,
        workflowId: id,
        args: [{ signals }],
      });
      floorIds.push(id);
      floorStart.set(id, performance.now());
      void (async () => {
        for (let i = 0; i < signals; i++) {
          await sleep(STEP_MS);
          await handle.signal(floorEventSignal, { type: `event-${i}` });
        }
        await handle.result();
        floorDone.set(id, performance.now());
      })().catch(() => {});
      return id;
    };
    const openFloor = async (ids: string[], olderThanMs: number) =>
      ids.filter((id) => !floorDone.has(id) && performance.now() - floorStart.get(id)! > olderThanMs).length;
    const floorDurations = async (ids: string[]) =>
      ids.filter((id) => floorDone.has(id)).map((id) => floorDone.get(id)! - floorStart.get(id)!);
    const floor = await stepUp('floor', (rate) =>
      runStep('floor', rate, floorPids, postmaster, startFloor, openFloor, floorDurations),
    );
    const floorHistory = await countHistories(temporal, floorIds.slice(0, SAMPLE));

    // ---- report ----
    const best = (rs: StepResult[]) => rs.filter((r) => r.sustained).at(-1)?.rate ?? 0;
    console.log('');
    console.log(
      `Topology: ${TOPOLOGY}. Courier moves every ${STEP_MS} ms; ${signals} fleet events per delivery; one webhook endpoint.`,
    );
    const stepRows = (label: string, rs: StepResult[]) =>
      rs.map((r) => ({
        what: label,
        'offered /s': r.rate,
        completed: `${r.completed}/${r.offered}`,
        'backlog slope /s': +r.backlogSlope.toFixed(2),
        'drained s': r.drainedInS === null ? 'no' : +r.drainedInS.toFixed(0),
        'CPU s/lifecycle': +r.cpuPerLifecycle.toFixed(3),
        ...Object.fromEntries(Object.entries(r.cpuByProcess).map(([k, v]) => [`${k} s`, +v.toFixed(3)])),
        'lifecycle p50 s': +(r.lifecycleP50 / 1000).toFixed(1),
        'lifecycle p95 s': +(r.lifecycleP95 / 1000).toFixed(1),
        sustained: r.sustained ? 'yes' : 'NO',
      }));
    console.table([...stepRows('delivery', product), ...stepRows('floor', floor)]);
    const n = Math.max(1, sample.length);
    console.table([
      { what: `delivery workflow alone (${sample.length} sampled)`, ...per(own ?? zeroCounts(), n) },
      { what: 'delivery + every workflow started for it', ...per(all ?? zeroCounts(), n) },
      { what: 'floor workflow', ...per(floorHistory, Math.max(1, Math.min(SAMPLE, floorIds.length))) },
    ]);
    const first = (rs: StepResult[]) => rs[0]?.cpuPerLifecycle ?? NaN;
    console.log(
      `Sustained: ${best(product)} lifecycles/s (floor ${best(floor)}/s). CPU per lifecycle at ${RATES[0]}/s: ${first(product).toFixed(3)} s (floor ${first(floor).toFixed(3)} s). ` +
        `Recorded events per delivery: ${eventsPerDelivery.toFixed(1)}; workflow tasks of the delivery workflow: ${((own?.workflowTasks ?? 0) / n).toFixed(1)}. ` +
        `${receiver.received()} webhooks received.`,
    );
    console.log(`${machineLine()}; API and worker in their own processes; simulator, receiver and load in this one.`);
  } finally {
    await cleanup();
  }
}

function zeroCounts(): HistoryCounts {
  return { workflows: 0, events: 0, workflowTasks: 0, activities: 0, localActivities: 0, actions: 0 };
}
function addCounts(a: HistoryCounts, b: HistoryCounts): HistoryCounts {
  return {
    workflows: a.workflows + b.workflows,
    events: a.events + b.events,
    workflowTasks: a.workflowTasks + b.workflowTasks,
    activities: a.activities + b.activities,
    localActivities: a.localActivities + b.localActivities,
    actions: a.actions + b.actions,
  };
}

main().catch((err) => {
  console.error('The benchmark failed:', err);
  console.error(
    'Is Postgres reachable (DATABASE_URL or 127.0.0.1:5432) and TEMPORAL_ADDRESS (if set) up? Run `npm run build` alone to see build errors.',
  );
  process.exit(1);
});
