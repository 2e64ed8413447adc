// npm run test:chaos — deliveries driven by the courier simulator through their whole lifecycle while the
// test SIGKILLs and restarts the worker, the API and the Temporal dev server (same SQLite file), and
// restarts Postgres. At the end: every delivery reached a final state, no event is duplicated, no status
// went backwards, and every webhook event reached the merchant's receiver at least once, always under
// one webhook-id.
//
// Everything runs in processes of its own (API, worker, Temporal) against its own embedded PostgreSQL 15,
// so restarting them disturbs nothing else on the machine. CHAOS_DELIVERIES (default 1000) sets the size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { ROOT_DIR } from '../../src/config.js';
import { createCourier, createTenant, linkCouriers } from '../../src/lib/tenants.js';
import { buildWorkflowBundle } from '../../src/workflow-bundle.js';
import { databaseUrlFor, ensureDatabase, migrate, startEmbeddedPostgres, type EmbeddedServer } from '../../scripts/lib/postgres.js';
import { ensureTemporalCli } from '../../scripts/lib/temporal-cli.js';
import { waitForPort } from '../../scripts/lib/net.js';
import { SEARCH_ATTRIBUTE_NAMES } from '../../workflows/search-attributes.js';
import { createSimulator, newFleetSecret, type Simulator } from '../../simulator/server.js';
import { freePort } from '../../scripts/lib/net.js';
import { DESTINATION, ORIGIN, PARCEL } from '../helpers/fixtures.js';

const DELIVERIES = Number(process.env.CHAOS_DELIVERIES ?? 1000);
const log = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child process that can be SIGKILLed and started again with the same command. */
class Proc {
  child: ChildProcess | null = null;
  constructor(
    readonly name: string,
    readonly command: string,
    readonly args: string[],
    readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
  ) {}
  start() {
    const out = fs.openSync(this.logFile, 'a');
    this.child = spawn(this.command, this.args, { cwd: ROOT_DIR, env: { ...process.env, ...this.env }, stdio: ['ignore', out, out] });
    fs.closeSync(out);
  }
  async kill(signal: NodeJS.Signals = 'SIGKILL') {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

let dir: string;
let postgres: EmbeddedServer;
let temporal: Proc;
let api: Proc;
let worker: Proc;
let sim: Simulator;
let receiver: http.Server;
let pool: pg.Pool;
const received = new Map<string, Set<string>>(); // event id -> webhook-ids it arrived under
let badSignatures = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  fs.chmodSync(dir, 0o755); // the embedded server runs as the postgres user when we are root
  log(`working folder ${dir}`);

  postgres = await startEmbeddedPostgres(path.join(dir, 'pg'), await freePort());
  const databaseUrl = databaseUrlFor(postgres.serverUrl, 'chaos');
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => {});

