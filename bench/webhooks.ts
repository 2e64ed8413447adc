// npm run bench:webhooks — time from a fleet event's arrival at the API to the merchant receiver's receipt of
// the signed notification, with BENCH_DELIVERIES (1,000) deliveries in flight (open workflows, status assigned).
//
// Brings up what it needs (bench/lib.ts): a fresh Postgres database (dropped at the end), Temporal from
// TEMPORAL_ADDRESS or a dev server of its own on a free port, the API and a worker in this process, the
// courier simulator (simulator/server.ts) and the merchant's receiver (node:http) in this process too.
// Then, in the same run:
//   floors: a bare HTTP POST of a signed message to the receiver; a bare Temporal round trip into the worker
//           (a query on a delivery workflow); a bare workflow with one activity (pingWorkflow: start, activity
//           writing Postgres, result).
//   measured: signed fleet events (pickup_ready, then in_transit, ...) POSTed to /v1/fleet/{slug}/events, each
//           timed until the receiver has the matching delivery.* notification. A closed loop, first at
//           concurrency 1 (the pipeline's own latency), then at BENCH_CONCURRENCY (queueing under load); the
//           floors are measured at the same concurrency just before.
// Target: p50 <= 250 ms.
// Settings: BENCH_DELIVERIES (1000), BENCH_EVENTS (1000, split over the phases), BENCH_CONCURRENCY (8),
// BENCH_DURATION_S (120, cap per phase),
// BENCH_FLOOR_SAMPLES (300).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Pool as HttpPool } from 'undici';
import { Webhook } from 'standardwebhooks';
import { createSimulator, newFleetSecret, signFleetEvent } from '../simulator/server.js';
import { createTenant } from '../src/tenants/service.js';
import { createCourier, linkCouriers } from '../src/couriers/service.js';
import { deliveryWorkflowId, stateQuery } from '../shared/deliveries/definitions.js';
import { pingWorkflow } from '../workflows/system/workflows.js';
import { load, machineLine, pct, quotesAhead, say, startBenchStack, summarise, type LoadResult } from './lib.js';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 120);
const FLOOR_SAMPLES = Number(process.env.BENCH_FLOOR_SAMPLES ?? 300);
const STEPS = ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered'] as const;
const TARGET_P50_MS = 250;

