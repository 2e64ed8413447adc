// The Temporal worker: runs workflows/ (from the prebuilt bundle) and activities/ on task queue `deliveries`.
import { NativeConnection, Worker } from '@temporalio/worker';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { createActivities } from '../activities/index.js';
import { reconcileOnce } from './deliveries/start.js';
import { sweepUndispatched } from './webhooks/dispatcher.js';
import { restartClosedSince } from './deliveries/recovery.js';
import { loadConfig, type Config } from './platform/config.js';
import { createPool, type Pool } from './platform/db.js';
import { BUNDLE_PATH, bundleVariant, ensureWorkflowBundle } from './platform/workflow-bundle.js';
import { ensurePurgeSchedule } from './maintenance/schedule.js';
import { onParentExit } from './platform/parent.js';
import { temporalClient, temporalConnectionOptions } from './platform/temporal.js';
import { createLogger } from './platform/observability/logger.js';
import { setCodOverdueSource, setDeliveryStatusSource } from './platform/observability/metrics.js';
import { overdueByCompany } from './cod/repository.js';
import { ensureCodOverdueSchedule } from './cod/schedule.js';
import { startMetricsServer, type MetricsServer } from './platform/observability/metrics-server.js';
import { countOpenDeliveriesByStatus } from './deliveries/metrics-repository.js';
import { activityLogContext, installWorkerRuntime } from './platform/observability/temporal-runtime.js';
import { freePort } from './platform/net.js';
import { createSmsTransport } from './notifications/transports.js';
import { createSmsOutbox } from './notifications/outbox.js';
import { defaultMaxCachedWorkflows } from './platform/workflow-cache.js';
import {
  startTracing,
  stopTracing,
  tracingActivityInterceptors,
  workflowTracingSinks,
} from './platform/observability/tracing.js';

export interface WorkerOptions {
  config: Config;
  pool: Pool;
  connection: NativeConnection;
  taskQueue?: string;
  /** The workflow bundle to run; by default the one of `config.workflowStackTraces`, built when missing or stale. */
  bundlePath?: string;
  /** The outbox starts webhook retry workflows with it (without it, the sweeper of another worker does). */
  temporal?: Client;
}

export async function createWorker(options: WorkerOptions): Promise<Worker> {
  const { config, pool, connection } = options;
  return Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: options.taskQueue ?? config.taskQueue,
    workflowBundle: {
      codePath:
        options.bundlePath ?? (await ensureWorkflowBundle(bundleVariant(BUNDLE_PATH, config.workflowStackTraces))),
    },
    // Sized from the machine unless WORKER_MAX_CACHED_WORKFLOWS says (src/platform/workflow-cache.ts).
    maxCachedWorkflows: config.workerMaxCachedWorkflows ?? defaultMaxCachedWorkflows(),
    activities: createActivities({ config, pool, temporal: options.temporal }),
    // Activity log lines name their delivery and tenant; with tracing on, activities continue their workflow's trace.
    interceptors: { activity: [activityLogContext, ...tracingActivityInterceptors()] },
    // Where the workflow interceptors (workflows/lib/observability.ts) send a traced workflow's spans.
    sinks: workflowTracingSinks(),
  });
}

/**
 * The worker's metrics on `port` (GET /metrics): the process registry (deliveries by status from `pool`, transitions,
 * stalls, redispatches, courier calls, webhooks) followed by Temporal Core's own metrics, read from `coreMetricsUrl`.
 */
export async function startWorkerMetrics(
  config: Config,
  pool: Pool,
  port: number,
  coreMetricsUrl?: string,
): Promise<MetricsServer> {
  setDeliveryStatusSource(() => countOpenDeliveriesByStatus(pool), config.metricsStatusCacheMs);
  setCodOverdueSource(async () => overdueByCompany(pool), config.metricsStatusCacheMs);
  return startMetricsServer({ port, host: config.metricsHost, also: coreMetricsUrl ? [coreMetricsUrl] : [] });
}

/** The reconciler's steps, in the order of a pass; each gets its own try/catch, so one failing skips none of the others. */
export interface ReconcilerSteps {
  restartClosedSince: typeof restartClosedSince;
  reconcileOnce: typeof reconcileOnce;
  sweepUndispatched: typeof sweepUndispatched;
}

/**
 * Every `intervalMs`: starts again the workflow of any delivery that is not final but whose workflow was closed by hand
 * (src/deliveries/recovery.ts), starts any delivery whose workflow never started (a crash between commit and start),
 * and hands webhook messages whose worker died before sending them to their retry workflow (src/webhooks/dispatcher.ts).
 */
