// Merchant webhooks on the real stack: the endpoints API, and notifications to a real HTTP receiver in this
// file that verifies every signature with the standardwebhooks library. Short retry schedules are passed in
// through the config (read when a delivery's workflow starts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Simulator } from '../../simulator/server.js';
import { linkCouriers } from '../../src/couriers/service.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  webhookOutcome,
  type Merchant,
} from '../helpers/fixtures.js';
import { freePort } from '../../scripts/lib/net.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import type { deliveryWorkflow } from '../../workflows/deliveries/workflows.js';
import { webhookFanoutWorkflowId } from '../../shared/webhooks/definitions.js';
import { workflowExists } from '../helpers/replay.js';
import { startStack, type Stack } from '../helpers/stack.js';

// ---- a merchant's receiver ------------------------------------------------------------------------

interface Received {
  path: string;
  headers: Record<string, string>;
  raw: string;
  body: any;
  at: number;
}
type Behaviour = (hit: Received, n: number) => { status: number; headers?: Record<string, string> };

class Receiver {
  server!: http.Server;
  port = 0;
  received: Received[] = [];
  /** Every request, whatever the answer (`received` keeps the 2xx ones only). */
  answered: (Received & { status: number })[] = [];
  behaviours = new Map<string, Behaviour>();
  private hits = new Map<string, number>();

  async start(port = 0) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const hit: Received = {
          path: req.url ?? '/',
          headers: req.headers as Record<string, string>,
          raw,
          body: JSON.parse(raw || 'null'),
          at: Date.now(),
        };
        const n = (this.hits.get(hit.path) ?? 0) + 1;
        this.hits.set(hit.path, n);
        const behaviour: Behaviour = this.behaviours.get(hit.path) ?? (() => ({ status: 200 }));
        const answer = behaviour(hit, n);
        this.answered.push({ ...hit, status: answer.status });
        if (answer.status >= 200 && answer.status < 300) this.received.push(hit);
        res.writeHead(answer.status, answer.headers).end('ok');
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }
}

let stack: Stack;
let sim: Simulator;
let base: Merchant;
const receiver = new Receiver();

beforeAll(async () => {
  stack = await startStack({ webhookScheduleMs: [0, 200, 400] });
  sim = await startSimulator();
  base = await merchantWith(stack, sim, [simCompany()]);
  await receiver.start();
});
afterAll(async () => {
  await stack?.close();
  await sim?.close();
  await receiver?.stop();
});

// ---- helpers ------------------------------------------------------------------------------------

/** A new tenant served by the same simulated courier. */
async function merchant(): Promise<Merchant> {
  const tenant = await stack.tenant();
  await linkCouriers(stack.pool, tenant.tenant_id, base.slug);
  return { tenant, couriers: base.couriers, slug: base.slug };
}