  const temporalPort = await freePort();
  const cli = ensureTemporalCli();
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
    '--db-filename',
    path.join(dir, 'temporal.db'),
  ];
  for (const name of SEARCH_ATTRIBUTE_NAMES) temporalArgs.push('--search-attribute', `${name}=Keyword`);
  temporal = new Proc('temporal', cli, temporalArgs, {}, path.join(dir, 'temporal.log'));
  temporal.start();
  await waitForPort(temporalPort, '127.0.0.1', 120_000);

  // The merchant's receiver: checks every signature, remembers which webhook-ids each event came under.
  const tenant = await createTenant(pool, 'chaos merchant');
  const secretHolder: { secret?: string } = {};
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const payload = new Webhook(secretHolder.secret!).verify(body, req.headers as Record<string, string>) as { data: { event: { id: string } } };
        const ids = received.get(payload.data.event.id) ?? new Set<string>();
        ids.add(String(req.headers['webhook-id']));
        received.set(payload.data.event.id, ids);
        res.writeHead(200).end();
      } catch {
        badSignatures++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;

  // Two simulated couriers moving every job along every 400 ms, retrying each fleet event for up to 10 minutes
  // (a real courier retries for hours): an event the service cannot take yet (down, or the job not yet known) waits.
  const simLog = path.join(dir, 'simulator.log');
  sim = await createSimulator({
    port: 0,
    host: '127.0.0.1',
    companies: [],
    eventRetries: 600,
    eventRetryDelayMs: 1000,
    log: (line) => fs.appendFileSync(simLog, `${new Date().toISOString()} ${line}\n`),
  });
  const apiPort = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    TEMPORAL_TASK_QUEUE: `chaos-${randomUUID()}`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
    RECONCILE_INTERVAL_MS: '2000',
    DISPATCH_MAX_ATTEMPTS: '30',
    DISPATCH_INITIAL_INTERVAL_MS: '500',
    WEBHOOK_SCHEDULE_MS: JSON.stringify([0, 1000, 2000, 5000, 5000, 10000, 10000, 20000, 30000, 60000]),
    ALLOW_LOOPBACK_WEBHOOKS: 'true', // the receiver listens on 127.0.0.1
  };
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
    await createCourier(pool, { name: slug, slug, adapter: 'http', endpoint: sim.endpoint(slug), fleet_secret: secret, timeout_ms: 2000 });
    await linkCouriers(pool, tenant.tenant_id, slug);
  }

  const bundle = await buildWorkflowBundle(path.join(ROOT_DIR, '.build', 'workflow-bundle.chaos.js'));
  worker = new Proc('worker', process.execPath, ['--import', 'tsx', 'src/worker.ts'], { ...env, WORKFLOW_BUNDLE_PATH: bundle }, path.join(dir, 'worker.log'));
  api = new Proc('api', process.execPath, ['--import', 'tsx', 'src/server.ts'], env, path.join(dir, 'api.log'));
  worker.start();
  api.start();
  await waitForPort(apiPort, '127.0.0.1', 60_000);

  const apiUrl = env.PUBLIC_BASE_URL;
  const endpoint = await fetch(`${apiUrl}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl, description: 'chaos receiver' }),
  });
  expect(endpoint.status).toBe(201);
  secretHolder.secret = ((await endpoint.json()) as { secret: string }).secret;
  Object.assign(context, { apiUrl, key: tenant.secret_key, tenantId: tenant.tenant_id, apiPort });
}, 300_000);

const context = { apiUrl: '', key: '', tenantId: '', apiPort: 0 };

afterAll(async () => {
  await api?.kill('SIGTERM');
  await worker?.kill('SIGTERM');
  await temporal?.kill('SIGTERM');
  await sim?.close();
  receiver?.close();
  await pool?.end().catch(() => {});
  await postgres?.stop().catch(() => {});
  if (process.env.KEEP_CHAOS_DIR) log(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
});

/** Retries a request until it gets an answer that is not a transport error or a 5xx (the stack may be down). */
async function persist(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(context.apiUrl + url, {
        method,
        headers: { authorization: `Bearer ${context.key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const json = await res.json().catch(() => null);
      if (res.status < 500 && res.status !== 409) return { status: res.status, json };
    } catch {
      /* down: retry */
    }
    if (attempt > 600) throw new Error(`${method} ${url} kept failing`);
    await sleep(500);
  }
}

async function createOne(i: number): Promise<string> {
  for (;;) {
    const quote = await persist('POST', '/v1/quotes', { origin: ORIGIN, destination: DESTINATION, parcel: PARCEL });
    if (quote.status !== 200 || !quote.json.data?.length) {
      await sleep(500);
      continue;
    }
    const choice = quote.json.data[i % quote.json.data.length];
    // One Idempotency-Key per quote: a retry of a creation whose answer was lost finds its delivery.
    const created = await persist(
      'POST',
      '/v1/deliveries',
      { quote_id: choice.quote_id, origin: ORIGIN, destination: DESTINATION, parcel: PARCEL },
      { 'idempotency-key': `chaos-${choice.quote_id}` },
    );
    if (created.status === 201) return created.json.id;
    // An expired quote during a long outage: quote again under the same creation.
    if (created.status !== 422) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
  }
}

const RANK: Record<string, number> = {
  awaiting_payment: 0,
  pending: 1,
  assigned: 2,
  pickup_ready: 3,
  in_transit: 4,
  out_for_delivery: 5,
  delivered: 6,
  cancelled: 6,
  failed: 6,
};
const STATUS_OF_EVENT: Record<string, string> = {
  'delivery.created': 'pending',
  'delivery.assigned': 'assigned',
  'delivery.pickup_ready': 'pickup_ready',
  'delivery.in_transit': 'in_transit',
  'delivery.out_for_delivery': 'out_for_delivery',
  'delivery.delivered': 'delivered',
  'delivery.failed': 'failed',
  'delivery.cancelled': 'cancelled',
};

