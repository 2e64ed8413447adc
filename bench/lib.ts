// Shared pieces of the benchmarks: bounded load loops with progress, percentiles, and a bench stack
// (fresh Postgres database, Temporal from TEMPORAL_ADDRESS or a dev server of its own, the API in this
// process, optionally a worker) that cleans up after itself.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString, type Worker } from '@temporalio/worker';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { Pool as HttpPool } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig, ROOT_DIR, type Config } from '../src/platform/config.js';
import { createPool, type Pool } from '../src/platform/db.js';
import { createWorker } from '../src/worker.js';
import { normalisePayload, payloadHash } from '../src/quotes/payload.js';
import type { QuoteRequest } from '../src/quotes/schemas.js';
import { buildWorkflowBundle } from '../src/platform/workflow-bundle.js';
import { databaseUrlFor, dropDatabase, ensureDatabase, migrate, resolvePostgres } from '../scripts/lib/postgres.js';
import { startTemporalDevServer } from '../scripts/lib/temporal-cli.js';
import { freePort, waitForPort } from '../scripts/lib/net.js';
import { Proc, productionBuild } from '../scripts/lib/processes.js';

/** What the lifecycle and memory benchmarks quote and book, through the API, with the simulator's couriers. */
export const QUOTE_BODY = {
  origin: { address_line: 'Rua Rainha Ginga 29', city: 'Luanda', province: 'Luanda' },
  destination: { address_line: 'Avenida Deolinda Rodrigues 512', city: 'Luanda', province: 'Luanda' },
  parcel: { weight_grams: 1200 },
};

export const say = (line: string) => console.log(`\x1b[36m==>\x1b[0m ${line}`);

export const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN;

export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

/** `concurrency` loops calling `fn` for `seconds` (or until `maxRequests`); a progress line every second. */
export async function load(
  name: string,
  seconds: number,
  concurrency: number,
  fn: () => Promise<boolean>,
  options: { quiet?: boolean; maxRequests?: number } = {},
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let lastPrinted = 0;
  const ticker = options.quiet
    ? null
    : setInterval(() => {
        const sorted = latencies.slice(lastPrinted).sort((a, b) => a - b);
        lastPrinted = latencies.length;
        const elapsed = ((performance.now() - started) / 1000).toFixed(0).padStart(3);
        console.log(
          `    [${name}] ${elapsed} s  ${String(latencies.length).padStart(6)} done  last second p50 ${pct(sorted, 50).toFixed(1)} ms  p99 ${pct(sorted, 99).toFixed(1)} ms  errors ${errors}`,
        );
      }, 1000);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && (options.maxRequests === undefined || issued < options.maxRequests)) {
        issued++;
        const t0 = performance.now();
        let ok = false;
        try {
          ok = await fn();
        } catch {
          ok = false;
        }
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  if (ticker) clearInterval(ticker);
  return { name, requests: latencies.length, errors, seconds: (performance.now() - started) / 1000, latencies };
}

export function summarise(r: LoadResult, label = r.name) {
  const s = [...r.latencies].sort((a, b) => a - b);
  return {
    scenario: label,
    requests: r.requests,
    'req/s': Math.round(r.requests / r.seconds),
    'p50 ms': +pct(s, 50).toFixed(1),
    'p95 ms': +pct(s, 95).toFixed(1),
    'p99 ms': +pct(s, 99).toFixed(1),
    'max ms': +(s[s.length - 1] ?? NaN).toFixed(1),
    errors: r.errors,
  };
}

export const machineLine = () =>
  `Node ${process.version}, ${os.cpus().length} CPU (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`;

export type Cleanups = (() => Promise<unknown>)[];

/** What a benchmark sets up, undone in reverse order by `cleanup` (once), also on Ctrl-C. */
export function cleanupList(): { cleanups: Cleanups; cleanup: () => Promise<void> } {
  const cleanups: Cleanups = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
    cleanups.length = 0;
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  return { cleanups, cleanup };
}

