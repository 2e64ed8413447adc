// npm run bench:lifecycle — what a whole delivery lifecycle costs, and how many a second the stack keeps up with: the
// plain lifecycle, one with a failed attempt and a return to sender (BENCH_KINDS, below), beside a floor.
//
// The stack runs as in production: the API and the worker each in its own process (npm run build; start:api,
// start:worker), a Temporal server (a dev server of its own, or TEMPORAL_ADDRESS), Postgres. The courier simulator
// (in this process) books every delivery and moves it every BENCH_STEP_MS to `delivered`; one merchant webhook
// endpoint is registered and its receiver (in this process) answers 200.
//
// Kinds (BENCH_KINDS=normal,attempt,return, the default: all, one after the other in the same run; bench/lifecycle-kinds.ts),
// each with a merchant and a company of its own:
//   - normal (`delivery` in the tables): booked, moved to `delivered`;
//   - attempt (`one failed attempt`): the first attempt fails (`attempt_failed`), the second delivers;
//   - return: both attempts fail, the delivery fails (delivery_attempts_exhausted) and the return to sender the
//     service books with the same company is moved to `delivered`; the lifecycle ends at `delivery.returned` on the
//     original, and its CPU, events and Temporal work are the original's and the return's together.
// The last "Sustained:" line sets each kind's CPU per lifecycle beside the normal one's.
//
// For each kind and each offered rate of BENCH_RATES (lifecycles a second: quote + create through the API), for
// BENCH_STEP_S:
//   - backlog: lifecycles started but not yet over, older than the simulator's own delays, sampled every 2 s;
//     the rate is sustained when the backlog stays flat over the step's second half (it grows by less than 5 % of
//     the offered rate per second) and drains within BENCH_DRAIN_S after the step;
//   - CPU seconds per completed lifecycle, summed over the API, the worker, the Temporal server and Postgres
//     (from /proc, from the step's start until its deliveries are all delivered); beside them, not counted, this
//     process's own ("bench s": the simulator, the webhook receiver and the load, on the same cores);
//   - lifecycle time (created -> delivered, or -> delivery.returned) p50 / p95;
//   - the delivery worker's workflow cache a lifecycle (Temporal Core's hits, misses and forced evictions, from the
//     worker's GET /metrics, which the benchmark turns on with WORKER_METRICS_PORT): a miss is a replay;
//   - the courier's fleet event posts a lifecycle, retries included (4 in a normal lifecycle: more means the API
//     answered 404, 408, 429 or 5xx and the simulator tried again a second later).
// On a Postgres without autovacuum (a CI machine's may be configured so) each step starts with VACUUM (ANALYZE) of the
// benchmark's database, not counted: the delivery updates its row at each status, the floor only inserts, and dead rows
// would otherwise make the delivery dearer step by step.
// Then, from a sample of each kind's finished lifecycles, Temporal's work per lifecycle: history events, workflow tasks,
// actions (roughly as Temporal Cloud bills them) and the histories' size in protobuf bytes, summed over the delivery's
// workflow and every workflow started for it (webhook fan-outs).
// The floor, in the same run and the same way: lifecycleFloorWorkflow (bench/floor/workflows.ts, not in the production
// bundle) on a worker process of its own (bench/floor/worker.ts, its CPU counted as the worker's), started by this
// process, signalled once per fleet event the courier sent in a normal lifecycle, writing one row per signal with one
// activity; no API.
//
// Rate by rate, each kind and then the floor take their step at that rate (so both meet the stack's growing state as it
// is at that point); each stops at its first rate not sustained. The default rates go up to where the floor itself
// stops keeping up on two cores; the "Ceiling:" line sets the highest rate the delivery sustains beside the floor's,
// and their CPU per lifecycle at the highest rate both sustain (targets: the floor's rate, at most 1.1x its CPU; the
// exit code is 1 when one is missed). At that rate the delivery and the floor take BENCH_CEILING_REPEATS (default 2)
// more steps, one after the other, and the ratio is the median pair's: one pair is a sample on a noisy machine. Set BENCH_RATES=1 (and BENCH_STEP_S=20) for a quick look.
// BENCH_CPU_PROF=<dir>: the API and the worker write V8 CPU profiles there when they stop (bench/lib.ts).
// BENCH_TEMPORAL_DB_FILE=<path>: the dev server keeps its state in that SQLite file, as `npm run dev` does, instead of
// in memory (the default here: bench/RESULTS.md "The delivery's growth within a run" compares the two).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto'; // CommonJS: its namespaces come through the default export under tsx
import type { Pool } from '../src/platform/db.js';
import { deliveryWorkflowId } from '../shared/deliveries/definitions.js';
import { webhookFanoutWorkflowId } from '../shared/webhooks/definitions.js';
import { floorEventSignal, lifecycleFloorWorkflow } from './floor/workflows.js';
import { setUpSms, withSmsPhone } from './sms.js';
import { TEMPORAL_SERVER_PROCESS } from '../scripts/lib/temporal-server.js';
import { createSimulator } from '../simulator/server.js';
import {
  durationsOfKind,
  eventsPerLifecycle,
  kindsFromEnv,
  openOfKind,
  sampleOfKind,
  setUpKind,
  type KindSetup,
} from './lifecycle-kinds.js';
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
  scrapeCounters,
  say,
  stackCpu,
  webhookReceiver,
} from './lib.js';