const BODY = {
  origin: {
    address_line: 'Rua Rainha Ginga 29',
    city: 'Luanda',
    province: 'Luanda',
    coordinates: { lat: -8.8147, lng: 13.2302 },
  },
  destination: {
    address_line: 'Avenida Deolinda Rodrigues 512',
    city: 'Luanda',
    province: 'Luanda',
    coordinates: { lat: -8.8521, lng: 13.2655 },
  },
  parcel: { weight_grams: 1200 },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const stack = await startBenchStack({ withWorker: true });
  try {
    const { pool, temporal } = stack;

    // ---- the merchant's receiver: verifies each signature, resolves whoever waits for that (delivery, type) ----
    const waiters = new Map<string, () => void>();
    let received = 0;
    let badSignatures = 0;
    let secret = '';
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200).end();
        if (req.url !== '/hooks') return; // the floor's bare POSTs
        received++;
        const raw = Buffer.concat(chunks).toString('utf8');
        let message: { type: string; data: { delivery: { id: string } } };
        try {
          message = new Webhook(secret).verify(raw, req.headers as Record<string, string>) as typeof message;
        } catch {
          badSignatures++;
          return;
        }
        const key = `${message.data.delivery.id}:${message.type}`;
        waiters.get(key)?.();
        waiters.delete(key);
      });
    });
    receiver.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack.onCleanup(async () => {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    });

    // ---- a courier in the simulator (accepts bookings at once), a merchant with a webhook endpoint ----
    const sim = await createSimulator({ port: 0, host: '127.0.0.1', companies: [] });
    stack.onCleanup(() => sim.close());
    const slug = `bench-wh-${Date.now()}`;
    const fleetSecret = newFleetSecret();
    sim.control.upsert({ slug, name: 'Bench Courier', fleet_secret: fleetSecret, booking_status: 'accepted' });
    const courier = await createCourier(pool, {
      name: 'Bench Courier',
      slug,
      adapter: 'http',
      endpoint: sim.endpoint(slug),
      fleet_secret: fleetSecret,
      timeout_ms: 5000,
    });
    const tenant = await createTenant(pool, 'bench merchant');
    await linkCouriers(pool, tenant.tenant_id, slug);

    const api = new HttpPool(stack.url, { connections: 32, keepAliveTimeout: 30_000 });
    stack.onCleanup(() => api.close());
    const call = async (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await api.request({
        method,
        path,
        headers: { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : null };
    };
    const endpoint = await call('POST', '/v1/webhook_endpoints', {
      url: `${receiverUrl}/hooks`,
      description: 'bench receiver',
    });
    if (endpoint.status !== 201)
      throw new Error(`endpoint registration failed: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    secret = endpoint.body.secret;

    // ---- 1,000 deliveries in flight: quotes written ahead, then POST /v1/deliveries; each is booked -> assigned ----
    say(
      `Creating ${DELIVERIES.toLocaleString('en')} deliveries (each: created, dispatched, assigned -> 3 notifications)`,
    );
    const quoteIds = await quotesAhead(pool, tenant.tenant_id, courier.courier_id, BODY, DELIVERIES);
    const created = await load(
      'create',
      600,
      16,
      async () => {
        const quoteId = quoteIds.pop();
        if (!quoteId) return true;
        const res = await call('POST', '/v1/deliveries', {
          quote_id: quoteId,
          ...BODY,
          options: { metadata: { order_id: randomUUID() } },
        });
        return res.status === 201;
      },
      { maxRequests: DELIVERIES },
    );
    if (created.errors) throw new Error(`${created.errors} deliveries failed to be created`);

    say('Waiting until every delivery is assigned and its 3 notifications have arrived');
    const settleStarted = Date.now();
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1 AND status = 'assigned'",
        [tenant.tenant_id],
      );
      console.log(`    ${rows[0].n} assigned, ${received} notifications received`);
      if (rows[0].n >= DELIVERIES && received >= DELIVERIES * 3) break;
      if (Date.now() - settleStarted > 900_000) throw new Error('deliveries did not settle within 15 minutes');
      await sleep(1000);
    }
    say(`Settled in ${((Date.now() - settleStarted) / 1000).toFixed(0)} s`);
    const deliveries = (
      await pool.query<{ id: string; courier_tracking_ref: string }>(
        'SELECT id, courier_tracking_ref FROM deliveries WHERE tenant_id = $1 ORDER BY inserted_at',
        [tenant.tenant_id],
      )
    ).rows;

    // ---- floors and measurement, at concurrency 1 (the pipeline's own latency) and at BENCH_CONCURRENCY ----
    const floorBody = JSON.stringify({
      id: 'msg_floor',
      type: 'delivery.pickup_ready',
      created_at: new Date().toISOString(),
      data: { delivery: BODY, event: {}, metadata: {} },
    });
    const wh = new Webhook(secret);
    const receiverPool = new HttpPool(receiverUrl, { connections: 16, keepAliveTimeout: 30_000 });
    stack.onCleanup(() => receiverPool.close());
    const floorHttp = async () => {
      const at = new Date();
      const res = await receiverPool.request({
        method: 'POST',
        path: '/floor',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'msg_floor',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': wh.sign('msg_floor', at, floorBody),
        },
        body: floorBody,
      });
      await res.body.dump();
      return res.statusCode === 200;
    };
    let q = 0;
    const floorQuery = async () => {
      const d = deliveries[q++ % deliveries.length];
      const state = await temporal.workflow.getHandle(deliveryWorkflowId(d.id)).query(stateQuery);
      return typeof state.status === 'string';
    };
    const floorPing = async () => {
      const id = randomUUID();
      const result = await temporal.workflow.execute(pingWorkflow, {
        taskQueue: stack.config.taskQueue,
        workflowId: `bench-ping-${id}`,
        args: [{ id, message: 'bench' }],
      });
      return Boolean(result);
    };

    const jobs: { id: string; ref: string; step: (typeof STEPS)[number] }[] = [];
    for (const step of STEPS) for (const d of deliveries) jobs.push({ id: d.id, ref: d.courier_tracking_ref, step });
    let next = 0;
    let timeouts = 0;
    const fleetToWebhook = async () => {
      const job = jobs[next++];
      if (!job) return true;
      const arrived = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          timeouts++;
          waiters.delete(`${job.id}:delivery.${job.step}`);
          resolve(false);
        }, 30_000);
        waiters.set(`${job.id}:delivery.${job.step}`, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      const body = JSON.stringify({
        tracking_ref: job.ref,
        event_type: job.step,
        occurred_at: new Date().toISOString(),
        payload: {},
      });
      const res = await api.request({
        method: 'POST',
        path: `/v1/fleet/${slug}/events`,
        headers: { 'content-type': 'application/json', ...signFleetEvent(fleetSecret, body) },
        body,
      });
      await res.body.dump();
      if (res.statusCode !== 202) return false;
      return arrived;
    };

    const phases = [...new Set([1, CONCURRENCY])];
    const perPhase = Math.floor(Math.min(EVENTS, jobs.length) / phases.length);
    const rows: ReturnType<typeof summarise>[] = [];
    const measured: { concurrency: number; result: LoadResult }[] = [];
    for (const c of phases) {
      say(`Concurrency ${c}: floors (${FLOOR_SAMPLES} samples each)`);
      const floors = [
        summarise(
          await load('floor http', 60, c, floorHttp, { maxRequests: FLOOR_SAMPLES, quiet: true }),
          `c=${c} floor: bare signed HTTP POST to the receiver`,
        ),
        summarise(
          await load('floor query', 60, c, floorQuery, { maxRequests: FLOOR_SAMPLES, quiet: true }),
          `c=${c} floor: bare Temporal round trip (query into the worker)`,
        ),
        summarise(
          await load('floor ping', 60, c, floorPing, { maxRequests: FLOOR_SAMPLES, quiet: true }),
          `c=${c} floor: bare workflow + 1 activity (start, Postgres write, result)`,
        ),
      ];
      say(
        `Concurrency ${c}: ${perPhase.toLocaleString('en')} fleet events, ${DELIVERIES.toLocaleString('en')} deliveries in flight`,
      );
      const result = await load(`c=${c} fleet event -> webhook`, DURATION_S, c, fleetToWebhook, {
        maxRequests: perPhase,
      });
      measured.push({ concurrency: c, result });
      rows.push(...floors, summarise(result, `c=${c} fleet event at the API -> notification at the receiver`));
    }

    // ---- report ----
    const { rows: attempts } = await pool.query<{ failed: number; p50: number; p99: number }>(
      `SELECT count(*) FILTER (WHERE status <> 'succeeded')::int AS failed,
              percentile_disc(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50, percentile_disc(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
         FROM webhook_attempts WHERE tenant_id = $1`,
      [tenant.tenant_id],
    );
    console.log('');
    console.table(rows);
    for (const { concurrency, result } of measured) {
      const sorted = [...result.latencies].sort((a, b) => a - b);
      const p50 = pct(sorted, 50);
      console.log(
        `fleet event -> webhook at concurrency ${concurrency}: p50 ${p50.toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms over ${result.requests} events ` +
          `(${DELIVERIES.toLocaleString('en')} deliveries in flight). Target p50 <= ${TARGET_P50_MS} ms: ${p50 <= TARGET_P50_MS ? 'met' : 'NOT met'}.`,
      );
    }
    console.log(
      `HTTP part of each attempt (attempt log): p50 ${attempts[0].p50} ms, p99 ${attempts[0].p99} ms; ${attempts[0].failed} failed attempts; ${badSignatures} bad signatures; ${timeouts} notifications not seen within 30 s.`,
    );
    if (measured.some((m) => m.result.errors) || badSignatures) process.exitCode = 1;
    console.log(
      `${machineLine()}; API, worker, simulator, receiver and load generator in one process; Temporal dev server (SQLite in memory).`,
    );
  } finally {
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
