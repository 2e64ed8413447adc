// HTTP fuzzing of every endpoint of the three surfaces (merchant /v1/*, widget /v1/widget/*, public tracking)
// plus fleet events, webhook endpoints, pages and system routes, on the real stack (Postgres, Temporal, worker,
// courier simulator). fast-check generates requests: near-valid bodies (valid ones with fields deleted, replaced by
// hostile values, added, wrapped), arbitrary JSON, huge and deeply nested bodies (some beyond the body limit),
// query strings, path ids (own, another tenant's, garbage, very long, percent-encoded), and headers
// (Authorization, Idempotency-Key, Origin, Content-Type variants).
//
// Properties of every response (test/helpers/fuzz.ts `checkResponse`):
//   - never 5xx;
//   - every 4xx/5xx is application/problem+json with type ({base_url}/errors/<error>), title, status (= the HTTP
//     status), detail and error, and matches the document's Problem schema; a 429 carries Retry-After;
//   - every 2xx JSON body validates against the response schema of that operation and status in the served
//     OpenAPI document (GET /v1/openapi.json, compiled with ajv's draft 2020-12 validator);
//   - every response carries x-request-id.
//
// FUZZ_REQUESTS (default 100000) sets the number of requests, FUZZ_CONCURRENCY (default 24) the number of
// concurrent lanes, FUZZ_SEED the seed (printed at the end; the same seed generates the same requests).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { revokeKey } from '../../src/keys/service.js';
import type { Simulator } from '../../simulator/server.js';
import { ALLOWED_ORIGIN, BODY_LIMIT, type World } from '../helpers/fuzz-requests.js';
import { runFuzzWorker } from '../helpers/fuzz-worker.js';
import { createDeliveryFor, merchantWith, quoteBody, simCompany, startSimulator } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 24);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

let stack: Stack;
let sim: Simulator;
let world: World;

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack({
    rateLimitPerMinute: 1e9,
    widgetRateLimitPerMinute: 1e9,
    bodyLimitBytes: BODY_LIMIT,
    webhookScheduleMs: [0],
    webhookTimeoutMs: 1000,
  });
  const companyA = simCompany({ require_delivery_pin: true });
  const companyB = simCompany();
  const a = await merchantWith(stack, sim, [companyA], [], [ALLOWED_ORIGIN, 'https://shop.example:8443']);
  const b = await merchantWith(stack, sim, [companyB], [], ['http://b-shop.test']);
  const noCouriers = await stack.tenant([ALLOWED_ORIGIN]);
  const revoked = await stack.tenant([ALLOWED_ORIGIN]);
  await revokeKey(stack.pool, revoked.secret_key_id);
  await revokeKey(stack.pool, revoked.publishable_key_id);

  const deliveries = { a: [] as string[], b: [] as string[] };
  const trackingRefs: string[] = [];
  for (const extra of [
    {},
    { payment_method: 'bank_transfer' },
    { payment_method: 'cod', cash_collect_aoa: 100_000 },
    {},
    { payment_method: 'bank_transfer' },
  ]) {
    const d = await createDeliveryFor(stack, a, { ...extra, options: { metadata: { secret_note: 'fuzz' } } });
    deliveries.a.push(d.id);
    trackingRefs.push(d.reference);
  }
  for (let i = 0; i < 2; i++) deliveries.b.push((await createDeliveryFor(stack, b)).id);

  // Single-use quotes the fuzzer may turn into deliveries (a valid body now and then).
  const quoteIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await stack.request('POST', '/v1/quotes', { key: a.tenant.secret_key, body: quoteBody() });
    quoteIds.push(...res.body.data.map((q: { quote_id: string }) => q.quote_id));
  }
  quoteIds.push(randomUUID());

  const endpoints = { a: [] as string[], b: [] as string[] };
  for (const [m, list] of [
    [a, endpoints.a],
    [a, endpoints.a],
    [b, endpoints.b],
  ] as const) {
    const res = await stack.request('POST', '/v1/webhook_endpoints', {
      key: m.tenant.secret_key,
      body: { url: 'http://127.0.0.1:9/hook' },
    });
    list.push(res.body.id);
  }
  // Tracking refs assigned by the simulator's bookings, once dispatch has run.
  const { rows } = await stack.pool.query<{ ref: string }>(
    'SELECT courier_tracking_ref AS ref FROM deliveries WHERE courier_tracking_ref IS NOT NULL',
  );
  trackingRefs.push(...rows.map((r) => r.ref), 'no-such-ref');

  world = {
    a,
    b,
    noCouriers,
    revoked,
    fleet: [
      { slug: companyA.slug, secret: companyA.fleet_secret },
      { slug: companyB.slug, secret: companyB.fleet_secret },
    ],
    deliveries,
    trackingRefs,
    quoteIds,
    endpoints,
    messageIds: [],
  };
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