// Up to where the floor itself stops keeping up on two cores (the ceiling: the last rate both sustain, below).
const RATES = (process.env.BENCH_RATES ?? '1,2,4,8,12,16,20,24,28,32').split(',').map(Number);
/** The delivery's CPU per lifecycle at the ceiling, at most this many times the floor's (#31). */
const CEILING_CPU_TARGET = 1.1;
/**
 * More delivery/floor pairs at the ceiling's rate after the step-up (BENCH_CEILING_REPEATS, default 2): one pair is a
 * sample (the floor's own figure moves by up to 70 % between steps of a run), so the ratio is the median pair's.
 */
const CEILING_REPEATS = Number(process.env.BENCH_CEILING_REPEATS ?? 2);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 60);
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 120);
const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 300); // the courier moves a job every 300 ms
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 20);
// The share of deliveries paid cash on delivery (0.5: every other one), each collecting 15.000 Kz at the door:
// compare CPU per lifecycle with and without (docs/cash-on-delivery.md).
const COD_SHARE = Number(process.env.BENCH_COD_SHARE ?? 0);
/**
 * Before each step (not counted in it): VACUUM (ANALYZE) of the benchmark's database when the server runs without
 * autovacuum (CI machines' Postgres may be configured so). Production runs autovacuum; without it every update leaves
 * a dead row version behind (a delivery's row is updated at each status, a floor's rows only inserted), so the
 * delivery's Postgres CPU grew from step to step with the dead rows and the bloated indexes, and the ratio with it.
 */
let beforeEachStep: () => Promise<void> = async () => {};
// BENCH_SMS=on|off: the recipients' SMS on or off (bench/sms.ts); compare CPU per lifecycle between the two.
const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? (process.env.TEMPORAL_ADDRESS ? 'TEMPORAL_ADDRESS' : 'dev server');
const KIND_NAMES_RUN = kindsFromEnv();
/** Floor lifecycles younger than this are not backlog: the floor's own delays (four signals) and some slack. */
const FLOOR_BACKLOG_AFTER_MS = 5 * STEP_MS + 1500;

/** Temporal Core's workflow cache counters, read from the delivery worker's GET /metrics. */
const CACHE_HITS = 'temporal_sticky_cache_hit_total';
const CACHE_MISSES = 'temporal_sticky_cache_miss_total';
const CACHE_FORCED_EVICTIONS = 'temporal_sticky_cache_total_forced_eviction_total';
/** The simulator's fleet event posts of a kind's company so far, retries included (read beside the cache counters). */
const FLEET_POSTS = 'fleet_posts';

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
  /** This process's CPU per lifecycle (simulator, webhook receiver, load): on the same cores, not counted above. */
  benchCpu: number;
  lifecycleP50: number;
  lifecycleP95: number;
  /**
   * The delivery worker's workflow cache per lifecycle over the step (Temporal Core's counters, each summed over its
   * workflow types): workflow tasks answered from the cache, tasks of a workflow no longer cached (each replayed from
   * its history first), and workflows evicted to make room. Not for the floor. A counter Core has not created yet
   * (no miss so far) reads 0.
   */
  cache?: { hits: number; misses: number; forcedEvictions: number };
  /**
   * The courier's fleet event posts to the API per lifecycle over the step, retries included (the simulator tries an
   * event again 1 s after a 404, 408, 429 or 5xx: a job the API does not know yet, say). Not for the floor.
   */
  fleetPosts?: number;
}

