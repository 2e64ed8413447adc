// What the crash tests share (test/chaos: dev server; test/cluster: the Temporal cluster): the merchant's webhook
// receiver, couriers in the simulator, the settings of the API and worker processes, clients that retry through
// outages, the loop of kills and restarts, and the invariants checked at the end.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { createSimulator, newFleetSecret, type Simulator } from '../../simulator/server.js';
import {
  databaseUrlFor,
  ensureDatabase,
  migrate,
  startEmbeddedPostgres,
  type EmbeddedServer,
} from '../../scripts/lib/postgres.js';
import { freePort, waitForPort } from '../../scripts/lib/net.js';
import { Proc } from '../../scripts/lib/processes.js';
import { ROOT_DIR } from '../../src/platform/config.js';
import { buildWorkflowBundle } from '../../src/platform/workflow-bundle.js';
import { chainProblems } from './event-chain.js';
import { DESTINATION, ORIGIN, PARCEL } from './fixtures.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const logger = (name: string) => (line: string) =>
  console.log(`[${name} ${new Date().toISOString().slice(11, 19)}] ${line}`);

export interface Workspace {
  dir: string;
  postgres: EmbeddedServer;
  databaseUrl: string;
  pool: pg.Pool;
  /** Stops Postgres and removes the folder (kept with KEEP_CHAOS_DIR=1). */
  remove(): Promise<void>;
}

/**
 * A working folder for the processes' logs and an embedded PostgreSQL 15 in it with a migrated database `name`: a
 * Postgres of the test's own, so restarting it disturbs nothing else on the machine. `maxConnections` as
 * startEmbeddedPostgres.
 */
export async function chaosWorkspace(
  name: string,
  log: (line: string) => void,
  maxConnections?: number,
): Promise<Workspace> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  fs.chmodSync(dir, 0o755); // the embedded server runs as the postgres user when we are root
  log(`working folder ${dir}`);
  const postgres = await startEmbeddedPostgres(path.join(dir, 'pg'), await freePort(), maxConnections);
  const databaseUrl = databaseUrlFor(postgres.serverUrl, name);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => {});
  return {
    dir,
    postgres,
    databaseUrl,
    pool,
    async remove() {
      await pool.end().catch(() => {});
      await postgres.stop().catch(() => {});
      if (process.env.KEEP_CHAOS_DIR) log(`kept ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Settings of the API and worker processes under test: no rate limit, fast reconciler, retries and webhooks. */
export const CHAOS_ENV = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '10000000',
  RECONCILE_INTERVAL_MS: '2000',
  DISPATCH_MAX_ATTEMPTS: '30',
  DISPATCH_INITIAL_INTERVAL_MS: '500',
  WEBHOOK_SCHEDULE_MS: JSON.stringify([0, 1000, 2000, 5000, 5000, 10000, 10000, 20000, 30000, 60000]),
  ALLOW_LOOPBACK_WEBHOOKS: 'true', // the receiver listens on 127.0.0.1
};

export interface Receiver {
  url: string;
  /** event id -> webhook-ids it arrived under */
  received: Map<string, Set<string>>;
  /** Webhooks answered 2xx, repeats included (a retry after a lost answer arrives again). */
  hits: number;
  badSignatures(): number;
  /** The endpoint's signing secret, once registered (registerReceiver). */
  secret?: string;
  close(): void;
}

/** The merchant's receiver: checks every signature, remembers which webhook-ids each event came under. */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  let bad = 0;
  const receiver: Receiver = {
    url: '',
    received: new Map(),
    hits: 0,
    badSignatures: () => bad,
    close: () => server.close(),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const payload = new Webhook(receiver.secret!).verify(body, req.headers as Record<string, string>) as {
          data: { event: { id: string } };
        };
        const ids = receiver.received.get(payload.data.event.id) ?? new Set<string>();
        ids.add(String(req.headers['webhook-id']));
        receiver.received.set(payload.data.event.id, ids);
        receiver.hits++;
        res.writeHead(200).end();
      } catch {
        bad++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  receiver.url = `http://${host}:${(server.address() as { port: number }).port}/hooks`;
  return receiver;
}

/**
 * The courier simulator with two couriers linked to the tenant, moving every job along every 400 ms and retrying each
 * fleet event for up to 10 minutes (a real courier retries for hours): an event the service cannot take yet (down, or
 * the job not yet known) waits. `host`: where the simulator listens (test/cluster/partition.test.ts: the root
 * namespace's edge address); `endpoint` maps the simulator's endpoint of a courier to the one the service calls
 * (test/faults: through a proxy).
 */
export async function startCouriers(
  pool: pg.Pool,
  tenantId: string,
  logFile: string,
  options: { host?: string; endpoint?: (direct: string) => string } = {},
): Promise<Simulator> {
  const { host = '127.0.0.1', endpoint = (direct: string) => direct } = options;
  const sim = await createSimulator({
    port: 0,
    host,
    companies: [],
    eventRetries: 600,
    eventRetryDelayMs: 1000,
    log: (line) => fs.appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`),
  });
  for (const i of [1, 2]) {
    const slug = `chaos-${i}-${randomUUID().slice(0, 6)}`;
    const secret = newFleetSecret();
    sim.control.upsert({
      slug,
      fleet_secret: secret,
      pricing: { base_fee_aoa: 100_000 * i },
      booking_status: i === 1 ? 'accepted' : 'pending',
      auto_progress: { delay_ms: 400 },
    });
    await createCourier(pool, {
      name: slug,
      slug,
      adapter: 'http',
      endpoint: endpoint(sim.endpoint(slug)),
      fleet_secret: secret,
      timeout_ms: 2000,
    });
    await linkCouriers(pool, tenantId, slug);
  }
  return sim;
}

/** Registers the receiver as the tenant's webhook endpoint and keeps its secret for the signature checks. */
export async function registerReceiver(apiUrl: string, key: string, receiver: Receiver): Promise<void> {
  const endpoint = await fetch(`${apiUrl}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, description: 'chaos receiver' }),
  });
  expect(endpoint.status).toBe(201);
  receiver.secret = ((await endpoint.json()) as { secret: string }).secret;
}

