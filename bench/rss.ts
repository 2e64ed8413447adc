// npm run bench:rss — peak memory (RSS) of the API and the worker, each in its own process, under load:
// quotes and deliveries created at BENCH_CONCURRENCY for BENCH_DURATION_S, the courier simulator moving every
// delivery through its lifecycle, and a merchant webhook endpoint receiving every event.
// Targets: API <= 150 MB, worker <= 400 MB. Peak = the kernel's high-water mark (VmHWM), sampled each second.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createTenant } from '../src/tenants/service.js';
import { createCourier, linkCouriers } from '../src/couriers/service.js';
import { createSimulator, newFleetSecret } from '../simulator/server.js';
import {
  cleanupList,
  benchDatabaseWithPool,
  benchTemporal,
  webhookReceiver,
  productionStack,
  merchantApi,
  registerEndpoint,
  say,
  load,
  QUOTE_BODY,
  summarise,
  machineLine,
  stackCpu,
} from './lib.js';

const TARGETS = { api: 150, worker: 400 };
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
// BENCH_RSS_TRACE=1: prints each process's RSS, one figure a second, after the run (where the peak comes from).
const TRACE = process.env.BENCH_RSS_TRACE === '1';

/** Current and peak resident set size of a process, MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function main() {
  const { cleanups, cleanup } = cleanupList();
  try {
    const { databaseUrl, pool } = await benchDatabaseWithPool(cleanups);

    const { address: temporalAddress } = await benchTemporal(cleanups);

    const sim = await createSimulator({ port: 0, host: '127.0.0.1', companies: [], eventRetries: 30 });
    cleanups.push(() => sim.close());
    const tenant = await createTenant(pool, 'rss merchant');
    for (const i of [1, 2]) {
      const slug = `rss-${i}-${randomUUID().slice(0, 6)}`;
      const secret = newFleetSecret();
      sim.control.upsert({
        slug,
        fleet_secret: secret,
        latency_ms: 20,
        pricing: { base_fee_aoa: 100_000 * i },
        auto_progress: { delay_ms: 200 },
      });
      await createCourier(pool, {
        name: slug,
        slug,
        adapter: 'http',
        endpoint: sim.endpoint(slug),
        fleet_secret: secret,
      });
      await linkCouriers(pool, tenant.tenant_id, slug);
    }
    const receiver = await webhookReceiver(cleanups);

    const { apiUrl, api, worker } = await productionStack(cleanups, {
      databaseUrl,
      temporalAddress,
      taskQueue: `rss-${Date.now()}`,
    });

    const call = merchantApi(cleanups, apiUrl, tenant.secret_key, CONCURRENCY * 2);
    await registerEndpoint(call, receiver.url);

    const baseline = { api: memory(api.pid!), worker: memory(worker.pid!) };
    const cpuBefore = stackCpu({ api: api.pid!, worker: worker.pid! }, -1);
    console.log(
      `idle: API rss ${baseline.api.rss.toFixed(0)} hwm ${baseline.api.peak.toFixed(0)}, worker rss ${baseline.worker.rss.toFixed(0)} hwm ${baseline.worker.peak.toFixed(0)}`,
    );
    const peak = { api: baseline.api.peak, worker: baseline.worker.peak };
    const trace = { api: [] as number[], worker: [] as number[] };
    const sampler = setInterval(() => {
      for (const [name, child] of [
        ['api', api],
        ['worker', worker],
      ] as const) {
        try {
          const m = memory(child.pid!);
          peak[name] = Math.max(peak[name], m.peak);
          if (TRACE) trace[name].push(Math.round(m.rss));
        } catch {
          /* exited */
        }
      }
    }, 1000);

    say(
      `Load: quote + create at concurrency ${CONCURRENCY} for ${DURATION_S} s; the simulator drives every delivery to delivered`,
    );
    const result = await load('quote + create', DURATION_S, CONCURRENCY, async () => {
      const quotes = await call('POST', '/v1/quotes', QUOTE_BODY);
      if (quotes.status !== 200 || !quotes.json.data.length) return false;
      const created = await call('POST', '/v1/deliveries', { quote_id: quotes.json.data[0].quote_id, ...QUOTE_BODY });
      return created.status === 201;
    });
    say('Letting the lifecycles and webhooks drain (20 s)');
    await new Promise((r) => setTimeout(r, 20_000));
    clearInterval(sampler);
    const cpuAfter = stackCpu({ api: api.pid!, worker: worker.pid! }, -1);
    const cpuPerPair = (name: 'api' | 'worker') =>
      (cpuAfter[name] - cpuBefore[name]) / Math.max(result.requests - result.errors, 1);
    for (const [name, child] of [
      ['api', api],
      ['worker', worker],
    ] as const)
      peak[name] = Math.max(peak[name], memory(child.pid!).peak);

    if (TRACE)
      for (const [name, mbs] of Object.entries(trace))
        console.log(`RSS MB of the ${name}, each second: ${mbs.join(' ')}`);
    const { rows } = await pool.query(
      `SELECT status, count(*)::int AS n FROM deliveries GROUP BY status ORDER BY status`,
    );
    console.log('');
    console.table([summarise(result, 'quote + create (one request pair)')]);
    console.table([
      {
        process: 'API',
        'idle RSS MB': +baseline.api.rss.toFixed(0),
        'peak RSS MB': +peak.api.toFixed(0),
        'target MB': TARGETS.api,
        'CPU ms per request pair': +(cpuPerPair('api') * 1000).toFixed(1),
        verdict: peak.api <= TARGETS.api ? 'PASS' : 'FAIL',
      },
      {
        process: 'worker',
        'idle RSS MB': +baseline.worker.rss.toFixed(0),
        'peak RSS MB': +peak.worker.toFixed(0),
        'target MB': TARGETS.worker,
        'CPU ms per request pair': +(cpuPerPair('worker') * 1000).toFixed(1),
        verdict: peak.worker <= TARGETS.worker ? 'PASS' : 'FAIL',
      },
    ]);
    console.log(
      `Deliveries by status: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}; ${receiver.received()} webhooks received. ${machineLine()}.`,
    );
    if (peak.api > TARGETS.api || peak.worker > TARGETS.worker) process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error('The benchmark failed:', err);
  console.error('Is Postgres reachable (DATABASE_URL or 127.0.0.1:5432) and TEMPORAL_ADDRESS (if set) up?');
  process.exit(1);
});