/** One kind's steps, and its sampled lifecycles' Temporal work and recorded events. */
interface KindResult {
  kind: KindSetup;
  steps: StepResult[];
  sampled: number;
  own: HistoryCounts;
  all: HistoryCounts;
  events: number;
  signals: number;
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
 * `durations(ids)` gives the finished ones' lifecycle times in ms; lifecycles younger than `backlogAfterMs` are not
 * backlog (the simulator's own delays). `counters` (the delivery's kinds only) reads cumulative counters before and
 * after the step: Temporal Core's workflow cache and the simulator's fleet event posts.
 */
async function runStep(
  label: string,
  rate: number,
  pids: Record<string, number>,
  postmaster: number,
  startOne: () => Promise<string | null>,
  openCount: (ids: string[], olderThanMs: number) => Promise<number>,
  durations: (ids: string[]) => Promise<number[]>,
  backlogAfterMs: number,
  counters?: () => Promise<Record<string, number>>,
): Promise<StepResult> {
  await beforeEachStep();
  const ids: string[] = [];
  const countersBefore = await counters?.();
  const startedAt = new Map<string, number>();
  let errors = 0;
  let inFlight = 0;
  const cpuBefore = stackCpu(pids, postmaster);
  const benchBefore = process.cpuUsage();
  const t0 = performance.now();
  const samples: [number, number][] = [];
  let offered = 0;
  const ticker = setInterval(async () => {
    const t = (performance.now() - t0) / 1000;
    const older = ids.filter((id) => performance.now() - startedAt.get(id)! > backlogAfterMs);
    const backlog = older.length ? await openCount(older, backlogAfterMs) : 0;
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
  const bench = process.cpuUsage(benchBefore);
  const cpuByProcess = Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, cpuAfter[k] - cpuBefore[k]]));
  const completed = ids.length - (await openCount(ids, 0));
  const cpu = Object.values(cpuByProcess).reduce((s, v) => s + (Number.isNaN(v) ? 0 : v), 0);
  const secondHalf = samples.filter(([t]) => t >= STEP_S / 2);
  const backlogSlope = slope(secondHalf);
  const lifecycles = (await durations(ids)).sort((a, b) => a - b);
  const countersAfter = await counters?.();
  const delta = (name: string) => (countersBefore && countersAfter ? countersAfter[name] - countersBefore[name] : NaN);
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
    benchCpu: completed ? (bench.user + bench.system) / 1e6 / completed : NaN,
    lifecycleP50: pct(lifecycles, 50),
    lifecycleP95: pct(lifecycles, 95),
    ...(counters && completed
      ? {
          cache: {
            hits: delta(CACHE_HITS) / completed,
            misses: delta(CACHE_MISSES) / completed,
            forcedEvictions: delta(CACHE_FORCED_EVICTIONS) / completed,
          },
          fleetPosts: delta(FLEET_POSTS) / completed,
        }
      : {}),
  };
}

/**
 * Steps up through RATES, at each rate every runner still going one after the other; a runner stops at its first rate
 * not sustained. Returns each runner's steps, in the runners' order.
 */