/** One answer (or its absence) as a client saw it. */
export interface Outcome {
  /** Index of the API in the client's list. */
  api: number;
  at: number;
  /** How long the attempt took. */
  ms: number;
  status?: number;
  /** The problem's machine-readable code (its `error` member), when the answer was one. */
  code?: string;
  error?: string;
}

/** A quote entry as POST /v1/quotes answers it (the fields the crash tests use). */
export interface QuoteEntry {
  quote_id: string;
  company_id: string;
}

/** Which of the quotes the `i`-th delivery takes. */
export type Route = (i: number, quotes: QuoteEntry[]) => QuoteEntry;

/**
 * A merchant's client over one or more API processes: each request goes to the next API in turn and is retried, on
 * the next API, until it gets an answer that is not a transport error, a 5xx or a 409 (the stack may be down).
 * `record` sees every attempt's outcome; `route` picks each delivery's quote (default: the companies in turn).
 */
export class ChaosClient {
  private turn = 0;
  constructor(
    readonly apiUrls: string[],
    readonly key: string,
    readonly record: (outcome: Outcome) => void = () => {},
    readonly route: Route = (i, quotes) => quotes[i % quotes.length],
    /** More fields of the `i`-th delivery's creation (e.g. cash on delivery). */
    readonly extra: (i: number) => Record<string, unknown> = () => ({}),
  ) {}