/** A migrated database of the benchmark's own (`name`, or a fresh `delivery_api_bench_<time>` dropped at the end). */
export async function benchDatabase(cleanups: Cleanups, name?: string): Promise<string> {
  const pg = await resolvePostgres(say);
  cleanups.push(() => pg.stop());
  const databaseUrl = databaseUrlFor(pg.serverUrl, name ?? `delivery_api_bench_${Date.now()}`);
  say(`Postgres database ${new URL(databaseUrl).pathname.slice(1)} (${pg.source})`);
  await ensureDatabase(databaseUrl);
  if (!name) cleanups.push(() => dropDatabase(databaseUrl));
  await migrate(databaseUrl);
  return databaseUrl;
}

/** A benchmark database (as benchDatabase: `name`, kept, or a fresh one dropped at the end) and a small pool on it (closed at the end). */
export async function benchDatabaseWithPool(
  cleanups: Cleanups,
  name?: string,
): Promise<{ databaseUrl: string; pool: Pool }> {
  const databaseUrl = await benchDatabase(cleanups, name);
  const pool = createPool(databaseUrl, 4, { queryTimeoutMs: 0 });
  cleanups.push(() => pool.end());
  return { databaseUrl, pool };
}

/**
 * Temporal for a benchmark: TEMPORAL_ADDRESS when set, else a dev server of its own (its pid, for CPU accounting), in
 * memory unless BENCH_TEMPORAL_DB_FILE names the SQLite file to keep its state in (as `npm run dev` does).
 */
export async function benchTemporal(cleanups: Cleanups): Promise<{ address: string; pid: number | null }> {
  if (process.env.TEMPORAL_ADDRESS) {
    say(`Temporal at ${process.env.TEMPORAL_ADDRESS} (TEMPORAL_ADDRESS)`);
    return { address: process.env.TEMPORAL_ADDRESS, pid: null };
  }
  const port = await freePort();
  say(`Temporal dev server on port ${port}`);
  const server = await startTemporalDevServer({
    port,
    headless: true,
    ...(process.env.BENCH_TEMPORAL_DB_FILE ? { dbFile: process.env.BENCH_TEMPORAL_DB_FILE } : {}),
    logFile: path.join(ROOT_DIR, '.build', 'bench-temporal.log'),
  });
  cleanups.push(() => server.stop());
  return { address: server.address, pid: server.child.pid ?? null };
}

/** A merchant webhook receiver on 127.0.0.1 that answers 200 and counts what it got. */
export async function webhookReceiver(cleanups: Cleanups): Promise<{ url: string; received: () => number }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received: () => received };
}