async function stepUpTogether(
  runners: { label: string; run: (rate: number) => Promise<StepResult> }[],
): Promise<StepResult[][]> {
  const results: StepResult[][] = runners.map(() => []);
  const going = new Set(runners.map((_, i) => i));
  for (const rate of RATES) {
    if (going.size === 0) break;
    for (const [i, { label, run }] of runners.entries()) {
      if (!going.has(i)) continue;
      say(`${label}: ${rate} lifecycles/s for ${STEP_S} s`);
      const r = await run(rate);
      results[i].push(r);
      console.log(
        `    ${label} ${rate}/s: ${r.completed}/${r.offered} completed, backlog slope ${r.backlogSlope.toFixed(2)}/s, drained in ${r.drainedInS?.toFixed(0) ?? '-'} s, ` +
          `${r.cpuPerLifecycle.toFixed(3)} CPU s per lifecycle` +
          (r.cache
            ? ` (workflow cache a lifecycle: ${r.cache.hits.toFixed(2)} hits, ${r.cache.misses.toFixed(2)} misses, ${r.cache.forcedEvictions.toFixed(2)} forced evictions)`
            : '') +
          (r.fleetPosts !== undefined ? ` (fleet event posts a lifecycle: ${r.fleetPosts.toFixed(2)})` : '') +
          `: ${r.sustained ? 'sustained' : 'NOT sustained'}`,
      );
      if (!r.sustained) going.delete(i);
    }
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
  /** The histories' size, encoded as Temporal stores and sends them (protobuf bytes). */
  bytes: number;
}

/**
 * Counts over the histories of `workflowIds` (missing ones are skipped). Actions approximate Temporal Cloud's billing:
 * workflow started, signal, update, activity attempt, timer, child start, external signal, search-attribute upsert,
 * continue-as-new, and one per workflow task that ran local activities.
 */
async function countHistories(temporal: Client, workflowIds: string[]): Promise<HistoryCounts> {
  const c = zeroCounts();
  for (const workflowId of workflowIds) {
    let history;
    try {
      history = await temporal.workflow.getHandle(workflowId).fetchHistory();
    } catch {
      continue; // never started (e.g. no webhook for this event)
    }
    c.workflows++;
    c.bytes += protos.temporal.api.history.v1.History.encode(history).finish().length;
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
  'history bytes': Math.round(c.bytes / n),
});

async function main() {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups);
    const postmaster = await postmasterOf(pool);
    const { rows: autovacuum } = await pool.query<{ autovacuum: string }>('SHOW autovacuum');
    if (autovacuum[0].autovacuum !== 'on') {
      say('This Postgres runs without autovacuum: VACUUM (ANALYZE) of the database before each step, not counted');
      beforeEachStep = async () => {
        const t0 = performance.now();
        await pool.query('VACUUM (ANALYZE)');
        console.log(`    VACUUM (ANALYZE) before the step: ${Math.round(performance.now() - t0)} ms`);
      };
    }

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
    const kinds: KindSetup[] = [];
    for (const name of KIND_NAMES_RUN) kinds.push(await setUpKind(pool, sim, name, STEP_MS));

    const receiver = await webhookReceiver(cleanups);
    const smsLine = await setUpSms(cleanups, pool);
    const body = withSmsPhone(QUOTE_BODY);

    const taskQueue = `lifecycle-${Date.now()}`;
    const { apiUrl, api, worker, workerMetricsUrl } = await productionStack(cleanups, {
      databaseUrl,
      temporalAddress,
      taskQueue,
      workerMetrics: true,
    });
    const cacheCounters = () => scrapeCounters(workerMetricsUrl!, [CACHE_HITS, CACHE_MISSES, CACHE_FORCED_EVICTIONS]);
    pids.api = api.pid!;
    pids.worker = worker.pid!;

    // ---- the product, kind by kind: quote + create through the API; the simulator drives each lifecycle ----
    const runners: { label: string; run: (rate: number) => Promise<StepResult> }[] = [];
    for (const kind of kinds) {
      const call = merchantApi(cleanups, apiUrl, kind.secretKey, 64);
      await registerEndpoint(call, receiver.url);
      let made = 0;
      const createOne = async (): Promise<string | null> => {
        const n = made++;
        const cod = Math.floor((n + 1) * COD_SHARE) > Math.floor(n * COD_SHARE);
        const quotes = await call('POST', '/v1/quotes', body);
        if (quotes.status !== 200 || !quotes.json.data.length) return null;
        const created = await call('POST', '/v1/deliveries', {
          quote_id: quotes.json.data[0].quote_id,
          ...body,
          ...(cod ? { payment_method: 'cod', cash_collect_aoa: 1_500_000 } : {}),
        });
        return created.status === 201 ? created.json.id : null;
      };
      const backlogAfterMs = kind.spec.steps * STEP_MS + 1500;
      const label = kind.spec.label;
      say(`${label}: warm-up, 5 lifecycles`);
      const warmUp: string[] = [];
      for (let i = 0; i < 5; i++) warmUp.push((await createOne()) ?? '');
      // Over before the first step, so that their work is not counted in it (at most 60 s).
      await sleep(backlogAfterMs);
      const ready = warmUp.filter(Boolean);
      for (let t = 0; t < 60 && (await openOfKind(pool, kind, ready, 0)) > 0; t++) await sleep(1000);
      runners.push({
        label,
        run: (rate) =>
          runStep(
            label,
            rate,
            pids,
            postmaster,
            createOne,
            (ids, olderThanMs) => openOfKind(pool, kind, ids, olderThanMs),
            (ids) => durationsOfKind(pool, kind, ids),
            backlogAfterMs,
            async () => ({
              ...(await cacheCounters()),
              [FLEET_POSTS]: sim.control
                .bookings(kind.slug)
                .reduce((n, b) => n + b.events.reduce((m, e) => m + e.attempts, 0), 0),
            }),
          ),
      });
    }

    // ---- the floor: the same number of signals, one row per signal by one activity, no API ----
    const referenceKind = kinds.find((k) => k.name === 'normal') ?? kinds[0];
    const signals = Math.round((await eventsPerLifecycle(pool, await sampleOfKind(pool, referenceKind, 5))).signals);
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
    say('floor: warm-up, 5 lifecycles');
    const floorWarmUp = await Promise.all(Array.from({ length: 5 }, () => startFloor()));
    for (let t = 0; t < 60 && (await openFloor(floorWarmUp as string[], 0)) > 0; t++) await sleep(1000);
    runners.push({
      label: 'floor',
      run: (rate) =>
        runStep('floor', rate, floorPids, postmaster, startFloor, openFloor, floorDurations, FLOOR_BACKLOG_AFTER_MS),
    });

    // Rate by rate, each kind and then the floor at the same rate, so that both meet the stack (Temporal's and
    // Postgres's growing state) as it is at that point of the run.
    const results = await stepUpTogether(runners);
    const floor = results.at(-1)!;
    const referenceIndex = kinds.indexOf(referenceKind);
    const pairs = await ceilingPairs(runners[referenceIndex], runners.at(-1)!, results[referenceIndex], floor);
    const measured: KindResult[] = [];
    for (const [i, kind] of kinds.entries()) {
      // Temporal's work per lifecycle, from a sample of the kind's lifecycles (with the return's workflows, if any).
      const sample = await sampleOfKind(pool, kind, SAMPLE);
      let own: HistoryCounts = zeroCounts();
      let all: HistoryCounts = zeroCounts();
      for (const { deliveryIds } of sample) {
        for (const id of deliveryIds) {
          const ids = await workflowIdsOfDelivery(pool, id);
          const o = await countHistories(temporal, [ids.own]);
          own = addCounts(own, o);
          all = addCounts(all, addCounts(o, await countHistories(temporal, ids.related)));
        }
      }
      measured.push({
        kind,
        steps: results[i],
        sampled: sample.length,
        own,
        all,
        ...(await eventsPerLifecycle(pool, sample)),
      });
    }
    const reference = measured.find((m) => m.kind === referenceKind)!;
    const floorHistory = await countHistories(temporal, floorIds.slice(0, SAMPLE));

    // ---- report ----
    const best = (rs: StepResult[]) => rs.filter((r) => r.sustained).at(-1)?.rate ?? 0;
    const first = (rs: StepResult[]) => rs[0]?.cpuPerLifecycle ?? NaN;
    console.log('');
    console.log(
      `Topology: ${TOPOLOGY}. Courier moves every ${STEP_MS} ms; ${signals} fleet events per delivery; one webhook endpoint per merchant; ${Math.round(COD_SHARE * 100)} % of deliveries cash on delivery (BENCH_COD_SHARE).`,
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
        'bench s (not counted)': +r.benchCpu.toFixed(3),
        'lifecycle p50 s': +(r.lifecycleP50 / 1000).toFixed(1),
        'lifecycle p95 s': +(r.lifecycleP95 / 1000).toFixed(1),
        'cache misses /lifecycle': r.cache ? +r.cache.misses.toFixed(2) : '-',
        'fleet posts /lifecycle': r.fleetPosts !== undefined ? +r.fleetPosts.toFixed(2) : '-',
        sustained: r.sustained ? 'yes' : 'NO',
      }));
    console.table([...measured.flatMap((m) => stepRows(m.kind.spec.label, m.steps)), ...stepRows('floor', floor)]);
    console.table([
      ...measured.flatMap((m) => {
        const n = Math.max(1, m.sampled);
        return [
          { what: `${m.kind.spec.label}: its workflows alone (${m.sampled} sampled)`, ...per(m.own, n) },
          { what: `${m.kind.spec.label}: + every workflow started for it`, ...per(m.all, n) },
        ];
      }),
      { what: 'floor workflow', ...per(floorHistory, Math.max(1, Math.min(SAMPLE, floorIds.length))) },
    ]);
    const line = (m: KindResult) =>
      `Recorded events per delivery: ${m.events.toFixed(1)}; workflow tasks of the delivery workflow: ${(m.own.workflowTasks / Math.max(1, m.sampled)).toFixed(1)}.`;
    const others = measured.filter((m) => m !== reference);
    console.log(
      `Sustained: ${best(reference.steps)} lifecycles/s (floor ${best(floor)}/s). CPU per lifecycle at ${RATES[0]}/s: ${first(reference.steps).toFixed(3)} s (floor ${first(floor).toFixed(3)} s). ` +
        `${line(reference)} ${receiver.received()} webhooks received.` +
        (reference.kind.name === 'normal' ? '' : ` (kind ${reference.kind.name})`),
    );
    if (others.length)
      console.log(
        `Sustained: ${others
          .map(
            (m) =>
              `${m.kind.spec.label} ${best(m.steps)}/s, CPU per lifecycle at ${RATES[0]}/s ${first(m.steps).toFixed(3)} s ` +
              `(${(first(m.steps) / first(reference.steps)).toFixed(2)}x the ${reference.kind.spec.label}), ${m.events.toFixed(1)} events, ` +
              `${(m.all.actions / Math.max(1, m.sampled)).toFixed(1)} actions`,
          )
          .join('; ')}.`,
      );
    console.log(ceilingLine(reference.steps, floor, pairs));
    if (smsLine()) console.log(smsLine());
    console.log(`${machineLine()}; API and worker in their own processes; simulator, receiver and load in this one.`);
  } finally {
    await cleanup();
  }
}