  /** One attempt on the next API, recorded: its answer, or null on a transport error. */
  async once(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: any } | null> {
    const api = this.turn++ % this.apiUrls.length;
    const sent = Date.now();
    try {
      const res = await fetch(this.apiUrls[api] + url, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(45_000),
      });
      const json = await res.json().catch(() => null);
      this.record({ api, at: Date.now(), ms: Date.now() - sent, status: res.status, code: json?.error });
      return { status: res.status, json };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      this.record({ api, at: Date.now(), ms: Date.now() - sent, error: cause?.code ?? (err as Error).name });
      return null;
    }
  }

  async persist(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: any }> {
    for (let attempt = 0; ; attempt++) {
      const api = this.turn++ % this.apiUrls.length;
      const sent = Date.now();
      try {
        const res = await fetch(this.apiUrls[api] + url, {
          method,
          headers: {
            authorization: `Bearer ${this.key}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(30_000),
        });
        const json = await res.json().catch(() => null);
        this.record({ api, at: Date.now(), ms: Date.now() - sent, status: res.status, code: json?.error });
        if (res.status < 500 && res.status !== 409) return { status: res.status, json };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        this.record({ api, at: Date.now(), ms: Date.now() - sent, error: cause?.code ?? (err as Error).name });
      }
      if (attempt > 600) throw new Error(`${method} ${url} kept failing`);
      await sleep(500);
    }
  }

  /** Quote, then create with one Idempotency-Key per quote (a retry whose first attempt committed finds its delivery). */
  async createOne(i: number): Promise<string> {
    for (;;) {
      const quote = await this.persist('POST', '/v1/quotes', {
        origin: ORIGIN,
        destination: DESTINATION,
        parcel: PARCEL,
      });
      if (quote.status !== 200 || !quote.json.data?.length) {
        await sleep(500);
        continue;
      }
      const choice = this.route(i, quote.json.data);
      const created = await this.persist(
        'POST',
        '/v1/deliveries',
        { quote_id: choice.quote_id, origin: ORIGIN, destination: DESTINATION, parcel: PARCEL, ...this.extra(i) },
        { 'idempotency-key': `chaos-${choice.quote_id}` },
      );
      if (created.status === 201) return created.json.id;
      // An expired quote during a long outage: quote again under the same creation.
      if (created.status !== 422) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
    }
  }

  /**
   * `count` deliveries, `concurrency` at a time, at most `perSecond` started a second; their ids, the i-th's i-th.
   * `onCreated` hears of each as it is created.
   */
  async createMany(
    count: number,
    concurrency: number,
    log: (line: string) => void,
    perSecond = Infinity,
    onCreated: (i: number, id: string) => void = () => {},
  ): Promise<string[]> {
    const ids: string[] = [];
    const started = Date.now();
    let next = 0;
    let created = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          // Not before its time at the given rate; never a negative timer (Node warns: TimeoutNegativeWarning).
          await sleep(Math.max(0, started + (i * 1000) / perSecond - Date.now()));
          ids[i] = await this.createOne(i);
          onCreated(i, ids[i]);
          if (++created % 100 === 0) log(`${created} deliveries created`);
        }
      }),
    );
    return ids;
  }
}

export type ChaosAction = [name: string, act: () => Promise<void>];

/**
 * Runs the actions in turn, one every `intervalMs`, until stopped; `stop()` waits for the action under way and for at
 * least `minRounds` full rounds, and returns how many actions ran.
 */
export function chaosLoop(
  actions: ChaosAction[],
  intervalMs: number,
  log: (line: string) => void,
  minRounds = 0,
): { stop(): Promise<number> } {
  let on = true;
  let done = 0;
  const running = (async () => {
    while (on || done < minRounds * actions.length) {
      await sleep(intervalMs);
      if (!on && done >= minRounds * actions.length) break;
      const [name, act] = actions[done % actions.length];
      log(name);
      await act();
      done++;
    }
  })();
  return {
    async stop() {
      on = false;
      await running;
      return done;
    },
  };
}

/**
 * The crash tests' invariants, waiting up to 15 minutes for each to hold: every delivery of the tenant (returns to
 * sender included) reaches a final state, exactly `expected` deliveries exist besides the returns, no event is
 * duplicated and no status goes backwards within an attempt (test/helpers/event-chain.ts), and every non-ignored event
 * reached the receiver under a single webhook-id, with valid signatures only. Returns the number of events.
 */
export async function expectConverged(options: {
  pool: pg.Pool;
  tenantId: string;
  expected: number;
  sim: Simulator;
  receiver: Receiver;
  log: (line: string) => void;
}): Promise<number> {
  const { pool, tenantId, expected, sim, receiver, log } = options;
  const deadline = Date.now() + 15 * 60_000;
  let open = expected;
  while (Date.now() < deadline) {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1 AND status NOT IN ('delivered', 'cancelled', 'failed')`,
      [tenantId],
    );
    open = rows[0].n;
    if (open === 0) break;
    log(`${open} deliveries not final yet`);
    await sleep(5000);
  }
  const { rows: statuses } = await pool.query(
    `SELECT status, count(*)::int AS n FROM deliveries WHERE tenant_id = $1 GROUP BY status`,
    [tenantId],
  );
  log(`statuses: ${JSON.stringify(statuses)}`);
  if (open > 0) {
    // What a stuck delivery went through, and what its courier was told: enough to tell a lost event from a stuck workflow.
    const { rows: stuck } = await pool.query(
      `SELECT d.id, d.reference, d.status, d.courier_tracking_ref,
              (SELECT json_agg(json_build_object('type', e.event_type, 'at', e.occurred_at, 'payload', e.payload) ORDER BY e.occurred_at, e.seq)
                 FROM delivery_events e WHERE e.delivery_id = d.id) AS events
         FROM deliveries d WHERE d.tenant_id = $1 AND d.status NOT IN ('delivered', 'cancelled', 'failed') LIMIT 5`,
      [tenantId],
    );
    const bookings = sim.control.companies().flatMap((c) => sim.control.bookings(c.slug));
    for (const d of stuck) {
      const sent = bookings
        .filter((b) => b.delivery_id === d.id)
        .map((b) => ({
          ref: b.tracking_ref,
          status: b.status,
          events: b.events.map((e) => `${e.event_type}:${e.response_status ?? e.error}x${e.attempts}`),
        }));
      log(
        `stuck ${d.id} ${d.reference} ${d.status} ref=${d.courier_tracking_ref}: ${JSON.stringify(d.events)}; courier sent ${JSON.stringify(sent)}`,
      );
    }
  }
  expect(open).toBe(0);
  const { rows: count } = await pool.query(
    'SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1 AND return_of IS NULL',
    [tenantId],
  );
  expect(count[0].n).toBe(expected); // retried creations made no extra delivery

  // No duplicated event, no status going backwards, within each attempt.
  const { rows: events } = await pool.query(
    `SELECT delivery_id, event_type, id, payload FROM delivery_events WHERE tenant_id = $1 ORDER BY delivery_id, occurred_at, seq`,
    [tenantId],
  );
  const byDelivery = new Map<string, { event_type: string; id: string; payload: any }[]>();
  for (const e of events) byDelivery.set(e.delivery_id, [...(byDelivery.get(e.delivery_id) ?? []), e]);
  for (const [deliveryId, list] of byDelivery) {
    const effective = list.filter((e) => !e.payload?.ignored);
    const types = effective.map((e) => e.event_type);
    expect(chainProblems(effective), `${deliveryId}: ${types.join(' ')}`).toEqual([]);
  }
  // Not asserted (a courier may skip a step, e.g. pickup_ready), but worth seeing: chains shorter than the usual seven.
  for (const [deliveryId, list] of byDelivery) {
    if (list.filter((e) => !e.payload?.ignored).length < 7)
      log(
        `short chain ${deliveryId}: ${list.map((e) => e.event_type + (e.payload?.ignored ? '(ignored)' : '')).join(' ')}`,
      );
  }

  // Every webhook event reached the receiver, each under a single webhook-id.
  const effective = events.filter((e) => !e.payload?.ignored);
  const webhookDeadline = Date.now() + 15 * 60_000;
  let missing = effective.filter((e) => !receiver.received.has(e.id));
  while (missing.length > 0 && Date.now() < webhookDeadline) {
    log(`${missing.length} webhook events not received yet`);
    await sleep(5000);
    missing = effective.filter((e) => !receiver.received.has(e.id));
  }
  expect(missing.map((e) => `${e.event_type} ${e.id}`)).toEqual([]);
  for (const e of effective) expect(receiver.received.get(e.id)!.size, e.id).toBe(1);
  expect(receiver.badSignatures()).toBe(0);
  return events.length;
}

/**
 * The API and the worker as processes of their own (`tsx` on src/server.ts and src/worker.ts), the worker on a
 * workflow bundle built for `name`; resolves once the API listens on `apiPort`.
 */
export async function startApiAndWorker(
  name: string,
  dir: string,
  env: Record<string, string>,
  apiPort: number,
): Promise<{ api: Proc; worker: Proc }> {
  const bundle = await buildWorkflowBundle(path.join(ROOT_DIR, '.build', `workflow-bundle.${name}.js`));
  const worker = new Proc('worker', process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: { ...env, WORKFLOW_BUNDLE_PATH: bundle },
    logFile: path.join(dir, 'worker.log'),
  });
  const api = new Proc('api', process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env,
    logFile: path.join(dir, 'api.log'),
  });
  worker.start();
  api.start();
  await waitForPort(apiPort, '127.0.0.1', 60_000);
  return { api, worker };
}