const key = (m: Merchant) => m.tenant.secret_key;
const api = (m: Merchant, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  stack.request(method, path, { key: key(m), body, headers });

async function endpoint(m: Merchant, body: Record<string, unknown>) {
  const res = await api(m, 'POST', '/v1/webhook_endpoints', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string; url: string };
}

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Nothing is proved absent by sleeping: a test waits until every message's sending is over (its first attempts made
// by the worker's outbox, then its retry workflow finished, if an endpoint failed), then checks what arrived.

const exists = (workflowId: string) => workflowExists(stack, workflowId);

const fanout = (eventId: string) => webhookOutcome(stack, eventId);

/** Waits until the sending of every message of the delivery's events so far is over; events the state machine ignored have none. */
async function fanoutsDone(m: Merchant, deliveryId: string) {
  const events = (await api(m, 'GET', `/v1/deliveries/${deliveryId}`)).body.events as any[];
  return Promise.all(events.filter((e) => !e.payload?.ignored).map((e) => fanout(e.id)));
}

/** The delivery's workflow result: it has ended, so it starts no more fan-outs. */
const ended = (id: string) =>
  stack.temporal.workflow.getHandle<typeof deliveryWorkflow>(deliveryWorkflowId(id)).result();

/** Sends a fleet event through the simulator and waits until the delivery has one more event. */
async function fleet(m: Merchant, id: string, eventType: string) {
  const current = (await api(m, 'GET', `/v1/deliveries/${id}`)).body;
  const sent = await sim.control.sendEvent(m.slug, {
    tracking_ref: current.courier.tracking_ref,
    event_type: eventType,
  });
  expect(sent.response_status).toBe(202);
  return waitFor(stack, key(m), id, (d) => d.events.length > current.events.length);
}

async function attempts(m: Merchant, endpointId: string, query = '') {
  const res = await api(m, 'GET', `/v1/webhook_endpoints/${endpointId}/attempts?limit=100${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as any[];
}

const expectProblem = (res: { status: number; headers: Headers; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.error).toBe(code);
};

/** Verifies the message with the library and checks the envelope against the delivery event. */
function verified(hit: Received, secret: string) {
  const payload = new Webhook(secret).verify(hit.raw, hit.headers) as any;
  expect(hit.headers['webhook-id']).toBe(payload.id);
  expect(payload.id).toBe(`msg_${payload.data.event.id}`);
  expect(payload.type).toBe(payload.data.event.event_type);
  return payload;
}

// ---- the endpoints API --------------------------------------------------------------------------

describe('endpoints API', () => {
  it('creates an endpoint and shows its whsec_ secret once; GET, list, DELETE; 404s', async () => {
    const m = await merchant();
    const created = await api(m, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url('/crud'),
      events: ['delivery.delivered', 'delivery.failed'],
      description: 'orders',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url('/crud'),
      events: ['delivery.delivered', 'delivery.failed'],
      description: 'orders',
      status: 'enabled',
      disabled_reason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const id = created.body.id;

    const one = await api(m, 'GET', `/v1/webhook_endpoints/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(JSON.stringify(one.body)).not.toContain(created.body.secret);
    expect(one.body).toMatchObject({ id, url: receiver.url('/crud'), status: 'enabled' });

    const all = await endpoint(m, { url: receiver.url('/crud-2') });
    const list = await api(m, 'GET', '/v1/webhook_endpoints?limit=1');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].id).toBe(all.id); // newest first
    expect(list.body.data[0].events).toBeNull();
    expect(list.body.data[0].secret).toBeUndefined();
    expect(list.body.pagination).toEqual({ limit: 1, offset: 0, has_more: true });
    const page2 = await api(m, 'GET', '/v1/webhook_endpoints?limit=1&offset=1');
    expect(page2.body.data.map((e: any) => e.id)).toEqual([id]);
    expect(page2.body.pagination.has_more).toBe(false);

    // Another tenant sees nothing of it.
    const other = await merchant();
    expectProblem(await api(other, 'GET', `/v1/webhook_endpoints/${id}`), 404, 'not_found');
    expectProblem(await api(other, 'DELETE', `/v1/webhook_endpoints/${id}`), 404, 'not_found');
    expectProblem(await api(other, 'GET', `/v1/webhook_endpoints/${id}/attempts`), 404, 'not_found');
    expectProblem(await api(other, 'POST', `/v1/webhook_endpoints/${id}/rotate_secret`), 404, 'not_found');
    expectProblem(
      await api(other, 'POST', `/v1/webhook_endpoints/${id}/replay`, { message_id: 'msg_x' }),
      404,
      'not_found',
    );
    expect((await api(other, 'GET', '/v1/webhook_endpoints')).body.data).toEqual([]);
    expectProblem(await api(m, 'GET', '/v1/webhook_endpoints/not-a-uuid'), 404, 'not_found');
    expectProblem(await api(m, 'GET', `/v1/webhook_endpoints/${randomUUID()}`), 404, 'not_found');
    expectProblem(await stack.request('GET', '/v1/webhook_endpoints'), 401, 'unauthorized');
    expectProblem(
      await stack.request('GET', '/v1/webhook_endpoints', { key: m.tenant.publishable_key }),
      401,
      'unauthorized',
    );

    const deleted = await api(m, 'DELETE', `/v1/webhook_endpoints/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expectProblem(await api(m, 'GET', `/v1/webhook_endpoints/${id}`), 404, 'not_found');
    expectProblem(await api(m, 'DELETE', `/v1/webhook_endpoints/${id}`), 404, 'not_found');
  });

  it('validates the body: 422 with pointers', async () => {
    const m = await merchant();
    const post = (body: unknown) => api(m, 'POST', '/v1/webhook_endpoints', body);
    const pointers = (res: any) => res.body.errors.map((e: any) => e.pointer);

    let res = await post({});
    expectProblem(res, 422, 'validation_failed');
    expect(pointers(res)).toContain('/url');
    res = await post({ url: 'ftp://example.com/hook' });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/url', code: 'unsupported_scheme' })]);
    res = await post({ url: 'not a url' });
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/url', code: 'invalid_url' })]);
    res = await post({ url: receiver.url('/v'), events: ['delivery.created', 'delivery.teleported'] });
    expectProblem(res, 422, 'validation_failed');
    expect(pointers(res)).toEqual(['/events/1']);
    res = await post({ url: receiver.url('/v'), events: [] });
    expect(pointers(res)).toEqual(['/events']);
    res = await post({ url: receiver.url('/v'), events: 'delivery.created' });
    expect(pointers(res)).toEqual(['/events']);
    res = await post({ url: receiver.url('/v'), description: 'x'.repeat(501) });
    expect(pointers(res)).toEqual(['/description']);
    expectProblem(await api(m, 'POST', '/v1/webhook_endpoints', '{"url":'), 400, 'invalid_json');
  });

  it('refuses loopback, private and link-local URLs when loopback is not allowed (production)', async () => {
    const m = await merchant();
    stack.config.allowLoopbackWebhooks = false;
    try {
      for (const url of [
        'http://127.0.0.1:9/x',
        'http://localhost/x',
        'https://api.localhost/x',
        'http://10.1.2.3/x',
        'http://192.168.0.10/x',
        'http://172.16.5.4/x',
        'http://169.254.169.254/latest',
        'http://[::1]/x',
        'http://[fd00::1]/x',
        'http://[::ffff:127.0.0.1]/x',
        'http://0.0.0.0/x',
        'http://2130706433/x',
      ]) {
        const res = await api(m, 'POST', '/v1/webhook_endpoints', { url });
        expectProblem(res, 422, 'validation_failed');
        expect(res.body.errors, url).toEqual([expect.objectContaining({ pointer: '/url', code: 'private_address' })]);
      }
      const ok = await api(m, 'POST', '/v1/webhook_endpoints', { url: 'https://93.184.215.14/hooks' });
      expect(ok.status).toBe(201);
      const patched = await api(m, 'PATCH', `/v1/webhook_endpoints/${ok.body.id}`, { url: 'http://127.0.0.1/x' });
      expectProblem(patched, 422, 'validation_failed');
      await api(m, 'DELETE', `/v1/webhook_endpoints/${ok.body.id}`);
    } finally {
      stack.config.allowLoopbackWebhooks = true;
    }
  });

  it('Idempotency-Key: a repeated create returns the first response; PATCH changes filter and re-enables', async () => {
    const m = await merchant();
    const body = { url: receiver.url('/idem') };
    const headers = { 'idempotency-key': `k-${randomUUID()}` };
    const first = await api(m, 'POST', '/v1/webhook_endpoints', body, headers);
    const again = await api(m, 'POST', '/v1/webhook_endpoints', body, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    // The replay is the first answer without its secret, which is never cached (test/maintenance/security-data.test.ts).
    const { secret, ...withoutSecret } = first.body;
    expect(secret).toMatch(/^whsec_/);
    expect(again.body).toEqual(withoutSecret);
    expect(again.headers.get('idempotent-replay-withheld')).toBe('secret');
    expect((await api(m, 'GET', '/v1/webhook_endpoints')).body.data).toHaveLength(1);
    expectProblem(
      await api(m, 'POST', '/v1/webhook_endpoints', { url: receiver.url('/other') }, headers),
      422,
      'idempotency_key_reused',
    );

    const patched = await api(m, 'PATCH', `/v1/webhook_endpoints/${first.body.id}`, {
      events: ['delivery.assigned'],
      status: 'disabled',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['delivery.assigned'], status: 'disabled' });
    const enabled = await api(m, 'PATCH', `/v1/webhook_endpoints/${first.body.id}`, {
      events: null,
      status: 'enabled',
    });
    expect(enabled.body).toMatchObject({ events: null, status: 'enabled', disabled_reason: null });
  });
});

// ---- notifications ------------------------------------------------------------------------------

describe('notifications', () => {
  it("every event type of full lifecycles arrives, signed, with metadata; filters apply; tenants never see each other's events", async () => {
    const m = await merchant();
    const all = await endpoint(m, { url: receiver.url('/life/all') });
    const onlyFinal = await endpoint(m, {
      url: receiver.url('/life/final'),
      events: ['delivery.delivered', 'delivery.cancelled', 'delivery.failed'],
    });
    const neighbour = await merchant();
    const theirs = await endpoint(neighbour, { url: receiver.url('/life/neighbour') });

    const metadata = { order_id: 'A-100', channel: 'web', nested: { a: 1 } };
    // 1. created -> dispatched -> assigned -> pickup_ready -> in_transit -> out_for_delivery -> delivered
    const d1 = await createDeliveryFor(stack, m, { options: { metadata } });
    await waitForStatus(stack, key(m), d1.id, 'assigned');
    for (const step of ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered']) await fleet(m, d1.id, step);
    // An event the state machine ignores is recorded but not sent.
    await fleet(m, d1.id, 'in_transit');
    // 2. bank_transfer: created (awaiting_payment) -> payment_confirmed -> dispatched -> assigned -> cancelled
    const d2 = await createDeliveryFor(stack, m, {
      payment_method: 'bank_transfer',
      options: { metadata: { order_id: 'B-200' } },
    });
    expect((await api(m, 'POST', `/v1/deliveries/${d2.id}/payment_confirmation`)).status).toBe(200);
    await waitForStatus(stack, key(m), d2.id, 'assigned');
    expect((await api(m, 'DELETE', `/v1/deliveries/${d2.id}`)).status).toBe(200);
    // 3. failed
    const d3 = await createDeliveryFor(stack, m, { options: { metadata: { order_id: 'C-300' } } });
    await waitForStatus(stack, key(m), d3.id, 'assigned');
    await fleet(m, d3.id, 'failed');
    // The neighbour's own delivery.
    const n1 = await createDeliveryFor(stack, neighbour, { options: { metadata: { order_id: 'N-1' } } });
    await waitForStatus(stack, key(neighbour), n1.id, 'assigned');

    const expected: Record<string, string[]> = {
      [d1.id]: [
        'delivery.created',
        'delivery.dispatched',
        'delivery.assigned',
        'delivery.pickup_ready',
        'delivery.in_transit',
        'delivery.out_for_delivery',
        'delivery.delivered',
      ],
      [d2.id]: [
        'delivery.created',
        'delivery.payment_confirmed',
        'delivery.dispatched',
        'delivery.assigned',
        'delivery.cancelled',
      ],
      [d3.id]: ['delivery.created', 'delivery.dispatched', 'delivery.assigned', 'delivery.failed'],
    };
    const total = Object.values(expected).flat().length;
    // Everything has been sent once every fan-out has finished: d1, d2 and d3 have ended (no more events), n1 waits
    // in assigned. The ignored in_transit started no fan-out at all.
    for (const d of [d1, d2, d3]) await ended(d.id);
    await Promise.all([
      fanoutsDone(m, d1.id),
      fanoutsDone(m, d2.id),
      fanoutsDone(m, d3.id),
      fanoutsDone(neighbour, n1.id),
    ]);
    const ignored = (await api(m, 'GET', `/v1/deliveries/${d1.id}`)).body.events.filter((e: any) => e.payload?.ignored);
    expect(ignored).toHaveLength(1);
    expect(await exists(webhookFanoutWorkflowId(ignored[0].id))).toBe(false);

    const got = receiver.at('/life/all').map((hit) => verified(hit, all.secret));
    expect(got).toHaveLength(total);
    expect(new Set(got.map((p) => p.id)).size).toBe(total);
    for (const [deliveryId, types] of Object.entries(expected)) {
      const mine = got.filter((p) => p.data.delivery.id === deliveryId);
      expect(mine.map((p) => p.type).sort()).toEqual([...types].sort());
      const events = (await api(m, 'GET', `/v1/deliveries/${deliveryId}/events`)).body.data;
      const delivery = (await api(m, 'GET', `/v1/deliveries/${deliveryId}`)).body;
      for (const p of mine) {
        expect(Object.keys(p).sort()).toEqual(['created_at', 'data', 'id', 'livemode', 'type']);
        expect(p.livemode).toBe(true);
        expect(Object.keys(p.data).sort()).toEqual(['delivery', 'event', 'metadata']);
        expect(p.data.metadata).toEqual(delivery.metadata);
        expect(p.data.event).toEqual(events.find((e: any) => e.id === p.data.event.id));
        expect(p.data.event.payload?.ignored).toBeUndefined();
        expect(p.data.delivery).toMatchObject({
          id: deliveryId,
          reference: delivery.reference,
          inserted_at: delivery.inserted_at,
          quoted_fee_aoa: delivery.quoted_fee_aoa,
        });
        expect(p.data.delivery.events).toBeUndefined();
        expect(Date.parse(p.created_at)).not.toBeNaN();
      }
      const byType = Object.fromEntries(mine.map((p) => [p.type, p]));
      expect(byType['delivery.created'].data.event.payload.status).toBe(
        deliveryId === d2.id ? 'awaiting_payment' : 'pending',
      );
    }
    expect(got.find((p) => p.type === 'delivery.delivered').data.delivery.status).toBe('delivered');
    expect(got.find((p) => p.type === 'delivery.in_transit').data.delivery.status).toBe('in_transit');
    expect(got.find((p) => p.data.delivery.id === d1.id && p.type === 'delivery.created').data.metadata).toEqual(
      metadata,
    );

    // webhook-timestamp is unix seconds, fresh.
    const hit = receiver.at('/life/all')[0];
    expect(Math.abs(Number(hit.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(hit.headers['content-type']).toMatch(/^application\/json/);

    // The filtered endpoint got only the final events; the neighbour only its own.
    expect(
      receiver
        .at('/life/final')
        .map((h) => verified(h, onlyFinal.secret).type)
        .sort(),
    ).toEqual(['delivery.cancelled', 'delivery.delivered', 'delivery.failed']);
    const neighbours = receiver.at('/life/neighbour').map((h) => verified(h, theirs.secret));
    expect(neighbours.map((p) => p.data.delivery.id)).toEqual([n1.id, n1.id, n1.id]);
    expect(neighbours.every((p) => p.data.metadata.order_id === 'N-1')).toBe(true);
    expect(() =>
      new Webhook(theirs.secret).verify(receiver.at('/life/all')[0].raw, receiver.at('/life/all')[0].headers),
    ).toThrow();

    // The attempt log: one succeeded attempt per message.
    const log = await attempts(m, all.id);
    expect(log).toHaveLength(total);
    expect(
      log.every(
        (a) =>
          a.status === 'succeeded' &&
          a.status_code === 200 &&
          a.attempt === 1 &&
          a.trigger === 'event' &&
          a.latency_ms >= 0,
      ),
    ).toBe(true);
  });

  it('a receiver that is down for a while gets everything once when it is back (retries on the schedule)', async () => {
    const m = await merchant();
    const flaky = new Receiver();
    const port = await freePort();
    const ep = await endpoint(m, { url: `http://127.0.0.1:${port}/down` }); // nothing listens yet
    stack.config.webhookScheduleMs = [0, 300, 600, 900, 1200, 1500, 2000, 2000];
    try {
      const d = await createDeliveryFor(stack, m, { options: { metadata: { order_id: 'D-1' } } });
      await waitForStatus(stack, key(m), d.id, 'assigned');
      await until('failed attempts', async () => (await attempts(m, ep.id, '&status=failed')).length >= 6);
      await flaky.start(port);
      // Each message's loop ends at its first success: after that, nothing can arrive twice.
      const results = await fanoutsDone(m, d.id);
      expect(results.map((r) => r.outcomes[ep.id])).toEqual(['succeeded', 'succeeded', 'succeeded']);
      const got = flaky.at('/down').map((h) => verified(h, ep.secret));
      expect(got.map((p) => p.type).sort()).toEqual(['delivery.assigned', 'delivery.created', 'delivery.dispatched']);
      expect(got.every((p) => p.data.metadata.order_id === 'D-1')).toBe(true);
      const log = await attempts(m, ep.id);
      const failed = log.filter((a) => a.status === 'failed');
      expect(failed.length).toBeGreaterThanOrEqual(6);
      expect(failed.every((a) => a.status_code === null && /ECONNREFUSED/.test(a.error))).toBe(true);
      const succeeded = log.filter((a) => a.status === 'succeeded');
      expect(succeeded).toHaveLength(3);
      expect(succeeded.every((a) => a.attempt > 1)).toBe(true);
      // Same webhook-id on every attempt of a message.
      for (const s of succeeded)
        expect(log.filter((a) => a.message_id === s.message_id).every((a) => a.event_id === s.event_id)).toBe(true);
    } finally {
      stack.config.webhookScheduleMs = [0, 200, 400];
      await flaky.stop();
    }
  });

  it('retries run out: every attempt failed, then an exhausted row', async () => {
    const m = await merchant();
    receiver.behaviours.set('/exhaust', () => ({ status: 500 }));
    const ep = await endpoint(m, { url: receiver.url('/exhaust'), events: ['delivery.created'] });
    const d = await createDeliveryFor(stack, m);
    const log = await until('exhausted', async () => {
      const rows = await attempts(m, ep.id);
      return rows.some((a) => a.status === 'exhausted') ? rows : null;
    });
    expect(log.map((a) => [a.status, a.attempt, a.status_code])).toEqual([
      ['exhausted', 3, null],
      ['failed', 3, 500],
      ['failed', 2, 500],
      ['failed', 1, 500],
    ]);
    expect(log[1].error).toBe('HTTP 500');
    expect(log.every((a) => a.message_id === log[0].message_id && a.event_type === 'delivery.created')).toBe(true);
    expect(log[0].message_id).toBe(`msg_${(await api(m, 'GET', `/v1/deliveries/${d.id}`)).body.events[0].id}`);
  });

  it('Retry-After is honoured; 408/409/425/429 are retried', async () => {
    const m = await merchant();
    receiver.behaviours.set('/later', (_hit, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    const ep = await endpoint(m, { url: receiver.url('/later'), events: ['delivery.created'] });
    await createDeliveryFor(stack, m);
    const log = await until('a success', async () => {
      const rows = await attempts(m, ep.id);
      return rows.some((a) => a.status === 'succeeded') ? rows : null;
    });
    expect(log.map((a) => [a.status, a.status_code])).toEqual([
      ['succeeded', 200],
      ['failed', 429],
    ]);
    // The retry workflow waited the receiver's Retry-After (one timer of 1 s), not the schedule's 200 ms.
    const eventId = log[1].message_id.replace(/^msg_/, '');
    const history = await stack.temporal.workflow.getHandle(webhookFanoutWorkflowId(eventId)).fetchHistory();
    const timers = (history.events ?? []).flatMap((e) =>
      e.timerStartedEventAttributes ? [e.timerStartedEventAttributes.startToFireTimeout] : [],
    );
    expect(timers.map((t) => Number(t?.seconds ?? 0) * 1000 + Math.round((t?.nanos ?? 0) / 1e6))).toEqual([1000]);
  });

  it('a 4xx is retried like any failure (no 4xx is final); replay resends the same message (one, or a time range)', async () => {
    const m = await merchant();
    let answer = 400;
    receiver.behaviours.set('/final', () => ({ status: answer }));
    const ep = await endpoint(m, { url: receiver.url('/final') });
    const since = new Date(Date.now() - 1000).toISOString();
    const d = await createDeliveryFor(stack, m, { options: { metadata: { order_id: 'R-1' } } });
    await waitForStatus(stack, key(m), d.id, 'assigned');
    // A 400 is retried on the schedule (a receiver with a wrong secret loses nothing): three attempts each, then exhausted.
    const results = await fanoutsDone(m, d.id);
    expect(results.map((r) => r.outcomes[ep.id])).toEqual(['exhausted', 'exhausted', 'exhausted']);
    const all = await attempts(m, ep.id);
    expect(all).toHaveLength(12);
    const log = all.filter((a) => a.attempt === 1);
    expect(log).toHaveLength(3);
    expect(all.filter((a) => a.status === 'failed').every((a) => a.status_code === 400 && a.error === 'HTTP 400')).toBe(
      true,
    );
    expect(all.filter((a) => a.status === 'exhausted')).toHaveLength(3);
    // The receiver itself saw each of the three messages three times, and answered 400 each time.
    const hits = receiver.answered.filter((h) => h.path === '/final');
    expect(hits.map((h) => h.status)).toEqual(Array(9).fill(400));
    expect([...new Set(hits.map((h) => h.headers['webhook-id']))].sort()).toEqual(log.map((a) => a.message_id).sort());

    // Fixed: replay one message.
    answer = 200;
    const created = log.find((a) => a.event_type === 'delivery.created');
    const one = await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: created.message_id });
    expect(one.status, JSON.stringify(one.body)).toBe(202);
    expect(one.body).toEqual({ replayed: 1 });
    const first = await until('the replayed message', () => receiver.at('/final')[0]);
    const payload = verified(first, ep.secret);
    expect(payload.id).toBe(created.message_id);
    expect(payload.type).toBe('delivery.created');
    expect(payload.data.metadata).toEqual({ order_id: 'R-1' });
    const replayed = await until('replay logged', async () =>
      (await attempts(m, ep.id, `&message_id=${created.message_id}`)).find((a) => a.trigger === 'replay'),
    );
    expect(replayed).toMatchObject({ status: 'succeeded', status_code: 200, attempt: 1 });
    // One replay in flight per endpoint: the next waits until this one's workflow has finished.
    const { rows: running } = await stack.pool.query(
      'SELECT replay_workflow_ids AS ids FROM webhook_endpoints WHERE id = $1',
      [ep.id],
    );
    await Promise.all(running[0].ids.map((id: string) => stack.temporal.workflow.getHandle(id).result()));

    // A time range: the three messages of the delivery.
    const range = await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, {
      since,
      until: new Date(Date.now() + 1000).toISOString(),
    });
    expect(range.status).toBe(202);
    expect(range.body).toEqual({ replayed: 3 });
    await until('range replayed', () => receiver.at('/final').length >= 4);
    const ids = receiver.at('/final').map((h) => h.headers['webhook-id']);
    expect(new Set(ids)).toEqual(new Set(log.map((a) => a.message_id)));
    // A replay body is byte for byte the original message.
    expect(
      receiver
        .at('/final')
        .filter((h) => h.headers['webhook-id'] === created.message_id)
        .map((h) => h.raw),
    ).toEqual([first.raw, first.raw]);

    // Errors.
    expectProblem(
      await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: 'msg_nope' }),
      422,
      'message_not_found',
    );
    expectProblem(await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, {}), 422, 'validation_failed');
    expectProblem(
      await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { since: 'yesterday' }),
      422,
      'validation_failed',
    );
    const other = await merchant();
    const theirs = await endpoint(other, { url: receiver.url('/final-other') });
    expectProblem(
      await api(other, 'POST', `/v1/webhook_endpoints/${theirs.id}/replay`, { message_id: created.message_id }),
      422,
      'message_not_found',
    );
    expect((await api(other, 'POST', `/v1/webhook_endpoints/${theirs.id}/replay`, { since })).body).toEqual({
      replayed: 0,
    });
  });

  it('410 Gone disables the endpoint: nothing more is sent to it', async () => {
    const m = await merchant();
    receiver.behaviours.set('/gone', () => ({ status: 410 }));
    const gone = await endpoint(m, { url: receiver.url('/gone') });
    await endpoint(m, { url: receiver.url('/gone-neighbour') }); // a healthy neighbour keeps receiving
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, key(m), d.id, 'assigned');
    await until(
      'disabled',
      async () => (await api(m, 'GET', `/v1/webhook_endpoints/${gone.id}`)).body.status === 'disabled',
    );
    const after = (await api(m, 'GET', `/v1/webhook_endpoints/${gone.id}`)).body;
    expect(after.disabled_reason).toMatch(/410/);
    await fleet(m, d.id, 'pickup_ready');
    await fanoutsDone(m, d.id);
    expect(receiver.at('/gone-neighbour')).toHaveLength(4);
    const log = await attempts(m, gone.id);
    // At most the messages already in flight when the 410 came; never the later pickup_ready, never a retry.
    expect(log.length).toBeGreaterThanOrEqual(1);
    expect(log.length).toBeLessThanOrEqual(3);
    expect(log.every((a) => a.status === 'failed' && a.status_code === 410 && a.attempt === 1)).toBe(true);
    expect(log.some((a) => a.event_type === 'delivery.pickup_ready')).toBe(false);
    expectProblem(
      await api(m, 'POST', `/v1/webhook_endpoints/${gone.id}/replay`, { message_id: log[0].message_id }),
      409,
      'webhook_endpoint_disabled',
    );
  });

  it('rotation: for 24 h every message carries two signatures, one per secret', async () => {
    const m = await merchant();
    const ep = await endpoint(m, { url: receiver.url('/rotate'), events: ['delivery.created'] });
    const rotated = await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    expect(Date.parse(rotated.body.secret_rotated_until) - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    expect((await api(m, 'GET', `/v1/webhook_endpoints/${ep.id}`)).body.secret).toBeUndefined();

    await createDeliveryFor(stack, m);
    const hit = await until('the rotated message', () => receiver.at('/rotate')[0]);
    const signatures = hit.headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    const at = new Date(Number(hit.headers['webhook-timestamp']) * 1000);
    expect(signatures[0]).toBe(new Webhook(rotated.body.secret).sign(hit.headers['webhook-id'], at, hit.raw));
    expect(signatures[1]).toBe(new Webhook(ep.secret).sign(hit.headers['webhook-id'], at, hit.raw));
    // A receiver holding either secret accepts it.
    verified(hit, rotated.body.secret);
    verified(hit, ep.secret);
    // Each signature alone verifies with its own secret.
    verified({ ...hit, headers: { ...hit.headers, 'webhook-signature': signatures[0] } }, rotated.body.secret);
    verified({ ...hit, headers: { ...hit.headers, 'webhook-signature': signatures[1] } }, ep.secret);
    expect(() =>
      new Webhook(ep.secret).verify(hit.raw, { ...hit.headers, 'webhook-signature': signatures[0] }),
    ).toThrow();

    // When the overlap has ended, only the new secret signs.
    await stack.pool.query(
      "UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1",
      [ep.id],
    );
    await createDeliveryFor(stack, m);
    const next = await until('the next message', () => receiver.at('/rotate')[1]);
    expect(next.headers['webhook-signature'].split(' ')).toHaveLength(1);
    verified(next, rotated.body.secret);
  });

  it('a deleted endpoint gets nothing more', async () => {
    const m = await merchant();
    receiver.behaviours.set('/deleted', () => ({ status: 503 }));
    const ep = await endpoint(m, { url: receiver.url('/deleted'), events: ['delivery.created'] });
    stack.config.webhookScheduleMs = [0, 600, 600, 600];
    try {
      const d = await createDeliveryFor(stack, m);
      await until(
        'a first attempt',
        async () =>
          (await stack.pool.query('SELECT 1 FROM webhook_attempts WHERE endpoint_id = $1', [ep.id])).rowCount! >= 1,
      );
      expect((await api(m, 'DELETE', `/v1/webhook_endpoints/${ep.id}`)).status).toBe(200);
      // The next attempt finds the endpoint gone and ends the loop (nothing sent).
      const created = await fanout(d.events[0].id);
      expect(created.outcomes[ep.id]).toBe('inactive');
      const { rows } = await stack.pool.query('SELECT status FROM webhook_attempts WHERE endpoint_id = $1', [ep.id]);
      expect(rows.length).toBeLessThanOrEqual(2);
      expect(rows.every((r) => r.status === 'failed')).toBe(true);
    } finally {
      stack.config.webhookScheduleMs = [0, 200, 400];
    }
  });
});