describe('fuzzing every endpoint', () => {
  it(
    `${TOTAL} requests: never 5xx, errors are problem+json, successes match the OpenAPI document`,
    async () => {
      const document = (await stack.request('GET', '/v1/openapi.json')).body;
      const result = await runFuzzWorker(
        { url: stack.url, document, world, total: TOTAL, concurrency: CONCURRENCY, seed: SEED },
        ROOT_DIR,
        (done, seconds) => console.log(`[fuzz] ${done} requests, ${seconds.toFixed(1)} s`),
      );
      const { sent, seconds } = result;
      const histogram = [...result.histogram].sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      console.log(
        `[fuzz] ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), concurrency ${CONCURRENCY}, seed ${SEED} (FUZZ_SEED=${SEED} repeats the same requests)\n` +
          `[fuzz] status histogram: ${histogram.map(([k, n]) => `${k}: ${n}`).join(', ')}\n` +
          result.perOp
            .filter(([op]) => !op.includes('(stray)'))
            .sort()
            .map(
              ([op, m]) =>
                `[fuzz]   ${op.padEnd(52)} ${m
                  .sort()
                  .map(([k, n]) => `${k}:${n}`)
                  .join(' ')}`,
            )
            .join('\n') +
          (result.known.length
            ? `\n[fuzz] known bugs (reported, not failing): ${result.known.map(([id, n]) => `${id} x${n}`).join(', ')}`
            : ''),
      );

      // One example per kind of violation, operation and status.
      const distinct = new Map<string, { v: (typeof result.violations)[number]; n: number }>();
      for (const v of result.violations) {
        const key = `${v.kind} | ${v.request.op} | ${v.status}`;
        const seen = distinct.get(key);
        if (seen) seen.n++;
        else distinct.set(key, { v, n: 1 });
      }
      const report = [...distinct.entries()].map(([key, { v, n }]) => ({
        violation: key,
        count: n,
        detail: v.detail,
        request: {
          method: v.request.method,
          path: v.request.path.slice(0, 300),
          headers: v.request.headers,
          body: v.request.body?.toString().slice(0, v.kind === '5xx' ? 2000 : 400),
        },
        response: { contentType: v.contentType, body: v.response },
      }));
      if (report.length) console.log(`[fuzz] ${result.violationCount} violations:\n` + JSON.stringify(report, null, 2));
      expect(report).toEqual([]);
      expect(sent).toBeGreaterThanOrEqual(TOTAL);
      // Transport failures (the server dropping connections) would hide answers: they must stay rare.
      const transport = histogram
        .filter(([k]) => String(k).startsWith('client-error:UND_ERR_SOCKET'))
        .reduce((n, [, c]) => n + c, 0);
      expect(transport).toBeLessThan(TOTAL / 100);
      // Still alive and well.
      expect((await stack.request('GET', '/readyz')).status).toBe(200);
    },
    30 * 60_000,
  );
});
