// npm run bench:rss — peak memory (RSS) of the API and the worker, each in its own process, under load:
// quotes and deliveries created at BENCH_CONCURRENCY for BENCH_DURATION_S, the courier simulator moving every
// delivery through its lifecycle, and a merchant webhook endpoint receiving every event.
// Targets: API <= 150 MB, worker <= 400 MB. Peak = the kernel's high-water mark (VmHWM), sampled each second.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Pool as HttpPool } from 'undici';
import { createPool } from '../src/db.js';
import { createCourier, createTenant, linkCouriers } from '../src/lib/tenants.js';
import { dropDatabase } from '../scripts/lib/postgres.js';
import { waitForPort } from '../scripts/lib/net.js';
import { createSimulator, newFleetSecret } from '../simulator/server.js';
import { benchDatabase, benchTemporal, cleanupList, load, machineLine, say, summarise, webhookReceiver } from './lib.js';
import { Proc, productionBuild } from '../scripts/lib/processes.js';
import { freePort } from '../scripts/lib/net.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const TARGETS = { api: 150, worker: 400 };

const BODY = {
  origin: { address_line: 'Rua Rainha Ginga 29', city: 'Luanda', province: 'Luanda' },
  destination: { address_line: 'Avenida Deolinda Rodrigues 512', city: 'Luanda', province: 'Luanda' },
  parcel: { weight_grams: 1200 },
};

/** Current and peak resident set size of a process, MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function main() {
  const { cleanups, cleanup } = cleanupList();
  try {
    const databaseUrl = await benchDatabase(cleanups, `delivery_api_bench_rss_${Date.now()}`);
    cleanups.push(() => dropDatabase(databaseUrl));
    const pool = createPool(databaseUrl, 4);
    cleanups.push(() => pool.end());

    const { address: temporalAddress } = await benchTemporal(cleanups);

    const sim = await createSimulator({ port: 0, host: '127.0.0.1', companies: [], eventRetries: 30 });
    cleanups.push(() => sim.close());
    const tenant = await createTenant(pool, 'rss merchant');
    for (const i of [1, 2]) {
      const slug = `rss-${i}-${randomUUID().slice(0, 6)}`;
      const secret = newFleetSecret();
      sim.control.upsert({ slug, fleet_secret: secret, latency_ms: 20, pricing: { base_fee_aoa: 100_000 * i }, auto_progress: { delay_ms: 200 } });
      await createCourier(pool, { name: slug, slug, adapter: 'http', endpoint: sim.endpoint(slug), fleet_secret: secret });
      await linkCouriers(pool, tenant.tenant_id, slug);
    }
    const receiver = await webhookReceiver(cleanups);

    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      PORT: String(apiPort),
      PUBLIC_BASE_URL: apiUrl,
      TEMPORAL_TASK_QUEUE: `rss-${Date.now()}`,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000000',
      ALLOW_LOOPBACK_WEBHOOKS: 'true', // the receiver listens on 127.0.0.1
    };
    // The production build and flags (npm run build; npm run start:api / start:worker).
    say('Production build (npm run build)');
    productionBuild();
    const start = (script: 'start:api' | 'start:worker'): ChildProcess => {
      const proc = Proc.production(script, script, { env });
      cleanups.push(() => proc.stop());
      return proc.start();
    };
    say('API and worker, each in its own process');
    const worker = start('start:worker');
    const api = start('start:api');
    await waitForPort(apiPort, '127.0.0.1', 60_000);

    const http1 = new HttpPool(apiUrl, { connections: CONCURRENCY * 2 });
    cleanups.push(() => http1.close());
    const call = async (method: 'GET' | 'POST', pathname: string, body?: unknown) => {
      const res = await http1.request({
        method,
        path: pathname,
        headers: { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.statusCode, json: (await res.body.json()) as any };
    };
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.json)}`);

    const baseline = { api: memory(api.pid!), worker: memory(worker.pid!) };
    const peak = { api: baseline.api.peak, worker: baseline.worker.peak };
    const sampler = setInterval(() => {
      for (const [name, child] of [
        ['api', api],
        ['worker', worker],
      ] as const) {
        try {
          peak[name] = Math.max(peak[name], memory(child.pid!).peak);
        } catch {
          /* exited */
        }
      }
    }, 1000);

    say(`Load: quote + create at concurrency ${CONCURRENCY} for ${DURATION_S} s; the simulator drives every delivery to delivered`);
    const result = await load('quote + create', DURATION_S, CONCURRENCY, async () => {
      const quotes = await call('POST', '/v1/quotes', BODY);
      if (quotes.status !== 200 || !quotes.json.data.length) return false;
      const created = await call('POST', '/v1/deliveries', { quote_id: quotes.json.data[0].quote_id, ...BODY });
      return created.status === 201;
    });
    say('Letting the lifecycles and webhooks drain (20 s)');
    await new Promise((r) => setTimeout(r, 20_000));
    clearInterval(sampler);
    for (const [name, child] of [
      ['api', api],
      ['worker', worker],
    ] as const)
      peak[name] = Math.max(peak[name], memory(child.pid!).peak);

    const { rows } = await pool.query(`SELECT status, count(*)::int AS n FROM deliveries GROUP BY status ORDER BY status`);
    console.log('');
    console.table([summarise(result, 'quote + create (one request pair)')]);
    console.table([
      {
        process: 'API',
        'idle RSS MB': +baseline.api.rss.toFixed(0),
        'peak RSS MB': +peak.api.toFixed(0),
        'target MB': TARGETS.api,
        verdict: peak.api <= TARGETS.api ? 'PASS' : 'FAIL',
      },
      {
        process: 'worker',
        'idle RSS MB': +baseline.worker.rss.toFixed(0),
        'peak RSS MB': +peak.worker.toFixed(0),
        'target MB': TARGETS.worker,
        verdict: peak.worker <= TARGETS.worker ? 'PASS' : 'FAIL',
      },
    ]);
    console.log(`Deliveries by status: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}; ${receiver.received()} webhooks received. ${machineLine()}.`);
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