export function startReconciler(
  client: Client,
  pool: Pool,
  config: Config,
  intervalMs = config.reconcileIntervalMs,
  steps: ReconcilerSteps = { restartClosedSince, reconcileOnce, sweepUndispatched },
): () => void {
  let running = false;
  // Workflows closed by hand are looked for since the last pass (with a minute of overlap; the first pass: an hour).
  let since = new Date(Date.now() - 3_600_000);
  /** Runs one step; a failure is logged with the step's name, and the pass goes on with the next step. */
  const step = async (name: keyof ReconcilerSteps, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      console.error(`Reconciler step ${name} failed (the other steps ran; retried next pass):`, (err as Error).message);
    }
  };
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await step('restartClosedSince', async () => {
        const passStarted = new Date();
        const restarted = await steps.restartClosedSince(client, pool, config, since);
        if (restarted > 0)
          console.log(`Reconciler restarted the workflow of ${restarted} delivery(ies) closed by hand.`);
        // Only after a successful look: a failed one is looked at again from the same point.
        since = new Date(passStarted.getTime() - 60_000);
      });
      await step('reconcileOnce', async () => {
        const started = await steps.reconcileOnce(client, pool, config);
        if (started > 0) console.log(`Reconciler started ${started} missing delivery workflow(s).`);
      });
      await step('sweepUndispatched', async () => {
        const swept = await steps.sweepUndispatched(client, pool, config);
        if (swept > 0) console.log(`Reconciler handed ${swept} unsent webhook message(s) to their retry workflow.`);
      });
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

async function main() {
  const config = loadConfig();
  // One JSON line per record on stdout, like the API. The worker's console lines (start-up, the reconciler's passes)
  // become JSON lines too, printed whatever LOG_LEVEL says, as they always were.
  const logger = createLogger(config.logLevel, 'worker');
  const consoleLogger = logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' });
  console.log = (...args: unknown[]) => consoleLogger.info(format(...args));
  console.error = (...args: unknown[]) => consoleLogger.error(format(...args));
  await startTracing('delivery-worker');
  // Temporal Core serves the SDK's metrics on a loopback port; the worker's listener serves them with its own.
  const coreMetricsAddress = config.workerMetricsPort !== undefined ? `127.0.0.1:${await freePort()}` : undefined;
  installWorkerRuntime(logger, { coreMetricsAddress });
  const pool = createPool(config.databaseUrl, config.workerDatabasePoolSize, {
    preparedStatements: config.databasePreparedStatements,
  });
  // Same address, TLS / mTLS and API key as the API's connection (src/platform/temporal.ts).
  const connectionOptions = temporalConnectionOptions(config);
  const connection = await NativeConnection.connect(connectionOptions);
  const client = temporalClient(await Connection.connect(connectionOptions), config.temporalNamespace);
  const worker = await createWorker({
    config,
    pool,
    connection,
    // A prebuilt bundle (the image's); WORKFLOW_STACK_TRACES picks its sibling with stack traces.
    bundlePath: process.env.WORKFLOW_BUNDLE_PATH
      ? bundleVariant(process.env.WORKFLOW_BUNDLE_PATH, config.workflowStackTraces)
      : undefined,
    temporal: client,
  });
  const metrics =
    config.workerMetricsPort !== undefined
      ? await startWorkerMetrics(config, pool, config.workerMetricsPort, `http://${coreMetricsAddress}/metrics`)
      : null;
  if (metrics) logger.info({ url: metrics.url }, 'Worker metrics listening');
  const stopReconciler = startReconciler(client, pool, config);
  // Recipients' SMS leave from here (docs/recipients.md "The outbox"), never from a delivery's workflow.
  const smsTransport = createSmsTransport(config, logger);
  const smsOutbox = createSmsOutbox({
    pool,
    transport: smsTransport,
    window: config.sms.window,
    log: { info: (m, attrs) => logger.info(attrs ?? {}, m), warn: (m, attrs) => logger.warn(attrs ?? {}, m) },
  });
  smsOutbox.start();
  // The hourly purge of expired rows (docs/operations.md "Retention"); a failure here must not stop the worker.
  await ensurePurgeSchedule(client, config).catch((err) =>
    console.error('Could not create or update the maintenance-purge schedule:', (err as Error).message),
  );
  // Cash on delivery's overdue sweep (docs/cash-on-delivery.md "Overdue"), same rule.
  await ensureCodOverdueSchedule(client, config).catch((err) =>
    console.error('Could not create or update the cod-overdue schedule:', (err as Error).message),
  );
  onParentExit(() => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  });
  console.log(
    `Worker polling task queue "${config.taskQueue}" on ${config.temporalAddress}; up to ${worker.options.maxCachedWorkflows} workflows cached`,
  );
  await worker.run();
  stopReconciler();
  await smsOutbox.stop();
  await smsTransport?.close();
  await metrics?.close();
  await stopTracing();
  await connection.close();
  await pool.end();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error('Worker failed:', err);
    console.error('Is Temporal reachable at TEMPORAL_ADDRESS and Postgres at DATABASE_URL? `npm run dev` starts both.');
    process.exit(1);
  });
}
