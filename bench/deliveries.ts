// npm run bench:deliveries — delivery creation and the list endpoint, each beside its floor in the same run.
//
// 1. create: POST /v1/deliveries (the production build's API and worker, each in its own process as in production;
//    a rate-card courier booked "by fleet", so no courier HTTP) against the floor: one bare Postgres transaction
//    doing the same statements plus one bare StartWorkflow. Measured three ways: each alone, one after the other;
//    side by side in the same seconds, both under the load of the workflows the creates start on the same two cores
//    (the target, p50 <= 1.5x the floor with 0 errors, is read here); and the creates with the worker stopped (the
//    API's own cost).
// 2. list: 1,000,000 deliveries over 100 tenants (loaded once into database delivery_api_bench_list and kept),
//    p95 of GET /v1/deliveries per query shape (the production build's API in a process of its own, as in
//    production) against the same SQL run bare in this process (the repository function the route calls), and, for
//    reading, against an HTTP floor: that call behind bare node:http in a process of its own (bench/list-floor-server.ts).
//    The three take turns request by request, after a warm-up. Targets: p95 <= 20 ms, and <= 1.5x the bare SQL or
//    within 2 ms of it.
// Settings: BENCH_DURATION_S (10), BENCH_CONCURRENCY (8), BENCH_LIST_ROWS (1000000), BENCH_LIST_TENANTS (100),
// BENCH_LIST_SAMPLES (600 per shape), BENCH_ONLY (create|list).
import { randomUUID } from 'node:crypto';
import { Pool as HttpPool } from 'undici';
import { createTenant } from '../src/tenants/service.js';
import { createCourier, linkCouriers } from '../src/couriers/service.js';
import { listDeliveries, type ListFilter } from '../src/deliveries/list-repository.js';
import { seedDeliveries } from '../scripts/lib/seed-deliveries.js';
import { freePort, waitForPort } from '../scripts/lib/net.js';
import { Proc } from '../scripts/lib/processes.js';
import { Client, Connection } from '@temporalio/client';
import {
  benchDatabaseWithPool,
  benchTemporal,
  cleanupList,
  load,
  machineLine,
  pct,
  productionStack,
  quotesAhead,
  say,
  summarise,
} from './lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LIST_ROWS = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000);
const LIST_TENANTS = Number(process.env.BENCH_LIST_TENANTS ?? 100);
const LIST_SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 600);
const ONLY = process.env.BENCH_ONLY;

const BODY = {
  origin: {
    address_line: 'Rua Rainha Ginga 10',
    city: 'Luanda',
    province: 'Luanda',
    coordinates: { lat: -8.81, lng: 13.23 },
  },
  destination: {
    address_line: 'Estrada de Catete km 12',
    city: 'Viana',
    province: 'Luanda',
    coordinates: { lat: -8.9, lng: 13.37 },
  },
  parcel: { weight_grams: 2500 },
};

