// npm run bench:quotes — latency and throughput of POST /v1/quotes against 5 simulated couriers.
//
// Brings up what it needs: a fresh Postgres database (dropped at the end), Temporal from TEMPORAL_ADDRESS or a
// dev server of its own on a free port, the courier simulator as its own process (npm run simulator) with 5
// companies answering in 50 ms, and the API in this process (buildApp) on a free port. Then, in the same run,
// at concurrency 1 and at BENCH_CONCURRENCY:
//   1. bare fan-out: the 5 courier calls made directly against the simulator, in parallel (the slowest courier);
//   2. POST /v1/quotes with the 5 companies;
// and 3. POST /v1/quotes with one of them hanging: p99 must stay bounded by the courier timeout.
// Overhead = API p50 - bare fan-out p50 at the same concurrency (target <= 10 ms). Each scenario is a
// bounded-concurrency loop in a worker thread, so the API's event loop does no client work.
// Settings: BENCH_DURATION_S (10), BENCH_CONCURRENCY (16), BENCH_TIMEOUT_MS (courier timeout, 2000), BENCH_LATENCY_MS (50).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { closeCourierAgent } from '../src/couriers/adapters/http.js';
import { buildApp } from '../src/app.js';
import { loadConfig, ROOT_DIR, type Config } from '../src/platform/config.js';
import { createPool } from '../src/platform/db.js';
import { createTenant } from '../src/tenants/service.js';
import { createCourier, linkCouriers } from '../src/couriers/service.js';
import { newFleetSecret, type CompanyConfig } from '../simulator/server.js';
import { Worker } from 'node:worker_threads';
import { freePort, waitForPort } from '../scripts/lib/net.js';
import { benchDatabase, benchTemporal, cleanupList, pct, say } from './lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 50);
const COMPANIES = 5;
const WARMUP_S = 2;

