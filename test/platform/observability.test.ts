// Observability on the real stack (docs/operations.md "Observability"): after deliveries' lifecycles (delivered,
// stalled, redispatched by an operator and by automatic failover, a failing courier, webhooks that succeed and fail),
// the API's and the worker's metrics endpoints are scraped and must hold the expected series with non-zero values;
// the API's and the worker's logs are captured, must be JSON naming tenants, keys, workflows and deliveries, and must
// not hold any secret the traffic used (keys, tokens, webhook and fleet secrets, PINs, client secrets).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { CompanyConfig, Simulator } from '../../simulator/server.js';
import { ROOT_DIR, loadConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/observability/logger.js';
import { startMetricsServer, type MetricsServer } from '../../src/platform/observability/metrics-server.js';
import { freePort } from '../../src/platform/net.js';
import { createUser } from '../../src/users/service.js';
import { startWorkerMetrics } from '../../src/worker.js';
import { deliveryWorkflowId, operatorActionSignal } from '../../shared/deliveries/definitions.js';
import {
  createDeliveryFor,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { installRuntime, startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';
const METRICS_TOKEN = randomBytes(32).toString('hex');

/** Every log line of the API and the worker (pino writes one JSON document per line). */
const lines: string[] = [];
const capture = { write: (line: string) => void lines.push(line) };

let stack: Stack;
let sim: Simulator;
let apiMetrics: MetricsServer;
let workerMetrics: MetricsServer;
/** Every secret the traffic below used: none may appear in a log line. */
const secrets = new Map<string, string>();

/** A webhook receiver answering `status` to every POST. */
async function receiver(status: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
const receivers: { close: () => Promise<void> }[] = [];

beforeAll(async () => {
  // The worker's own runtime: its logger (pino into `lines`) and Temporal Core's metrics on a loopback port.
  const logger = createLogger('debug', 'worker', capture);
  const coreMetricsAddress = `127.0.0.1:${await freePort()}`;
  installRuntime(logger, { coreMetricsAddress });
  sim = await startSimulator();
  stack = await startStack(
    { logLevel: 'debug', metricsToken: METRICS_TOKEN, dispatchMaxAttempts: 2, dispatchInitialIntervalMs: 50 },
    { logger: { stream: capture } },
  );
  secrets.set('admin token', stack.config.adminToken!);
  secrets.set('metrics token', METRICS_TOKEN);
  // The processes' listeners, as src/server.ts and src/worker.ts start them (any free port here).
  apiMetrics = await startMetricsServer({ port: 0, host: '127.0.0.1' });
  workerMetrics = await startWorkerMetrics(
    { ...stack.config, metricsHost: '127.0.0.1', metricsStatusCacheMs: 0 },
    stack.pool,
    0,
    `http://${coreMetricsAddress}/metrics`,
  );
}, 120_000);

afterAll(async () => {
  await apiMetrics?.close();
  await workerMetrics?.close();
  await stack?.close();
  await sim?.close();
  for (const r of receivers) await r.close();
});

/** A merchant whose couriers are these simulated companies, with the secrets it holds recorded. */
async function merchant(companies: CompanyConfig[]): Promise<Merchant> {
  const m = await merchantWith(stack, sim, companies, [], [SHOP]);
  secrets.set(`secret key of ${m.tenant.tenant_id}`, m.tenant.secret_key);
  secrets.set(`publishable key of ${m.tenant.tenant_id}`, m.tenant.publishable_key);
  for (const c of companies) secrets.set(`fleet secret of ${c.slug}`, c.fleet_secret);
  return m;
}

async function webhookEndpoint(m: Merchant, status: number): Promise<void> {
  const r = await receiver(status);
  receivers.push(r);
  const res = await stack.request('POST', '/v1/webhook_endpoints', { key: m.tenant.secret_key, body: { url: r.url } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  secrets.set(`webhook secret of ${res.body.id}`, res.body.secret);
}

/** A signed fleet event through the simulator; waits until the delivery has recorded it. */
async function fleet(m: Merchant, d: any, eventType: string, payload?: Record<string, unknown>) {
  const current = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: m.tenant.secret_key })).body;
  const sent = await sim.control.sendEvent(m.slug, {
    tracking_ref: current.courier.tracking_ref,
    event_type: eventType,
    payload,
  });
  expect(sent.response_status).toBe(202);
  return waitFor(stack, m.tenant.secret_key, d.id, (x) =>
    x.events.some((e: any) => e.event_type === `delivery.${eventType}`),
  );
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not the exposition format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; samples: Sample[] }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, text, samples: res.status === 200 ? parse(text) : [] };
}

/** The sum of the samples named `name` whose labels include `labels`. */
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

let delivered: Merchant;
let rejecting: CompanyConfig;

describe('a day of deliveries', () => {
  it('delivered with its PIN, webhooks to a receiver that takes them and one that fails', async () => {
    const company = simCompany({ require_delivery_pin: true });
    delivered = await merchant([company]);
    await webhookEndpoint(delivered, 200);
    await webhookEndpoint(delivered, 503);
    const d = await createDeliveryFor(stack, delivered);
    secrets.set(`PIN of ${d.id}`, d.delivery_pin);
    await waitForStatus(stack, delivered.tenant.secret_key, d.id, 'assigned');
    for (const step of ['pickup_ready', 'in_transit', 'out_for_delivery']) await fleet(delivered, d, step);
    const done = await fleet(delivered, d, 'delivered', { pin: d.delivery_pin });
    expect(done.status).toBe('delivered');
  });

  it('through the widget: a client secret in the query string, PIN and contacts in the answer', async () => {
    const q = await quote(stack, delivered);
    const widget = { key: delivered.tenant.publishable_key, headers: { origin: SHOP } };
    const created = await stack.request('POST', '/v1/widget/deliveries', {
      ...widget,
      body: { quote_id: q.quote_id, ...quoteBody() },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    secrets.set(`client secret of ${created.body.id}`, created.body.client_secret);
    secrets.set(`PIN of ${created.body.id}`, created.body.delivery_pin);
    const got = await stack.request(
      'GET',
      `/v1/widget/deliveries/${created.body.id}?client_secret=${encodeURIComponent(created.body.client_secret)}`,
      widget,
    );
    expect(got.status).toBe(200);
    expect(got.body.delivery_pin).toBe(created.body.delivery_pin);
  });

  it('a courier that refuses the booking: stalled, then redispatched by an operator to one that takes it', async () => {
    rejecting = simCompany({ reject_bookings: 422 });
    const good = simCompany();
    const m = await merchant([rejecting, good]);
    const d = await createDeliveryFor(stack, m, {}, rejecting.slug);
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'stalled');
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).signal(operatorActionSignal, {
      action: 'redispatch',
      company_id: m.couriers[good.slug],
      note: 'courier refuses',
    });
    await waitFor(stack, m.tenant.secret_key, d.id, (x) =>
      x.events.some((e: any) => e.event_type === 'delivery.redispatched'),
    );
    // And one left stalled for the gauge. Its booking, asked for by a payment confirmation, is a regular activity from
    // its first attempt (the first one above ran as a local activity): both kinds of activity failure are counted.
    const left = await createDeliveryFor(stack, m, { payment_method: 'bank_transfer' }, rejecting.slug);
    const confirmed = await stack.request('POST', `/v1/deliveries/${left.id}/payment_confirmation`, {
      key: m.tenant.secret_key,
    });
    expect(confirmed.body.status).toBe('pending');
    await waitForStatus(stack, m.tenant.secret_key, left.id, 'stalled');
  });

  it('automatic failover: the booking refused, the tenant policy moves the delivery to its other company', async () => {
    const first = simCompany({
      reject_bookings: 422,
      pricing: { base_fee_aoa: 100_000, per_km_aoa: 0, base_eta_minutes: 30 },
    });
    const second = simCompany({ pricing: { base_fee_aoa: 100_000, per_km_aoa: 0, base_eta_minutes: 30 } });
    const m = await merchant([first, second]);
    const policy = await stack.request('PUT', '/v1/settings/dispatch', {
      key: m.tenant.secret_key,
      body: { auto_redispatch: true },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const moved = await waitFor(stack, m.tenant.secret_key, d.id, (x) =>
      x.events.some((e: any) => e.event_type === 'delivery.redispatched'),
    );
    expect(moved.events.find((e: any) => e.event_type === 'delivery.redispatched').payload).toMatchObject({
      automatic: true,
    });
  });

  it('a courier whose quotes fail; callers with wrong credentials; the operator and the metrics tokens', async () => {
    const failing = simCompany({ failure_rate: 1, faults_on: ['quotes'] });
    const m = await merchant([failing]);
    const res = await stack.request('POST', '/v1/quotes', { key: m.tenant.secret_key, body: quoteBody() });
    expect([502, 200]).toContain(res.status);
    const wrongKey = `sk_live_${randomBytes(24)
      .toString('base64url')
      .replace(/[^a-zA-Z0-9]/g, 'x')
      .slice(0, 32)}`;
    secrets.set('a key that does not exist', wrongKey);
    expect((await stack.request('GET', '/v1/deliveries', { key: wrongKey })).status).toBe(401);
    const roundTrip = await stack.request('POST', '/v1/diagnostics/round_trip', {
      headers: { authorization: `Bearer ${stack.config.adminToken}` },
    });
    expect(roundTrip.status, JSON.stringify(roundTrip.body)).toBe(200);
  });
});

describe('the dashboard', () => {
  it('a set-password link, sign-in (a wrong password first), CSRF-protected changes, an invitation and sign-out', async () => {
    const tenantId = delivered.tenant.tenant_id;
    const created = await createUser(stack.pool, stack.config.dashboard, stack.url, {
      tenantId,
      email: `dona-${randomBytes(4).toString('hex')}@loja.test`,
      role: 'owner',
    });
    const token = new URL(created.set_password_url).hash.replace(/^#token=/, '');
    secrets.set('set-password link', created.set_password_url);
    secrets.set('set-password token', token);
    const password = `senha ${randomBytes(12).toString('hex')}`;
    const tooShort = randomBytes(4).toString('hex');
    const wrongPassword = `errada ${randomBytes(12).toString('hex')}`;
    secrets.set('password', password);
    secrets.set('a password too short', tooShort);
    secrets.set('a wrong password', wrongPassword);
    const same = { origin: stack.url, 'sec-fetch-site': 'same-origin' };

    stack.expectProblem(
      await stack.request('POST', '/dashboard/api/password', { body: { token, password: tooShort }, headers: same }),
      422,
      'validation_failed',
    );
    expect(
      (await stack.request('POST', '/dashboard/api/password', { body: { token, password }, headers: same })).status,
    ).toBe(204);
    stack.expectProblem(
      await stack.request('POST', '/dashboard/api/password', { body: { token, password }, headers: same }),
      422,
      'password_link_invalid',
    );
    stack.expectProblem(
      await stack.request('POST', '/dashboard/api/session', {
        body: { email: created.user.email, password: wrongPassword },
        headers: same,
      }),
      401,
      'invalid_credentials',
    );
    const session = await stack.request('POST', '/dashboard/api/session', {
      body: { email: created.user.email, password },
      headers: same,
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const cookie = session.headers.get('set-cookie')!.split(';')[0];
    secrets.set('session cookie', cookie.split('=')[1]);
    secrets.set('CSRF token', session.body.csrf_token);
    const wrongCsrf = randomBytes(32).toString('base64url');
    secrets.set('a wrong CSRF token', wrongCsrf);
    const asDashboard = (method: string, path: string, body?: unknown, csrf: string = session.body.csrf_token) =>
      stack.request(method, path, { body, headers: { ...same, cookie, 'x-csrf-token': csrf } });

    expect((await asDashboard('GET', '/dashboard/api/session')).body.csrf_token).toBe(session.body.csrf_token);
    const r = await receiver(200);
    receivers.push(r);
    stack.expectProblem(
      await asDashboard('POST', '/v1/webhook_endpoints', { url: r.url }, wrongCsrf),
      403,
      'csrf_token_invalid',
    );
    const endpoint = await asDashboard('POST', '/v1/webhook_endpoints', { url: r.url });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    secrets.set(`webhook secret of ${endpoint.body.id}`, endpoint.body.secret);
    const invited = await asDashboard('POST', '/v1/users', {
      email: `convidado-${randomBytes(4).toString('hex')}@loja.test`,
      role: 'viewer',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    secrets.set('set-password link of an invitation', invited.body.set_password_url);
    secrets.set(
      'set-password token of an invitation',
      new URL(invited.body.set_password_url).hash.replace(/^#token=/, ''),
    );
    expect((await asDashboard('DELETE', '/dashboard/api/session')).status).toBe(204);
    stack.expectProblem(await asDashboard('GET', '/v1/deliveries'), 401, 'unauthorized');
  });
});

describe('metrics', () => {
  it('the API: GET /metrics on its own listener, requests by route pattern and status, courier calls', async () => {
    const { status, samples, text } = await scrape(apiMetrics.url);
    expect(status).toBe(200);
    const key = { method: 'POST', route: '/v1/deliveries', status_code: '201' };
    expect(total(samples, 'http_requests_total', key)).toBeGreaterThan(0);
    expect(total(samples, 'http_request_duration_seconds_count', key)).toBeGreaterThan(0);
    expect(total(samples, 'http_request_duration_seconds_sum', key)).toBeGreaterThan(0);
    expect(total(samples, 'http_requests_total', { route: '/v1/deliveries/:id', status_code: '200' })).toBeGreaterThan(
      0,
    );
    expect(total(samples, 'http_requests_total', { route: '/v1/widget/deliveries/:id' })).toBeGreaterThan(0);
    expect(total(samples, 'http_requests_total', { status_code: '401' })).toBeGreaterThan(0);
    // Route patterns, never raw URLs: no id, no query string in any label.
    const routes = new Set(samples.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route));
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-z0-9_/:.{}*-]*)$/i);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    // The quotes' courier calls: the API asks the couriers itself.
    expect(
      total(samples, 'delivery_courier_call_duration_seconds_count', { operation: 'quote', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    expect(
      total(samples, 'delivery_courier_call_errors_total', { operation: 'quote', error: 'unavailable' }),
    ).toBeGreaterThan(0);
    expect(total(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('the API port: GET /metrics only with METRICS_TOKEN (401 without it; 404 when METRICS_TOKEN is unset)', async () => {
    expect((await scrape(`${stack.url}/metrics`)).status).toBe(401);
    expect((await scrape(`${stack.url}/metrics`, { authorization: 'Bearer not-the-token' })).status).toBe(401);
    const ok = await scrape(`${stack.url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(ok.status).toBe(200);
    expect(total(ok.samples, 'http_requests_total')).toBeGreaterThan(0);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/at least 32/);
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });

  it("a workflow whose code no longer replays its history: the worker's workflow tasks fail as NonDeterminismError", async () => {
    // The WorkflowNondeterminism alert's series (ops/prometheus/alerts.yml), from Temporal Core itself: a workflow
    // run by one version of its code, then changed without versioning (test/fixtures/drift/v1.ts and v2.ts).
    const connection = await NativeConnection.connect({ address: stack.config.temporalAddress });
    const taskQueue = `drift-${randomUUID()}`;
    const version = (v: string) =>
      Worker.create({
        connection,
        taskQueue,
        workflowsPath: path.join(ROOT_DIR, 'test', 'fixtures', 'drift', `${v}.ts`),
        maxCachedWorkflows: 0, // no sticky queue: the next task goes to whichever worker polls
      });
    const handle = await stack.temporal.workflow.start('driftingWorkflow', {
      taskQueue,
      workflowId: `drift-${randomUUID()}`,
    });
    const timerFired = async () =>
      (await handle.fetchHistory()).events!.some((e) => e.timerFiredEventAttributes) || undefined;
    try {
      await (await version('v1')).runUntil(vi.waitUntil(timerFired, { timeout: 30_000, interval: 250 }));
      const failedTasks = async () =>
        total((await scrape(workerMetrics.url)).samples, 'temporal_workflow_task_execution_failed_total', {
          failure_reason: 'NonDeterminismError',
          workflow_type: 'driftingWorkflow',
        }) || undefined;
      await (
        await version('v2')
      ).runUntil(async () => {
        await handle.signal('go');
        expect(await vi.waitUntil(failedTasks, { timeout: 60_000, interval: 500 })).toBeGreaterThan(0);
      });
    } finally {
      await handle.terminate().catch(() => {});
      await connection.close();
    }
  }, 120_000);

  it('the worker: deliveries by status, transitions, stalls, redispatches, courier bookings, webhooks, and the Temporal SDK', async () => {
    const { status, samples, text } = await scrape(workerMetrics.url);
    expect(status).toBe(200);
    expect(total(samples, 'delivery_deliveries', { status: 'stalled' })).toBeGreaterThan(0);
    expect(samples.filter((s) => s.name === 'delivery_deliveries').map((s) => s.labels.status)).toEqual(
      expect.arrayContaining(['pending', 'assigned', 'stalled', 'awaiting_payment']),
    );
    for (const type of [
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.delivered',
      'delivery.stalled',
      'delivery.redispatched',
    ]) {
      expect(total(samples, 'delivery_transitions_total', { type }), type).toBeGreaterThan(0);
    }
    expect(total(samples, 'delivery_stalls_total', { reason: 'courier_rejected', courier: rejecting.slug })).toBe(2);
    expect(total(samples, 'delivery_redispatches_total', { automatic: 'false', reason: 'operator' })).toBeGreaterThan(
      0,
    );
    expect(
      total(samples, 'delivery_redispatches_total', { automatic: 'true', reason: 'courier_rejected' }),
    ).toBeGreaterThan(0);
    expect(
      total(samples, 'delivery_courier_call_duration_seconds_count', { operation: 'book', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    expect(
      total(samples, 'delivery_courier_call_errors_total', {
        operation: 'book',
        error: 'rejected',
        courier: rejecting.slug,
      }),
    ).toBeGreaterThan(0);
    expect(
      total(samples, 'delivery_webhook_attempts_total', { outcome: 'succeeded', trigger: 'event' }),
    ).toBeGreaterThan(0);
    expect(total(samples, 'delivery_webhook_attempts_total', { outcome: 'retry', trigger: 'event' })).toBeGreaterThan(
      0,
    );
    expect(total(samples, 'delivery_webhook_delay_seconds_count', { stage: 'first_attempt' })).toBeGreaterThan(0);
    expect(total(samples, 'delivery_webhook_delay_seconds_count', { stage: 'delivered' })).toBeGreaterThan(0);
    // Temporal Core's own metrics, served on the same port.
    expect(total(samples, 'temporal_workflow_completed_total')).toBeGreaterThan(0);
    expect(total(samples, 'temporal_activity_execution_latency_count')).toBeGreaterThan(0);
    expect(
      total(samples, 'temporal_activity_execution_failed_total', { activity_type: 'dispatchDelivery' }),
    ).toBeGreaterThan(0);
    expect(
      total(samples, 'temporal_local_activity_execution_failed_total', { activity_type: 'dispatchDelivery' }),
    ).toBeGreaterThan(0);
    expect(total(samples, 'temporal_workflow_task_schedule_to_start_latency_count')).toBeGreaterThan(0);
    expect(total(samples, 'temporal_worker_task_slots_available')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE temporal_');
  });
});

describe('the dashboard and the alert rules (ops/)', () => {
  it('read only series the API and the worker serve', async () => {
    const served = (await scrape(apiMetrics.url)).text + (await scrape(workerMetrics.url)).text;
    const dashboard = fs.readFileSync(path.join(ROOT_DIR, 'ops', 'grafana', 'dashboards', 'delivery-api.json'), 'utf8');
    const alerts = fs.readFileSync(path.join(ROOT_DIR, 'ops', 'prometheus', 'alerts.yml'), 'utf8');
    // Every metric name the files mention, in queries and descriptions alike (label values like "delivery-api" have a dash).
    const names = new Set((dashboard + alerts).match(/\b(?:http|delivery|temporal|process|nodejs)_[a-z0-9_]+\b/g));
    expect(names.size).toBeGreaterThan(15);
    const missing = [...names].filter((name) => {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      return !new RegExp(`^(${name}[{ ]|# HELP ${base} )`, 'm').test(served);
    });
    expect(missing).toEqual([]);
  });
});

describe('logs', () => {
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, any>);

  it('are JSON; the API names the tenant and the key (or the dashboard user) after authentication', () => {
    expect(lines.length).toBeGreaterThan(100);
    const completed = records().filter(
      (r) => r.name === 'api' && r.msg === 'request completed' && r.tenantId === delivered.tenant.tenant_id,
    );
    expect(completed.filter((r) => typeof r.keyId === 'string').length).toBeGreaterThan(0);
    expect(completed.filter((r) => typeof r.userId === 'string').length).toBeGreaterThan(0); // the dashboard test's session
    expect(completed.every((r) => typeof r.keyId === 'string' || typeof r.userId === 'string')).toBe(true);
  });

  it("the worker's lines about a delivery's workflow and its activities name the workflow, the delivery and the tenant", () => {
    const worker = records().filter((r) => r.name === 'worker' && r.workflowId?.startsWith('delivery-'));
    const withAll = worker.filter((r) => r.deliveryId && r.tenantId === delivered.tenant.tenant_id);
    const workflowLines = withAll
      .filter((r) => r.workflowType === 'deliveryWorkflow' && !r.activityType)
      .map((r) => r.msg);
    expect(workflowLines).toEqual(expect.arrayContaining(['Workflow started', 'Workflow completed']));
    const activityLines = withAll.filter((r) => r.activityType).map((r) => `${r.activityType}: ${r.msg}`);
    expect(activityLines).toEqual(
      expect.arrayContaining(['recordEvent: Activity completed', 'announceEvent: Activity completed']),
    );
    // Every line of a delivery's workflow names the delivery; the tenant where the activity's input has it.
    expect(worker.filter((r) => r.activityType === 'dispatchDelivery').length).toBeGreaterThan(0);
    for (const r of worker) expect(r.workflowId).toBe(`delivery-${r.deliveryId}`);
  });

  it('hold none of the secrets the traffic used', () => {
    expect(secrets.size).toBeGreaterThan(10);
    const all = lines.join('');
    // A PIN is four digits, which turn up by chance in timestamps, ports and durations: it counts as leaked where it
    // stands as a value of its own (a JSON string, a query or form parameter), as a leak would write it.
    const leakedIn = (value: string) =>
      /^\d{1,8}$/.test(value)
        ? new RegExp(`["=]${value}(?=["&\\s]|$)`, 'm').test(lines.join('\n'))
        : all.includes(value);
    const leaked = [...secrets].filter(([, value]) => value && leakedIn(value)).map(([what]) => what);
    expect(leaked).toEqual([]);
    // The masked forms are there instead.
    expect(all).toContain('client_secret=[redacted]');
  });
});