async function benchCreate(): Promise<boolean> {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups);
    const { address: temporalAddress } = await benchTemporal(cleanups);
    const connection = await Connection.connect({ address: temporalAddress });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection });
    const taskQueue = `bench-create-${Date.now()}`;
    const { apiUrl, stopWorker } = await productionStack(cleanups, { databaseUrl, temporalAddress, taskQueue });
    const tenant = await createTenant(pool, 'bench merchant');
    const courier = await createCourier(pool, {
      name: 'Bench Fleet',
      slug: `bench-fleet-${Date.now()}`,
      adapter: 'rate_card',
      base_fee_aoa: 100_000,
      base_eta_minutes: 60,
    });
    await linkCouriers(pool, tenant.tenant_id, courier.slug);

    // Quotes made ahead: the benchmark measures creation, not quoting.
    const needed = Math.ceil(DURATION_S * 600 + 2000);
    say(`Preparing ${needed.toLocaleString('en')} quotes`);
    const quoteIds = await quotesAhead(pool, tenant.tenant_id, courier.courier_id, BODY, needed, 123_400);
    const nextQuote = () => {
      const id = quoteIds.pop();
      if (!id) throw new Error('out of quotes');
      return id;
    };

    // The floor: the same statements in one bare transaction, then one bare StartWorkflow (no worker polls its queue).
    await pool.query(
      'CREATE TABLE IF NOT EXISTS bench_floor (id uuid PRIMARY KEY, body jsonb, at timestamptz DEFAULT now())',
    );
    const floorQuotes = (
      await pool.query<{ id: string }>('SELECT id FROM quotes WHERE tenant_id = $1 LIMIT 1', [tenant.tenant_id])
    ).rows[0].id;
    const floor = async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT id, payload_hash FROM quotes WHERE id = $1 AND tenant_id = $2 FOR UPDATE', [
          floorQuotes,
          tenant.tenant_id,
        ]);
        const id = randomUUID();
        await client.query('INSERT INTO bench_floor (id, body) VALUES ($1, $2)', [id, BODY]);
        await client.query('UPDATE quotes SET fee_aoa = fee_aoa WHERE id = $1', [floorQuotes]);
        await client.query('INSERT INTO bench_floor (id, body) VALUES ($1, $2)', [randomUUID(), { event: 'created' }]);
        await client.query('COMMIT');
        await temporal.workflow.start('floorWorkflow', {
          taskQueue: `${taskQueue}-floor`,
          workflowId: `floor-${id}`,
          args: [{ id }],
        });
      } finally {
        client.release();
      }
      return true;
    };

    const api = new HttpPool(apiUrl, { connections: CONCURRENCY * 2, keepAliveTimeout: 30_000 });
    cleanups.push(() => api.close());
    const create = async () => {
      const res = await api.request({
        path: '/v1/deliveries',
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ quote_id: nextQuote(), ...BODY }),
      });
      await res.body.dump();
      return res.statusCode === 201;
    };

    say('Warm-up (2 s)');
    await load('warm-up', 2, CONCURRENCY, floor, { quiet: true });
    await load('warm-up', 2, CONCURRENCY, create, { quiet: true });
    say(`Measuring: ${DURATION_S} s per scenario, concurrency ${CONCURRENCY}`);
    // 1. One after the other, each alone: the floor, then the creates with their workflows running on the same cores.
    const floorResult = await load('floor', DURATION_S, CONCURRENCY, floor);
    const createResult = await load('create', DURATION_S, CONCURRENCY, create);
    // 2. Side by side in the same seconds, half the concurrency each: both under the same load of the workflows the
    //    creates start (the floor starts none that run). The target is read here: what the API adds over the bare
    //    statements and StartWorkflow when the machine is in the same state for both.
    const [mixedFloor, mixedCreate] = await Promise.all([
      load('floor, same seconds', DURATION_S, CONCURRENCY / 2, floor),
      load('create, same seconds', DURATION_S, CONCURRENCY / 2, create),
    ]);
    // 3. The creates again with the worker stopped: the API's own cost, apart from the workflows it starts.
    await stopWorker();
    const aloneResult = await load('create, worker stopped', DURATION_S, CONCURRENCY, create);

    const rows = [
      summarise(floorResult, 'floor alone: bare transaction + bare StartWorkflow'),
      summarise(createResult, 'POST /v1/deliveries alone (workflows running)'),
      summarise(mixedFloor, 'same seconds: floor'),
      summarise(mixedCreate, 'same seconds: POST /v1/deliveries'),
      summarise(aloneResult, 'POST /v1/deliveries (worker stopped)'),
    ];
    console.log('');
    console.table(rows);
    const p50 = (i: number) => rows[i]['p50 ms'];
    const ratio = p50(3) / p50(2);
    const errors = createResult.errors + mixedCreate.errors + aloneResult.errors;
    const running = (
      await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1`, [
        tenant.tenant_id,
      ])
    ).rows[0].n;
    const started = (
      await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1 AND workflow_started_at IS NOT NULL`,
        [tenant.tenant_id],
      )
    ).rows[0].n;
    const ok = ratio <= 1.5 && errors === 0;
    console.log(
      `create p50 = ${ratio.toFixed(2)}x the floor measured in the same seconds (target <= 1.5x); ${errors} errors (target 0)   ${ok ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `For reading: each alone, create (workflows running) p50 = ${(p50(1) / p50(0)).toFixed(2)}x the floor, ${rows[1]['req/s']} creates/s (round 3's target >= 100/s: ${rows[1]['req/s'] >= 100 ? 'met' : 'not met'}); with the worker stopped ${(p50(4) / p50(0)).toFixed(2)}x.`,
    );
    console.log(
      `${running.toLocaleString('en')} deliveries created, ${started.toLocaleString('en')} with a started workflow. ${machineLine()}; API and worker each in its own process (the production build), load generator and floor in this one.`,
    );
    return ok;
  } finally {
    await cleanup();
  }
}

