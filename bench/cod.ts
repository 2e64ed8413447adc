// npm run bench:cod — cash on delivery (design.md "Cash on delivery"; docs/cash-on-delivery.md), each figure beside
// its floor or target, in a fresh database (dropped at the end) with the production build's API in a process of its own.
//
// 1. balances: 1,000,000 ledger entries over 100 tenants and 10 courier companies, bulk-loaded with SQL
//    (generate_series; ./cod-load.ts follows migrations/1700000030000_cash-on-delivery.sql and src/cod/ledger.ts: the
//    same accounts, journal transactions and collections the service books). p95 of GET /v1/cod/balances beside the
//    same SQL run bare in this process (the two repository reads the route makes, src/cod/repository.ts), the two
//    sides in turn, tenants in rotation. Targets: p95 <= 20 ms, and <= 1.5x the bare SQL or within 2 ms of it.
// 2. remittance: POST /v1/cod/remittances with 500 items, end to end: the rules on 500 locked collections, the
//    remittance and its items, the ledger's transactions, 500 cod.remitted events and their webhooks, in one database
//    transaction, answered 201. p50 over BENCH_COD_REMITTANCES remittances after one for warm-up. Target: <= 1 s.
// Settings: BENCH_COD_ENTRIES (1000000), BENCH_COD_TENANTS (100), BENCH_COD_COMPANIES (10), BENCH_COD_SAMPLES (600),
// BENCH_COD_REMITTANCES (7), BENCH_COD_ITEMS (500), BENCH_ONLY (balances|remittance).
import { randomUUID } from 'node:crypto';
import { Pool as HttpPool } from 'undici';
import { createTenant } from '../src/tenants/service.js';
import { createCourier } from '../src/couriers/service.js';
import { accountNets, outstandingSummary } from '../src/cod/repository.js';
import type { Pool } from '../src/platform/db.js';
import {
  benchDatabaseWithPool,
  benchTemporal,
  cleanupList,
  load,
  machineLine,
  pct,
  productionStack,
  say,
  type Cleanups,
} from './lib.js';
import { loadLedger, ledgerFigures } from './cod-load.js';

const ENTRIES = Number(process.env.BENCH_COD_ENTRIES ?? 1_000_000);
const TENANTS = Number(process.env.BENCH_COD_TENANTS ?? 100);
const COMPANIES = Number(process.env.BENCH_COD_COMPANIES ?? 10);
const SAMPLES = Number(process.env.BENCH_COD_SAMPLES ?? 600);
const REMITTANCES = Number(process.env.BENCH_COD_REMITTANCES ?? 7);
const ITEMS = Number(process.env.BENCH_COD_ITEMS ?? 500);
const ONLY = process.env.BENCH_ONLY;

interface Tenant {
  tenant_id: string;
  secret_key: string;
}

async function tenantsAndCompanies(pool: Pool, tenants: number, companies: number, label: string) {
  const ts: Tenant[] = [];
  for (let i = 0; i < tenants; i++) ts.push(await createTenant(pool, `${label}-tenant-${String(i).padStart(3, '0')}`));
  const cs: string[] = [];
  for (let i = 0; i < companies; i++) {
    const courier = await createCourier(pool, {
      name: `${label} courier ${i}`,
      slug: `${label}-courier-${i}-${Date.now()}`,
      adapter: 'rate_card',
      base_fee_aoa: 100_000,
      base_eta_minutes: 60,
    });
    cs.push(courier.courier_id);
  }
  return { tenants: ts, companies: cs };
}

/** The API (production build, its own process; the worker stopped: neither figure needs it) on the database. */
async function api(cleanups: Cleanups, databaseUrl: string) {
  const { address: temporalAddress } = await benchTemporal(cleanups);
  const { apiUrl, stopWorker } = await productionStack(cleanups, {
    databaseUrl,
    temporalAddress,
    taskQueue: `bench-cod-${Date.now()}`,
  });
  await stopWorker();
  const http = new HttpPool(apiUrl, { connections: 4, keepAliveTimeout: 30_000 });
  cleanups.push(() => http.close());
  return http;
}