/** A delivery step and a floor step at the same rate, one after the other. */
interface Pair {
  delivery: StepResult;
  floor: StepResult;
}

/** The highest rate a runner sustained (0: none). */
const bestRate = (rs: StepResult[]) => rs.filter((r) => r.sustained).at(-1)?.rate ?? 0;

/**
 * The pairs at the highest rate both the delivery and the floor sustained: the step-up's own, then CEILING_REPEATS more,
 * delivery then floor each time (none when no rate was shared).
 */
async function ceilingPairs(
  delivery: { label: string; run: (rate: number) => Promise<StepResult> },
  floor: { label: string; run: (rate: number) => Promise<StepResult> },
  deliverySteps: StepResult[],
  floorSteps: StepResult[],
): Promise<Pair[]> {
  const both = Math.min(bestRate(deliverySteps), bestRate(floorSteps));
  if (both === 0) return [];
  const pairs: Pair[] = [
    { delivery: deliverySteps.find((r) => r.rate === both)!, floor: floorSteps.find((r) => r.rate === both)! },
  ];
  for (let i = 1; i <= CEILING_REPEATS; i++) {
    say(`ceiling, pair ${i + 1} of ${CEILING_REPEATS + 1}: ${delivery.label} then ${floor.label} at ${both}/s`);
    const pair = { delivery: await delivery.run(both), floor: await floor.run(both) };
    console.log(
      `    pair ${i + 1}: ${pair.delivery.cpuPerLifecycle.toFixed(3)} against ${pair.floor.cpuPerLifecycle.toFixed(3)} CPU s per lifecycle ` +
        `(${(pair.delivery.cpuPerLifecycle / pair.floor.cpuPerLifecycle).toFixed(2)}x); sustained: ${pair.delivery.sustained ? 'yes' : 'NO'} / ${pair.floor.sustained ? 'yes' : 'NO'}; ` +
        `by process (${Object.keys(pair.delivery.cpuByProcess).join(' / ')}): ${split(pair.delivery)} against ${split(pair.floor)}` +
        (pair.delivery.cache
          ? `; the delivery's workflow cache a lifecycle: ${pair.delivery.cache.hits.toFixed(2)} hits, ${pair.delivery.cache.misses.toFixed(2)} misses`
          : '') +
        (pair.delivery.fleetPosts !== undefined
          ? `; fleet event posts a lifecycle: ${pair.delivery.fleetPosts.toFixed(2)}`
          : ''),
    );
    pairs.push(pair);
  }
  return pairs;
}