/** A merchant's HTTP client of the API (JSON in, JSON out, the secret key), closed with the other cleanups. */
export function merchantApi(cleanups: Cleanups, apiUrl: string, secretKey: string, connections: number) {
  const client = new HttpPool(apiUrl, { connections });
  cleanups.push(() => client.close());
  return async (method: 'GET' | 'POST', pathname: string, body?: unknown) => {
    const res = await client.request({
      method,
      path: pathname,
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  };
}

/** Registers the benchmark's webhook receiver as the tenant's one endpoint. */
export async function registerEndpoint(call: ReturnType<typeof merchantApi>, url: string): Promise<void> {
  const endpoint = await call('POST', '/v1/webhook_endpoints', { url });
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.json)}`);
}

/**
 * The production build (npm run build), then the API and the worker, each in its own process with the production
 * flags (npm run start:api / start:worker), on the benchmark's database and Temporal; stopped with the cleanups.
 */
export async function productionStack(
  cleanups: Cleanups,
  options: { databaseUrl: string; temporalAddress: string; taskQueue: string; workerMetrics?: boolean },
): Promise<{
  apiUrl: string;
  api: ChildProcess;
  worker: ChildProcess;
  stopWorker: () => Promise<void>;
  /** The worker's GET /metrics (with Temporal Core's), when `workerMetrics` was asked for. */
  workerMetricsUrl?: string;
}> {
  const apiPort = await freePort();
  const workerMetricsPort = options.workerMetrics ? await freePort() : undefined;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env = {
    ...process.env,
    DATABASE_URL: options.databaseUrl,
    TEMPORAL_ADDRESS: options.temporalAddress,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: apiUrl,
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    ALLOW_LOOPBACK_WEBHOOKS: 'true', // the webhook receiver listens on 127.0.0.1
    ...(workerMetricsPort ? { WORKER_METRICS_PORT: String(workerMetricsPort) } : {}),
  };
  say('Production build (npm run build), then the API and the worker, each in its own process');
  productionBuild();
  const start = (script: 'start:api' | 'start:worker'): Proc => {
    // BENCH_CPU_PROF=<dir>: each process writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
    const nodeFlags = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const proc = Proc.production(script, script, { env, nodeFlags });
    cleanups.push(() => proc.stop());
    proc.start();
    return proc;
  };
  const worker = start('start:worker');
  const api = start('start:api');
  await waitForPort(apiPort, '127.0.0.1', 60_000);
  if (workerMetricsPort) await waitForPort(workerMetricsPort, '127.0.0.1', 60_000);
  return {
    apiUrl,
    api: api.child!,
    worker: worker.child!,
    stopWorker: () => worker.stop(),
    workerMetricsUrl: workerMetricsPort ? `http://127.0.0.1:${workerMetricsPort}/metrics` : undefined,
  };
}

/**
 * The sum of each named counter over its labels in a Prometheus text exposition (`url`), e.g. Temporal Core's
 * `temporal_sticky_cache_miss_total`; 0 for a name not there, NaN for all when the page cannot be read.
 */
export async function scrapeCounters(url: string, names: readonly string[]): Promise<Record<string, number>> {
  const sums: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  try {
    const text = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
    for (const line of text.split('\n')) {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (m && m[1] in sums) sums[m[1]] += Number(m[3]);
    }
    return sums;
  } catch {
    return Object.fromEntries(names.map((n) => [n, NaN]));
  }
}

export interface BenchStack {
  config: Config;
  pool: Pool;
  temporal: Client;
  app: FastifyInstance;
  url: string;
  worker: Worker | null;
  databaseUrl: string;
  /** Runs `fn` at cleanup (last registered, first run). */
  onCleanup(fn: () => Promise<unknown>): void;
  close(): Promise<void>;
}

export interface BenchStackOptions {
  /** Database name; a fresh `delivery_api_bench_<time>` (dropped at the end) when absent. A named one is kept. */
  database?: string;
  withWorker?: boolean;
  config?: Partial<Config>;
}

/** The worker in this process, polling the stack's task queue until stopped (at cleanup at the latest). */
async function benchWorker(
  cleanups: Cleanups,
  config: Config,
  databaseUrl: string,
  temporal: Client,
  temporalAddress: string,
): Promise<Worker> {
  say('Worker in this process');
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
  });
  const native = await NativeConnection.connect({ address: temporalAddress });
  const workerPool = createPool(databaseUrl, 20);
  const bundlePath = await buildWorkflowBundle(path.join(ROOT_DIR, '.build', 'workflow-bundle.bench.js'));
  const worker = await createWorker({ config, pool: workerPool, connection: native, bundlePath, temporal });
  const running = worker.run();
  cleanups.push(async () => {
    worker.shutdown();
    await running.catch(() => {});
    await native.close();
    await workerPool.end();
  });
  return worker;
}