interface Result {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

// The load generator runs in a worker thread, so the API's event loop (this thread) does no client work.
// Plain JavaScript, evaluated in the worker; undici is resolved from the project.
const LOAD_WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { Pool, Agent, request } = require('node:module').createRequire(w.root + '/')('undici');
const api = new Pool(w.apiUrl, { connections: w.concurrency * 2, keepAliveTimeout: 30000 });
const agent = new Agent({ keepAliveTimeout: 30000, connections: 256 });
const callApi = async () => {
  const res = await api.request({ path: '/v1/quotes', method: 'POST', headers: { authorization: 'Bearer ' + w.key, 'content-type': 'application/json' }, body: w.body });
  const json = await res.body.json();
  return res.statusCode === 200 && Array.isArray(json.data) && json.data.length === w.expected;
};
const bareFanOut = async () => {
  const answers = await Promise.all(w.slugs.map(async (slug) => {
    const res = await request(w.simUrl + '/' + slug + '/quotes', { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: w.body });
    await res.body.json();
    return res.statusCode === 200;
  }));
  return answers.every(Boolean);
};
const fn = w.mode === 'api' ? callApi : bareFanOut;
(async () => {
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + w.seconds * 1000;
  let last = 0;
  const ticker = setInterval(() => { parentPort.postMessage({ progress: latencies.slice(last), total: latencies.length, errors }); last = latencies.length; }, 1000);
  await Promise.all(Array.from({ length: w.concurrency }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      let ok = false;
      try { ok = await fn(); } catch { ok = false; }
      latencies.push(performance.now() - t0);
      if (!ok) errors++;
    }
  }));
  clearInterval(ticker);
  parentPort.postMessage({ done: true, latencies, errors, seconds: (performance.now() - started) / 1000 });
  await api.close(); await agent.close();
})();
`;

interface LoadTarget {
  apiUrl: string;
  key: string;
  simUrl: string;
  slugs: string[];
  body: string;
  expected: number;
}

/** `concurrency` loops for `seconds` against the API or straight against the simulator; prints a progress line every second. */
function load(
  name: string,
  mode: 'api' | 'bare',
  seconds: number,
  concurrency: number,
  target: LoadTarget,
  quiet = false,
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, {
      eval: true,
      workerData: { ...target, mode, seconds, concurrency, root: ROOT_DIR },
    });
    let elapsed = 0;
    worker.on(
      'message',
      (m: {
        progress?: number[];
        total: number;
        errors: number;
        done?: boolean;
        latencies?: number[];
        seconds?: number;
      }) => {
        if (m.done) {
          resolve({
            name,
            requests: m.latencies!.length,
            errors: m.errors,
            seconds: m.seconds!,
            latencies: m.latencies!,
          });
          return;
        }
        elapsed++;
        if (quiet) return;
        const sorted = m.progress!.sort((a, b) => a - b);
        console.log(
          `    [${name}] ${String(elapsed).padStart(3)} s  ${String(m.total).padStart(6)} requests  last second p50 ${pct(sorted, 50).toFixed(1)} ms  p99 ${pct(sorted, 99).toFixed(1)} ms  errors ${m.errors}`,
        );
      },
    );
    worker.once('error', reject);
  });
}

function row(r: Result) {
  const s = [...r.latencies].sort((a, b) => a - b);
  return {
    scenario: r.name,
    requests: r.requests,
    'req/s': Math.round(r.requests / r.seconds),
    'p50 ms': +pct(s, 50).toFixed(1),
    'p90 ms': +pct(s, 90).toFixed(1),
    'p99 ms': +pct(s, 99).toFixed(1),
    'max ms': +s[s.length - 1].toFixed(1),
    errors: r.errors,
  };
}

async function main() {
  const { cleanups, cleanup } = cleanupList();
  try {
    const databaseUrl = await benchDatabase(cleanups);
    const { address: temporalAddress } = await benchTemporal(cleanups);

    say(`Courier simulator (own process): ${COMPANIES} companies answering in ${LATENCY_MS} ms`);
    const simPort = await freePort();
    const companies: CompanyConfig[] = Array.from({ length: COMPANIES }, (_, i) => ({
      slug: `bench-${i + 1}`,
      fleet_secret: newFleetSecret(),
      latency_ms: LATENCY_MS,
      pricing: { base_fee_aoa: 100_000 + i * 10_000, per_kg_aoa: 1_000 },
    }));
    const configFile = path.join(os.tmpdir(), `bench-quotes-sim-${process.pid}.json`);
    fs.writeFileSync(configFile, JSON.stringify({ companies }));
    cleanups.push(async () => fs.rmSync(configFile, { force: true }));
    const sim: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', 'simulator/main.ts', '--port', String(simPort), '--config', configFile, '--quiet'],
      {
        cwd: ROOT_DIR,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          if (sim.exitCode !== null) return resolve();
          sim.once('exit', () => resolve());
          sim.kill('SIGTERM');
        }),
    );
    await waitForPort(simPort, '127.0.0.1', 30_000);
    const simUrl = `http://127.0.0.1:${simPort}`;

    say('API in this process');
    const config: Config = {
      ...loadConfig({}),
      databaseUrl,
      temporalAddress,
      logLevel: 'silent',
      rateLimitPerMinute: 10_000_000,
      widgetRateLimitPerMinute: 10_000_000,
    };
    const pool = createPool(databaseUrl, 20);
    cleanups.push(() => pool.end());
    const connection = await Connection.connect({ address: temporalAddress });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection, namespace: config.temporalNamespace });
    const apiPort = await freePort();
    config.port = apiPort;
    config.baseUrl = `http://127.0.0.1:${apiPort}`;
    const app = await buildApp({ config, pool, temporal }, { logger: false });
    await app.listen({ port: apiPort, host: '127.0.0.1' });
    cleanups.push(() => app.close());
    cleanups.push(() => closeCourierAgent());

    const tenant = await createTenant(pool, 'bench merchant');
    for (const c of companies) {
      await createCourier(pool, {
        name: c.slug,
        slug: c.slug,
        adapter: 'http',
        endpoint: `${simUrl}/${c.slug}`,
        fleet_secret: c.fleet_secret,
        timeout_ms: TIMEOUT_MS,
      });
    }
    await linkCouriers(pool, tenant.tenant_id, 'all');

    const target: LoadTarget = {
      apiUrl: config.baseUrl,
      key: tenant.secret_key,
      simUrl,
      slugs: companies.map((c) => c.slug),
      expected: COMPANIES,
      body: JSON.stringify({
        origin: { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' },
        destination: { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' },
        parcel: { weight_grams: 2500 },
      }),
    };

    say(`Warm-up (${WARMUP_S} s)`);
    await load('warm-up', 'bare', WARMUP_S, CONCURRENCY, target, true);
    await load('warm-up', 'api', WARMUP_S, CONCURRENCY, target, true);

    const levels = [...new Set([1, CONCURRENCY])];
    say(`Measuring: ${DURATION_S} s per scenario, concurrency ${levels.join(' and ')}`);
    const pairs: { concurrency: number; bare: Result; api: Result }[] = [];
    for (const concurrency of levels) {
      const bare = await load(`bare fan-out, c=${concurrency}`, 'bare', DURATION_S, concurrency, target);
      const api = await load(`api, c=${concurrency}`, 'api', DURATION_S, concurrency, target);
      pairs.push({ concurrency, bare, api });
    }

    const hangSlug = companies[COMPANIES - 1].slug;
    await fetch(`${simUrl}/_control/${hangSlug}`, { method: 'PATCH', body: JSON.stringify({ hang: true }) });
    const hanging = await load(`api, 1 hanging, c=${CONCURRENCY}`, 'api', DURATION_S, CONCURRENCY, {
      ...target,
      expected: COMPANIES - 1,
    });

    const rows = [
      ...pairs.flatMap((p) => [
        {
          ...row(p.bare),
          scenario: `bare fan-out to the simulator (${COMPANIES} x ${LATENCY_MS} ms), c=${p.concurrency}`,
        },
        { ...row(p.api), scenario: `POST /v1/quotes, ${COMPANIES} couriers, c=${p.concurrency}` },
      ]),
      {
        ...row(hanging),
        scenario: `POST /v1/quotes, 1 of ${COMPANIES} hanging (timeout ${TIMEOUT_MS} ms), c=${CONCURRENCY}`,
      },
    ];
    console.log('');
    console.table(rows);
    let ok = true;
    for (const p of pairs) {
      const b = row(p.bare);
      const a = row(p.api);
      const overheadP50 = a['p50 ms'] - b['p50 ms'];
      const pass = overheadP50 <= 10;
      ok &&= pass;
      console.log(
        `Overhead over the slowest courier at concurrency ${p.concurrency}: p50 ${overheadP50.toFixed(1)} ms, p99 ${(a['p99 ms'] - b['p99 ms']).toFixed(1)} ms   (target p50 <= 10 ms: ${pass ? 'PASS' : 'FAIL'})`,
      );
    }
    const h = row(hanging);
    const hangBound = TIMEOUT_MS + 250;
    const okHang = h.errors === 0 && h['p99 ms'] <= hangBound + 100 && h['max ms'] <= hangBound + 500;
    console.log(
      `One courier hanging: p99 ${h['p99 ms']} ms, max ${h['max ms']} ms with a ${TIMEOUT_MS} ms courier timeout   (bounded: ${okHang ? 'PASS' : 'FAIL'})`,
    );
    console.log(
      `Node ${process.version}, ${os.cpus().length} CPU (${os.cpus()[0]?.model.trim()}), load average ${os.loadavg()[0].toFixed(1)}, ${DURATION_S} s per scenario;`,
    );
    console.log(`API in the main thread, load generator in a worker thread, simulator in its own process.`);
    if (!ok || !okHang) process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error('The benchmark failed:', err);
  process.exit(1);
});