/** A step's CPU per lifecycle by process, as `0.066 / 0.021 / ...`. */
const split = (r: StepResult) =>
  Object.values(r.cpuByProcess)
    .map((v) => v.toFixed(3))
    .join(' / ');

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The ceiling: the highest rate the delivery sustains against the floor's (target: the same), and the CPU per lifecycle
 * of both at the highest rate both sustained, the median of the pairs' ratios (target: at most CEILING_CPU_TARGET
 * times the floor's). Sets the exit code when a target is missed; says so when the rates tried never reached the
 * floor's limit.
 */
function ceilingLine(delivery: StepResult[], floor: StepResult[], pairs: Pair[]): string {
  const [d, f] = [bestRate(delivery), bestRate(floor)];
  const both = Math.min(d, f);
  const ratios = pairs.map((p) => p.delivery.cpuPerLifecycle / p.floor.cpuPerLifecycle);
  const ratio = median(ratios);
  const rateMet = d >= f;
  const cpuMet = ratio <= CEILING_CPU_TARGET;
  if (!rateMet || !cpuMet) process.exitCode = 1;
  const reached = floor.some((r) => !r.sustained);
  const none = (rate: number, rs: StepResult[]) =>
    rate === 0 ? ` (none of the rates tried, from ${rs[0]?.rate}/s)` : '';
  if (both === 0) {
    return (
      `Ceiling: the delivery sustains ${d}/s${none(d, delivery)}, the floor ${f}/s${none(f, floor)} ` +
      `(target: the floor's rate: ${rateMet ? 'met' : 'MISSED'}); no rate both sustained: no CPU comparison (MISSED).`
    );
  }
  const cpu = (pick: (p: Pair) => StepResult) => median(pairs.map((p) => pick(p).cpuPerLifecycle)).toFixed(3);
  const kept = pairs.slice(1).every((p) => p.delivery.sustained && p.floor.sustained);
  return (
    `Ceiling: the delivery sustains ${d}/s, the floor ${f}/s${reached ? '' : ` (the floor kept up at every rate tried: add higher BENCH_RATES)`} ` +
    `(target: the floor's rate: ${rateMet ? 'met' : 'MISSED'}); at ${both}/s, over ${pairs.length} pairs (delivery then floor), ` +
    `CPU per lifecycle ${cpu((p) => p.delivery)} s against the floor's ${cpu((p) => p.floor)} s (medians); the median pair ` +
    `${ratio.toFixed(2)}x (pairs ${ratios.map((r) => r.toFixed(2)).join(', ')}; target <= ${CEILING_CPU_TARGET}x: ${cpuMet ? 'met' : 'MISSED'})` +
    `${kept ? '' : '; a repeated pair did not sustain the rate'}.`
  );
}

function zeroCounts(): HistoryCounts {
  return { workflows: 0, events: 0, workflowTasks: 0, activities: 0, localActivities: 0, actions: 0, bytes: 0 };
}
function addCounts(a: HistoryCounts, b: HistoryCounts): HistoryCounts {
  return {
    workflows: a.workflows + b.workflows,
    events: a.events + b.events,
    workflowTasks: a.workflowTasks + b.workflowTasks,
    activities: a.activities + b.activities,
    localActivities: a.localActivities + b.localActivities,
    actions: a.actions + b.actions,
    bytes: a.bytes + b.bytes,
  };
}

main().catch((err) => {
  console.error('The benchmark failed:', err);
  console.error(
    'Is Postgres reachable (DATABASE_URL or 127.0.0.1:5432) and TEMPORAL_ADDRESS (if set) up? Run `npm run build` alone to see build errors.',
  );
  process.exit(1);
});