async function benchList(): Promise<boolean> {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups, 'delivery_api_bench_list');
    say(`Loading ${LIST_ROWS.toLocaleString('en')} deliveries over ${LIST_TENANTS} tenants`);
    const tenants = await seedDeliveries(pool, LIST_ROWS, LIST_TENANTS);
    // What the create run (or the load) left to write goes to disk now, not in the middle of the measurement; then
    // the machine gets a few seconds to settle.
    say('Checkpoint, then 5 s to settle');
    await pool.query('CHECKPOINT').catch(() => say('CHECKPOINT is not allowed for this role: measuring without it'));
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const perTenant = Math.floor(LIST_ROWS / LIST_TENANTS);
    const day = 86_400_000;
    const now = Date.now();
    const from = new Date(now - 40 * day).toISOString();
    const to = new Date(now - 30 * day).toISOString();
    const deepOffset = Math.max(0, Math.min(100_000, perTenant - 60));

    const shapes: {
      name: string;
      query: string;
      filter: Omit<ListFilter, 'limit' | 'offset' | 'ascending'> & Partial<ListFilter>;
    }[] = [
      { name: 'no filter', query: '', filter: {} },
      {
        name: 'status list',
        query: '?status=in_transit,out_for_delivery,failed',
        filter: { statuses: ['in_transit', 'out_for_delivery', 'failed'] },
      },
      {
        name: 'date range',
        query: `?inserted_at_gte=${encodeURIComponent(from)}&inserted_at_lte=${encodeURIComponent(to)}`,
        filter: { insertedFrom: new Date(from), insertedTo: new Date(to) },
      },
      { name: 'search', query: '?search=cabral%2012', filter: { search: 'cabral 12' } },
      { name: `deep offset (${deepOffset})`, query: `?offset=${deepOffset}`, filter: { offset: deepOffset } },
    ];
    // The API as in production: the production build in a process of its own (the worker, which a list does not
    // need, stopped), so the load generator's work and garbage are not the API's.
    const { address: temporalAddress } = await benchTemporal(cleanups);
    const { apiUrl, stopWorker } = await productionStack(cleanups, {
      databaseUrl,
      temporalAddress,
      taskQueue: `bench-list-${Date.now()}`,
    });
    await stopWorker();
    const api = new HttpPool(apiUrl, { connections: 4, keepAliveTimeout: 30_000 });
    cleanups.push(() => api.close());
    // For reading: the HTTP floor (bench/list-floor-server.ts), the same repository call behind bare node:http in a
    // process of its own. What it adds over the bare SQL is the hop between processes, which any API pays.
    const floorPort = await freePort();
    const floorServer = new Proc('list floor', process.execPath, ['--import', 'tsx', 'bench/list-floor-server.ts'], {
      env: { DATABASE_URL: databaseUrl, PORT: String(floorPort) },
      ipc: true,
    });
    cleanups.push(() => floorServer.stop());
    floorServer.start();
    await waitForPort(floorPort, '127.0.0.1', 30_000);
    const floorHttp = new HttpPool(`http://127.0.0.1:${floorPort}`, { connections: 4, keepAliveTimeout: 30_000 });
    cleanups.push(() => floorHttp.close());
    let turn = 0;
    const tenantFor = () => tenants[turn++ % tenants.length];

    // Each round asks the same tenant for the same page three ways, in an order that rotates from round to round: the
    // bare SQL, the HTTP floor and the API all see the machine in the same state, so a burst of noise cannot land on
    // one side only.
    const sides = (shape: (typeof shapes)[number]) => {
      const filter = { ascending: false, limit: 50, offset: 0, ...shape.filter };
      return [
        async (t: (typeof tenants)[number]) =>
          (await listDeliveries(pool, { tenantId: t.tenant_id, livemode: true }, filter)).rows.length >= 0,
        async (t: (typeof tenants)[number]) => {
          const res = await floorHttp.request({
            path: '/',
            method: 'GET',
            headers: { 'x-tenant': t.tenant_id, 'x-filter': JSON.stringify(filter) },
          });
          await res.body.dump();
          return res.statusCode === 200;
        },
        async (t: (typeof tenants)[number]) => {
          const res = await api.request({
            path: `/v1/deliveries${shape.query}`,
            method: 'GET',
            headers: { authorization: `Bearer ${t.secret_key}` },
          });
          await res.body.dump();
          return res.statusCode === 200;
        },
      ];
    };
    const measure = async (shape: (typeof shapes)[number], rounds: number, label: string | null) => {
      const fns = sides(shape);
      const ms: number[][] = [[], [], []];
      const errors = [0, 0, 0];
      let round = 0;
      const one = async () => {
        const t = tenantFor();
        const first = round++ % 3;
        for (let k = 0; k < 3; k++) {
          const side = (first + k) % 3;
          const started = performance.now();
          const ok = await fns[side](t);
          ms[side].push(performance.now() - started);
          if (!ok) errors[side]++;
        }
        return true;
      };
      await load(label ?? 'warm-up', 240, 1, one, { quiet: label === null, maxRequests: rounds });
      const p95 = (side: number) =>
        pct(
          [...ms[side]].sort((x, y) => x - y),
          95,
        );
      return { bare: p95(0), floor: p95(1), api: p95(2), errors: errors[1] + errors[2] };
    };
    // The production API is warmed up as a running one would be (its hot paths compiled) before anything is measured.
    say('Warm-up: 200 rounds of every shape');
    for (const shape of shapes) await measure(shape, 200, null);

    const results: Record<string, string | number>[] = [];
    let allOk = true;
    for (const shape of shapes) {
      await measure(shape, 20, null);
      const {
        bare: bp95,
        floor: fp95,
        api: ap95,
        errors,
      } = await measure(shape, LIST_SAMPLES, `${shape.name}: bare SQL, HTTP floor and API in turn`);
      const ok = ap95 <= 20 && ap95 <= Math.max(1.5 * bp95, bp95 + 2) && errors === 0;
      allOk &&= ok;
      results.push({
        shape: shape.name,
        'bare SQL p95 ms': +bp95.toFixed(2),
        'HTTP floor p95 ms': +fp95.toFixed(2),
        'API p95 ms': +ap95.toFixed(2),
        'API - bare ms': +(ap95 - bp95).toFixed(2),
        ratio: +(ap95 / bp95).toFixed(2),
        errors,
        verdict: ok ? 'PASS' : 'FAIL',
      });
    }
    console.log('');
    console.table(results);
    console.log(
      `Targets: API p95 <= 20 ms, and <= 1.5x the bare SQL or within 2 ms of it. ${LIST_SAMPLES} sequential requests per shape and side, the three sides in turn, tenants in rotation. The HTTP floor (for reading): the same call behind bare node:http in its own process, the hop any API in its own process pays. ${machineLine()}.`,
    );
    return allOk;
  } finally {
    await cleanup();
  }
}

async function main() {
  let ok = true;
  if (ONLY !== 'list') ok = (await benchCreate()) && ok;
  if (ONLY !== 'create') ok = (await benchList()) && ok;
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error('The benchmark failed:', err);
  console.error('Is Postgres reachable (DATABASE_URL or 127.0.0.1:5432)? Is port 7233 free or TEMPORAL_ADDRESS set?');
  process.exit(1);
});