export async function startBenchStack(options: BenchStackOptions = {}): Promise<BenchStack> {
  const { cleanups, cleanup: close } = cleanupList();
  try {
    const databaseUrl = await benchDatabase(cleanups, options.database);
    const { address: temporalAddress } = await benchTemporal(cleanups);

    const port = await freePort();
    const config: Config = {
      ...loadConfig({}),
      databaseUrl,
      temporalAddress,
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      taskQueue: `bench-${Date.now()}`,
      logLevel: 'silent',
      rateLimitPerMinute: 100_000_000,
      widgetRateLimitPerMinute: 100_000_000,
      allowLoopbackWebhooks: true, // the benchmark's webhook receiver listens on 127.0.0.1
      ...options.config,
    };
    const pool = createPool(databaseUrl, 20);
    cleanups.push(() => pool.end());
    const connection = await Connection.connect({ address: temporalAddress });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection, namespace: config.temporalNamespace });

    const worker = options.withWorker
      ? await benchWorker(cleanups, config, databaseUrl, temporal, temporalAddress)
      : null;

    say('API in this process');
    const app = await buildApp({ config, pool, temporal }, { logger: false });
    await app.listen({ port, host: '127.0.0.1' });
    cleanups.push(() => app.close());
    return {
      config,
      pool,
      temporal,
      app,
      url: config.baseUrl,
      worker,
      databaseUrl,
      onCleanup: (fn) => cleanups.push(fn),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `count` unused quotes for `body` with one company, written straight into Postgres (benchmarks measure
 *  creation, not quoting); returns their ids. */
export async function quotesAhead(
  pool: Pool,
  tenantId: string,
  companyId: string,
  body: QuoteRequest,
  count: number,
  feeAoa = 150_000,
): Promise<string[]> {
  const normalised = normalisePayload(body);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash)
     SELECT gen_random_uuid(), $1, $2, $8, 60, now() + interval '1 hour', $3, $4, $5, $6 FROM generate_series(1, $7)
     RETURNING id`,
    [
      tenantId,
      companyId,
      normalised.origin,
      normalised.destination,
      normalised.parcel,
      payloadHash(body),
      count,
      feeAoa,
    ],
  );
  return rows.map((r) => r.id);
}

// ---- CPU accounting from /proc (Linux) -------------------------------------------------------------------------

const CLOCK_TICKS_PER_S = 100; // USER_HZ: 100 on every Linux this runs on (`getconf CLK_TCK`)

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** Own CPU (user + system) and that of reaped children, seconds. */
  self: number;
  children: number;
}

function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // exited
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const f = text.slice(close + 2).split(' '); // f[0] = state (field 3)
  const at = (field: number) => Number(f[field - 3]);
  return {
    pid,
    ppid: at(4),
    comm,
    self: (at(14) + at(15)) / CLOCK_TICKS_PER_S,
    children: (at(16) + at(17)) / CLOCK_TICKS_PER_S,
  };
}

function allProcs(): ProcStat[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => procStat(Number(name)))
    .filter((s): s is ProcStat => s !== null);
}

/**
 * CPU seconds used so far by the processes of a stack: the given pids (with their reaped children) and the PostgreSQL
 * server `postmaster` (with its reaped children plus its live backends, so backends that come and go are counted
 * too; other databases of that server count as well). Take one reading before and one after, and subtract.
 */
export function stackCpu(pids: Record<string, number>, postmaster: number): Record<string, number> {
  const procs = allProcs();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const p = byPid.get(pid);
    out[name] = p ? p.self + p.children : NaN;
  }
  const server = byPid.get(postmaster);
  out.postgres = server
    ? server.self + server.children + procs.filter((p) => p.ppid === postmaster).reduce((sum, p) => sum + p.self, 0)
    : NaN;
  return out;
}

/** The pid of the postmaster serving `pool` (the parent of one of its backends): stackCpu counts that server only. */
export async function postmasterOf(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = procStat(rows[0].pid);
  if (!backend) throw new Error('Postgres runs on another machine: its CPU cannot be read from /proc');
  return backend.ppid;
}

/** Pids of running processes whose command line matches `pattern` (e.g. the Temporal server's processes). */
export function pidsMatching(pattern: RegExp): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return pattern.test(fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' '));
      } catch {
        return false;
      }
    })
    .map(Number);
}