async function benchBalances(): Promise<boolean> {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups);
    const { tenants, companies } = await tenantsAndCompanies(pool, TENANTS, COMPANIES, 'bench-cod');
    say(
      `Loading ${ENTRIES.toLocaleString('en')} ledger entries over ${TENANTS} tenants and ${COMPANIES} courier companies`,
    );
    const loaded = await loadLedger(pool, {
      tenants: tenants.map((t) => t.tenant_id),
      companies,
      entries: ENTRIES,
    });
    const figures = await ledgerFigures(pool);
    console.log(
      `    ${figures.entries.toLocaleString('en')} entries in ${figures.transactions.toLocaleString('en')} journal transactions (${figures.unbalanced} unbalanced), ${loaded.deliveries.toLocaleString('en')} collections, ${figures.remittances.toLocaleString('en')} remittances; loaded in ${loaded.seconds.toFixed(1)} s.`,
    );
    if (figures.unbalanced !== 0) throw new Error('the bulk load booked an unbalanced journal transaction');
    const http = await api(cleanups, databaseUrl);
    say('Checkpoint, then 5 s to settle');
    await pool.query('CHECKPOINT').catch(() => say('CHECKPOINT is not allowed for this role: measuring without it'));
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    // The same tenant two ways in each round, the order alternating: the machine in the same state for both.
    const sides = [
      async (t: Tenant) => {
        const scope = { tenantId: t.tenant_id, livemode: true };
        const [nets, summary] = await Promise.all([accountNets(pool, scope), outstandingSummary(pool, scope)]);
        return nets.length > 0 && summary.length > 0;
      },
      async (t: Tenant) => {
        const res = await http.request({
          path: '/v1/cod/balances',
          method: 'GET',
          headers: { authorization: `Bearer ${t.secret_key}` },
        });
        const body = (await res.body.json()) as { data?: unknown[] };
        return res.statusCode === 200 && (body.data?.length ?? 0) > 0;
      },
    ];
    const measure = async (rounds: number, label: string | null) => {
      const ms: number[][] = [[], []];
      const errors = [0, 0];
      let round = 0;
      const one = async () => {
        const t = tenants[round % tenants.length];
        const first = round++ % 2;
        for (const side of [first, 1 - first]) {
          const started = performance.now();
          const ok = await sides[side](t).catch(() => false);
          ms[side].push(performance.now() - started);
          if (!ok) errors[side]++;
        }
        return true;
      };
      await load(label ?? 'warm-up', 240, 1, one, { quiet: label === null, maxRequests: rounds });
      const p = (side: number, q: number) =>
        pct(
          [...ms[side]].sort((x, y) => x - y),
          q,
        );
      return { bare: p(0, 95), api: p(1, 95), bare50: p(0, 50), api50: p(1, 50), errors: errors[0] + errors[1] };
    };
    say('Warm-up: 200 rounds');
    await measure(200, null);
    const m = await measure(SAMPLES, 'balances: bare SQL and API in turn');
    const ok = m.api <= 20 && m.api <= Math.max(1.5 * m.bare, m.bare + 2) && m.errors === 0;
    console.log('');
    console.table([
      {
        'bare SQL p50 ms': +m.bare50.toFixed(2),
        'bare SQL p95 ms': +m.bare.toFixed(2),
        'API p50 ms': +m.api50.toFixed(2),
        'API p95 ms': +m.api.toFixed(2),
        'API - bare ms': +(m.api - m.bare).toFixed(2),
        ratio: +(m.api / m.bare).toFixed(2),
        errors: m.errors,
      },
    ]);
    console.log(
      `GET /v1/cod/balances p95 ${m.api.toFixed(2)} ms over ${figures.entries.toLocaleString('en')} ledger entries, bare SQL ${m.bare.toFixed(2)} ms (targets: <= 20 ms, and <= 1.5x the bare SQL or within 2 ms of it)   ${ok ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `${SAMPLES} sequential requests per side, the two sides in turn, ${TENANTS} tenants in rotation. ${machineLine()}; the API is the production build in its own process.`,
    );
    return ok;
  } finally {
    await cleanup();
  }
}

async function benchRemittance(): Promise<boolean> {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups);
    const { tenants, companies } = await tenantsAndCompanies(pool, 1, 1, 'bench-remit');
    const [tenant] = tenants;
    const batches = REMITTANCES + 1;
    say(`Loading ${(batches * ITEMS).toLocaleString('en')} collected cash-on-delivery deliveries, none remitted`);
    const loaded = await loadLedger(pool, {
      tenants: [tenant.tenant_id],
      companies,
      deliveries: batches * ITEMS,
      outstandingOnly: true,
    });
    const http = await api(cleanups, databaseUrl);
    const ids = loaded.deliveryIds;
    let batch = 0;
    let failure = '';
    const remit = async () => {
      const items = ids.slice(batch * ITEMS, ++batch * ITEMS).map((d, n) => ({
        delivery_id: d.id,
        // Every other item with the courier's fee kept out of the cash (at most the locked fee).
        amount_aoa: d.collected_aoa - (n % 2 ? d.fee_aoa : 0),
        ...(n % 2 ? { fee_deducted_aoa: d.fee_aoa } : {}),
      }));
      const res = await http.request({
        path: '/v1/cod/remittances',
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.secret_key}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({
          company_id: companies[0],
          paid_at: new Date().toISOString(),
          method: 'bank_transfer',
          items,
        }),
      });
      const body = (await res.body.json()) as { items?: unknown[] };
      if (res.statusCode !== 201 && !failure) failure = `${res.statusCode} ${JSON.stringify(body).slice(0, 600)}`;
      return res.statusCode === 201 && body.items?.length === ITEMS;
    };
    say('Warm-up: one remittance');
    const warm = await load('warm-up', 60, 1, remit, { quiet: true, maxRequests: 1 });
    const result = await load(`remittance of ${ITEMS} items`, 600, 1, remit, { maxRequests: REMITTANCES });
    const sorted = [...result.latencies].sort((a, b) => a - b);
    const events = (
      await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM delivery_events WHERE tenant_id = $1 AND event_type = 'cod.remitted'`,
        [tenant.tenant_id],
      )
    ).rows[0].n;
    const expectedEvents = (REMITTANCES + 1) * ITEMS;
    const errors = result.errors + warm.errors;
    const p50 = pct(sorted, 50);
    const ok = p50 <= 1000 && errors === 0 && events === expectedEvents;
    console.log('');
    console.table([
      {
        remittances: result.requests,
        items: ITEMS,
        'p50 ms': +p50.toFixed(1),
        'max ms': +(sorted[sorted.length - 1] ?? NaN).toFixed(1),
        'warm-up ms': +(warm.latencies[0] ?? NaN).toFixed(1),
        'cod.remitted events': events,
        errors,
      },
    ]);
    console.log(
      `POST /v1/cod/remittances with ${ITEMS} items p50 ${p50.toFixed(1)} ms end to end (201 with every item, ${events.toLocaleString('en')} of ${expectedEvents.toLocaleString('en')} cod.remitted events; target <= 1000 ms)   ${ok ? 'PASS' : 'FAIL'}`,
    );
    if (failure) console.log(`The first refused remittance: ${failure}`);
    console.log(`${machineLine()}; the API is the production build in its own process.`);
    return ok;
  } finally {
    await cleanup();
  }
}

async function main() {
  let ok = true;
  if (ONLY !== 'remittance') ok = (await benchBalances()) && ok;
  if (ONLY !== 'balances') ok = (await benchRemittance()) && ok;
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error('The benchmark failed:', err);
  console.error('Is Postgres reachable (DATABASE_URL or 127.0.0.1:5432)? Is port 7233 free or TEMPORAL_ADDRESS set?');
  process.exit(1);
});