describe('under fire', () => {
  it(`${DELIVERIES} deliveries reach a final state through worker, API, Temporal and Postgres restarts`, async () => {
    const started = Date.now();
    let chaosOn = true;
    const chaos = (async () => {
      const actions: [string, () => Promise<void>][] = [
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
            await postgres.stop();
            await sleep(1000);
            await postgres.start();
          },
        ],
      ];
      let round = 0;
      while (chaosOn) {
        await sleep(6000);
        if (!chaosOn) break;
        const [name, act] = actions[round++ % actions.length];
        log(name);
        await act();
      }
      return round;
    })();

    // Create with bounded concurrency, retrying through outages (Idempotency-Key makes retries safe).
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < DELIVERIES) {
          const i = next++;
          ids.push(await createOne(i));
          if (ids.length % 100 === 0) log(`${ids.length} deliveries created`);
        }
      }),
    );
    log(`all ${ids.length} created in ${Math.round((Date.now() - started) / 1000)} s; letting chaos run one more round`);
    await sleep(25_000);
    chaosOn = false;
    const rounds = await chaos;
    log(`chaos stopped after ${rounds} actions; waiting for every delivery to finish`);

    // Convergence: every delivery final.
    const deadline = Date.now() + 15 * 60_000;
    let open = ids.length;
    while (Date.now() < deadline) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1 AND status NOT IN ('delivered', 'cancelled', 'failed')`,
        [context.tenantId],
      );
      open = rows[0].n;
      if (open === 0) break;
      log(`${open} deliveries not final yet`);
      await sleep(5000);
    }
    const { rows: statuses } = await pool.query(`SELECT status, count(*)::int AS n FROM deliveries WHERE tenant_id = $1 GROUP BY status`, [context.tenantId]);
    log(`statuses: ${JSON.stringify(statuses)}`);
    if (open > 0) {
      // What a stuck delivery went through, and what its courier was told: enough to tell a lost event from a stuck workflow.
      const { rows: stuck } = await pool.query(
        `SELECT d.id, d.reference, d.status, d.courier_tracking_ref,
                (SELECT json_agg(json_build_object('type', e.event_type, 'at', e.occurred_at, 'payload', e.payload) ORDER BY e.occurred_at, e.seq)
                   FROM delivery_events e WHERE e.delivery_id = d.id) AS events
           FROM deliveries d WHERE d.tenant_id = $1 AND d.status NOT IN ('delivered', 'cancelled', 'failed') LIMIT 5`,
        [context.tenantId],
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
        log(`stuck ${d.id} ${d.reference} ${d.status} ref=${d.courier_tracking_ref}: ${JSON.stringify(d.events)}; courier sent ${JSON.stringify(sent)}`);
      }
    }
    expect(open).toBe(0);
    const { rows: count } = await pool.query('SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1', [context.tenantId]);
    expect(count[0].n).toBe(DELIVERIES); // retried creations made no extra delivery

    // No duplicated event, no status going backwards.
    const { rows: events } = await pool.query(
      `SELECT delivery_id, event_type, id, payload FROM delivery_events WHERE tenant_id = $1 ORDER BY delivery_id, occurred_at, seq`,
      [context.tenantId],
    );
    const byDelivery = new Map<string, { event_type: string; id: string; payload: any }[]>();
    for (const e of events) byDelivery.set(e.delivery_id, [...(byDelivery.get(e.delivery_id) ?? []), e]);
    for (const [deliveryId, list] of byDelivery) {
      const effective = list.filter((e) => !e.payload?.ignored);
      const types = effective.map((e) => e.event_type);
      expect(new Set(types).size, `${deliveryId}: ${types.join(' ')}`).toBe(types.length);
      let rank = -1;
      for (const t of types) {
        const status = STATUS_OF_EVENT[t];
        if (!status) continue;
        expect(RANK[status], `${deliveryId}: ${types.join(' ')}`).toBeGreaterThan(rank);
        rank = RANK[status];
      }
    }

    // Not asserted (a courier may skip a step, e.g. pickup_ready), but worth seeing: chains shorter than the usual seven.
    const short = [...byDelivery].filter(([, list]) => list.filter((e) => !e.payload?.ignored).length < 7);
    for (const [deliveryId, list] of short)
      log(`short chain ${deliveryId}: ${list.map((e) => e.event_type + (e.payload?.ignored ? '(ignored)' : '')).join(' ')}`);

    // Every webhook event reached the receiver, each under a single webhook-id.
    const effectiveEvents = events.filter((e) => !e.payload?.ignored);
    const webhookDeadline = Date.now() + 15 * 60_000;
    let missing = effectiveEvents.filter((e) => !received.has(e.id));
    while (missing.length > 0 && Date.now() < webhookDeadline) {
      log(`${missing.length} webhook events not received yet`);
      await sleep(5000);
      missing = effectiveEvents.filter((e) => !received.has(e.id));
    }
    expect(missing.map((e) => `${e.event_type} ${e.id}`)).toEqual([]);
    for (const e of effectiveEvents) expect(received.get(e.id)!.size, e.id).toBe(1);
    expect(badSignatures).toBe(0);
    log(
      `done in ${Math.round((Date.now() - started) / 1000)} s: ${DELIVERIES} deliveries, ${events.length} events, ${received.size} webhook events received, ${rounds} chaos actions`,
    );
  });
});
