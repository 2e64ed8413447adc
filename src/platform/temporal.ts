// Connections to Temporal. Development talks plain gRPC to the local dev server; a real cluster or Temporal Cloud
// takes TLS (server CA, SNI name), mTLS (client certificate and key) and/or an API key, from TEMPORAL_TLS_* and
// TEMPORAL_API_KEY. The API's Connection and the worker's NativeConnection are built from the same options.
import {
  Client,
  Connection,
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  type ScheduleOptionsStartWorkflowAction,
  type TLSConfig,
  type Workflow,
  type WorkflowStartOptions,
} from '@temporalio/client';
import fs from 'node:fs';
import type { Config } from './config.js';
import { temporalClientInterceptors } from './observability/tracing.js';

export type TemporalConfig = Pick<Config, 'temporalAddress' | 'temporalNamespace' | 'temporalTls' | 'temporalApiKey'>;

/** What Connection.connect and NativeConnection.connect both take: the address, TLS and the API key. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

/** The API's connection to the Temporal frontend: how long the first connection may take. */
export const TEMPORAL_CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long delivery creation waits for its workflow's start. The delivery is committed first; past this the merchant
 * gets the delivery anyway and the worker's reconciler starts the workflow once Temporal answers again.
 */
export const WORKFLOW_START_DEADLINE_MS = 5000;

function readPem(variable: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new Error(
      `${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/**
 * The connection options from the configuration; reads the PEM files now, so a missing or unreadable file fails
 * at start with the variable's name. TLS is on when asked for (TEMPORAL_TLS=true) or when any TLS setting or an
 * API key is given (Temporal Cloud); TEMPORAL_TLS=false keeps an API key on plain gRPC (e.g. behind a local proxy).
 */
export function temporalConnectionOptions(
  config: Pick<TemporalConfig, 'temporalAddress' | 'temporalTls' | 'temporalApiKey'>,
): TemporalConnectionOptions {
  const { enabled, certPath, keyPath, caPath, serverName } = config.temporalTls ?? {};
  const apiKey = config.temporalApiKey;
  if (Boolean(certPath) !== Boolean(keyPath)) {
    throw new Error(
      'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its private key, for mTLS)',
    );
  }
  const anyTls = Boolean(certPath || caPath || serverName);
  if (enabled === false && anyTls)
    throw new Error('TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT / _KEY / _CA / _SERVER_NAME');
  const options: TemporalConnectionOptions = { address: config.temporalAddress };
  if (apiKey) options.apiKey = apiKey;
  if (enabled === false) {
    options.tls = false;
    return options;
  }
  if (!anyTls && !enabled && !apiKey) return options; // plain gRPC: the dev server
  const tls: TLSConfig = {};
  if (serverName) tls.serverNameOverride = serverName;
  if (caPath) tls.serverRootCACertificate = readPem('TEMPORAL_TLS_CA', caPath);
  if (certPath && keyPath)
    tls.clientCertPair = { crt: readPem('TEMPORAL_TLS_CERT', certPath), key: readPem('TEMPORAL_TLS_KEY', keyPath) };
  options.tls = tls;
  return options;
}

/**
 * A client of the namespace. With tracing on (src/platform/observability/tracing.ts) its workflow starts, signals, updates and
 * queries carry the caller's trace context into the workflow.
 */
export function temporalClient(connection: Connection, namespace: string): Client {
  return new Client({ connection, namespace, interceptors: { workflow: temporalClientInterceptors() } });
}

/** The API's (and the admin command's) client. */
export async function connectTemporal(config: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect({
    ...temporalConnectionOptions(config),
    connectTimeout: TEMPORAL_CONNECT_TIMEOUT_MS,
  });
  return temporalClient(connection, config.temporalNamespace);
}

/**
 * Starts a workflow that runs at most once per workflow id (its reuse policy rejects a duplicate): a start that finds
 * the id taken (running, or run already) counts as done, so the callers (a retried activity, the reconciler, a second
 * worker) can all try it.
 */
export async function startWorkflowOnce<T extends Workflow>(
  client: Client,
  workflow: T | string,
  options: WorkflowStartOptions<T>,
): Promise<void> {
  try {
    await client.workflow.start(workflow, options);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * A Temporal Schedule that starts `action` every `everyMs`, one run at a time (a run still going when the next is due
 * makes the schedule skip that one). Every worker replica calls this at start-up: the first creates the schedule, the
 * others (and later starts, perhaps with another interval or task queue) update it to the current settings.
 */
export async function upsertSchedule(
  client: Client,
  scheduleId: string,
  everyMs: number,
  action: ScheduleOptionsStartWorkflowAction<Workflow>,
): Promise<void> {
  const spec = { intervals: [{ every: everyMs }] };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(scheduleId)
      .update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, ...policies } }));
  }
}
