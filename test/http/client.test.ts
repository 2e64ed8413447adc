// The typed client (clients/typescript) against the live stack: every operation of the OpenAPI document called once
// through it (the last test checks that none was missed), an error path for each status family (401, 404, 409, 422,
// 429, 5xx), the retry helper (Retry-After honoured, the same Idempotency-Key on every attempt) and verifyWebhook on
// a real webhook the stack sent to a receiver in this file.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WEBHOOK_EVENT_TYPES,
  WebhookVerificationError,
  createClient,
  verifyWebhook,
  type ClientOptions,
  type DeliveryApiClient,
  type WebhookEvent,
} from '../../clients/typescript/src/index.js';
import { signFleetEvent, type Simulator } from '../../simulator/server.js';
import { EVENT_TYPES } from '../../shared/deliveries/vocabulary.js';
import { merchantWith, quoteBody, simCompany, startSimulator, type Merchant } from '../helpers/fixtures.js';
import { dashboardSession } from '../helpers/dashboard-session.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let company: ReturnType<typeof simCompany>;
let api: DeliveryApiClient;

/** Every request any client of this file sent (method and path), to check that each operation was called. */
const sent: { method: string; path: string }[] = [];
const recording =
  (inner: (request: Request) => Promise<Response> = (request) => fetch(request)) =>
  (request: Request) => {
    sent.push({ method: request.method, path: new URL(request.url).pathname });
    return inner(request);
  };
/** A client of the test stack whose requests are recorded (over `options.fetch` when given). */
const client = (options: Partial<ClientOptions> = {}) =>
  createClient({ baseUrl: stack.url, ...options, fetch: recording(options.fetch) });

// ---- a merchant's webhook receiver ---------------------------------------------------------------------------------
const hooks: { raw: string; headers: http.IncomingHttpHeaders }[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    hooks.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
    res.writeHead(204).end();
  });
});

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack({ webhookScheduleMs: [0, 200, 400] });
  company = simCompany();
  m = await merchantWith(stack, sim, [company], [], [SHOP]);
  api = client({ apiKey: m.tenant.secret_key });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A quote entry of the merchant's courier, through the client. */
async function quote() {
  const { data, error } = await api.POST('/v1/quotes', { body: quoteBody() });
  expect(error).toBeUndefined();
  return data!.data[0];
}

async function createDelivery(extra: Record<string, unknown> = {}) {
  const q = await quote();
  const { data, response } = await api.POST('/v1/deliveries', {
    body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
  });
  expect(response.status).toBe(201);
  return data!;
}

describe('the merchant surface (secret key)', () => {
  let endpoint: { id: string; secret: string };
  let deliveryId: string;

  it('health and readiness', async () => {
    const anonymous = client();
    expect((await anonymous.GET('/healthz')).response.status).toBe(200);
    expect((await anonymous.GET('/readyz')).response.status).toBe(200);
  });

  it('couriers, then a webhook endpoint on a local receiver', async () => {
    const couriers = await api.GET('/v1/couriers');
    expect(couriers.data!.data.map((c) => c.slug)).toContain(company.slug);

    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const created = await api.POST('/v1/webhook_endpoints', { body: { url, description: 'client test' } });
    expect(created.response.status).toBe(201);
    expect(created.data!.secret).toMatch(/^whsec_/);
    endpoint = { id: created.data!.id, secret: created.data!.secret! };
  });

  it('quote, create (an Idempotency-Key is added), get, list, events, tracking', async () => {
    const q = await quote();
    expect(q).toMatchObject({ quote_id: expect.any(String), fee_aoa: expect.any(Number) });
    const headersSeen: Headers[] = [];
    const spying = client({
      apiKey: m.tenant.secret_key,
      fetch: (request) => (headersSeen.push(request.headers), fetch(request)),
    });
    const created = await spying.POST('/v1/deliveries', {
      body: { quote_id: q.quote_id, ...quoteBody(), options: { metadata: { order_id: 'C-1' } } },
    });
    expect(created.response.status).toBe(201);
    expect(headersSeen[0].get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    deliveryId = created.data!.id;

    const got = await api.GET('/v1/deliveries/{id}', { params: { path: { id: deliveryId } } });
    expect(got.data).toMatchObject({ id: deliveryId, reference: created.data!.reference });
    const list = await api.GET('/v1/deliveries', { params: { query: { search: created.data!.reference, limit: 5 } } });
    expect(list.data!.data.map((d) => d.id)).toEqual([deliveryId]);
    // metadata[key]=value: the client writes the deepObject query the API reads.
    const byOrder = await api.GET('/v1/deliveries', { params: { query: { metadata: { order_id: 'C-1' } } } });
    expect(byOrder.data!.data.map((d) => [d.id, d.metadata])).toEqual([[deliveryId, { order_id: 'C-1' }]]);
    const events = await api.GET('/v1/deliveries/{delivery_id}/events', {
      params: { path: { delivery_id: deliveryId } },
    });
    expect(events.data!.data[0].event_type).toBe('delivery.created');
    const tracking = await client().GET('/v1/deliveries/{delivery_id}/tracking', {
      params: { path: { delivery_id: deliveryId } },
    });
    expect(tracking.response.status).toBe(200);
    expect(tracking.data!.reference).toBe(created.data!.reference);
  });

  it("the notification settings and a delivery's message log", async () => {
    const before = await api.GET('/v1/settings/notifications');
    expect(before.data).toMatchObject({ livemode: true, sms_enabled: false, language: 'pt-AO', sender_id: null });
    const changed = await api.PUT('/v1/settings/notifications', { body: { language: 'en', sender_id: 'LojaCliente' } });
    expect(changed.data).toMatchObject({
      language: 'en',
      sender_id: 'LojaCliente',
      effective_sender_id: 'LojaCliente',
    });
    const invalid = await api.PUT('/v1/settings/notifications', { body: { sender_id: 'Loja-Cliente' } });
    expect(invalid.error).toMatchObject({ status: 422, errors: [{ pointer: '/sender_id', code: 'invalid_format' }] });
    const log = await api.GET('/v1/deliveries/{delivery_id}/notifications', {
      params: { path: { delivery_id: deliveryId } },
    });
    expect(log.data!.object).toBe('list');
    expect(Array.isArray(log.data!.data)).toBe(true);
  });

  it('verifyWebhook returns the typed event of a real webhook; a tampered body throws', async () => {
    const hook = await until('the delivery.created webhook', async () =>
      hooks.find(
        (h) => JSON.parse(h.raw).data?.delivery?.id === deliveryId && JSON.parse(h.raw).type === 'delivery.created',
      ),
    );
    const event = verifyWebhook(hook.raw, hook.headers, endpoint.secret);
    expect(event.type).toBe('delivery.created');
    expect(event.id).toBe(hook.headers['webhook-id']);
    expect(event.data.delivery.id).toBe(deliveryId);
    expect(event.data.event.event_type).toBe('delivery.created');
    expect(event.data.metadata).toEqual({ order_id: 'C-1' });
    // The envelope has exactly the fields the client's WebhookMessage types, no more, no fewer: a field the service
    // adds to or drops from its webhooks fails here until the client's type follows.
    const envelope: (keyof WebhookEvent)[] = ['id', 'type', 'created_at', 'livemode', 'data'];
    const data: (keyof WebhookEvent['data'])[] = ['delivery', 'event', 'metadata'];
    expect(Object.keys(event).sort()).toEqual(envelope.sort());
    expect(Object.keys(event.data).sort()).toEqual(data.sort());
    expect(
      verifyWebhook(
        new TextEncoder().encode(hook.raw),
        new Headers(hook.headers as Record<string, string>),
        endpoint.secret,
      ).id,
    ).toBe(event.id);
    expect(() => verifyWebhook(hook.raw.replace('C-1', 'C-2'), hook.headers, endpoint.secret)).toThrow(
      WebhookVerificationError,
    );
    // The client's union of event types is the service's list.
    expect([...WEBHOOK_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
  });

  it('webhook endpoints: list, get, update, attempts, replay, rotate, delete', async () => {
    const path = { id: endpoint.id };
    expect((await api.GET('/v1/webhook_endpoints')).data!.data.map((e) => e.id)).toContain(endpoint.id);
    expect((await api.GET('/v1/webhook_endpoints/{id}', { params: { path } })).data).toMatchObject({
      id: endpoint.id,
      description: 'client test',
    });
    const updated = await api.PATCH('/v1/webhook_endpoints/{id}', {
      params: { path },
      body: { description: 'renamed' },
    });
    expect(updated.data!.description).toBe('renamed');
    const attempts = await until('an attempt row', async () => {
      const { data } = await api.GET('/v1/webhook_endpoints/{id}/attempts', {
        params: { path, query: { status: 'succeeded' } },
      });
      return data!.data.length > 0 && data!.data;
    });
    const replay = await api.POST('/v1/webhook_endpoints/{id}/replay', {
      params: { path },
      body: { message_id: attempts[0].message_id },
    });
    expect(replay.response.status).toBe(202);
    expect(replay.data).toEqual({ replayed: 1 });
    const rotated = await api.POST('/v1/webhook_endpoints/{id}/rotate_secret', { params: { path } });
    expect(rotated.data!.secret).toMatch(/^whsec_/);
    expect(rotated.data!.secret).not.toBe(endpoint.secret);
    const deleted = await api.DELETE('/v1/webhook_endpoints/{id}', { params: { path } });
    expect(deleted.data).toEqual({ id: endpoint.id, deleted: true });
  });

  it('a courier fleet event (signed, no key) and a cancellation', async () => {
    const got = await until('a courier tracking_ref', async () => {
      const { data } = await api.GET('/v1/deliveries/{id}', { params: { path: { id: deliveryId } } });
      return data?.courier?.tracking_ref ? data : null;
    });
    const body = {
      tracking_ref: got.courier!.tracking_ref!,
      event_type: 'in_transit' as const,
      occurred_at: new Date().toISOString(),
    };
    const fleet = await client({ headers: signFleetEvent(company.fleet_secret, JSON.stringify(body)) }).POST(
      '/v1/fleet/{courier_slug}/events',
      {
        params: { path: { courier_slug: company.slug } },
        body,
      },
    );
    expect(fleet.response.status).toBe(202);

    const other = await createDelivery();
    const cancelled = await api.DELETE('/v1/deliveries/{id}', { params: { path: { id: other.id } } });
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data!.status).toBe('cancelled');
  });

  it('payment confirmation; 409 when the delivery no longer awaits payment', async () => {
    const d = await createDelivery({ payment_method: 'bank_transfer' });
    const path = { id: d.id };
    const confirmed = await api.POST('/v1/deliveries/{id}/payment_confirmation', { params: { path } });
    expect(confirmed.data!.status).toBe('pending');
    const again = await api.POST('/v1/deliveries/{id}/payment_confirmation', { params: { path } });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ status: 409, error: 'delivery_not_awaiting_payment' });
  });
});

describe('the widget surface (publishable key and Origin)', () => {
  it('couriers, quotes, create, get with the client secret', async () => {
    const widget = client({ apiKey: m.tenant.publishable_key, headers: { Origin: SHOP } });
    expect((await widget.GET('/v1/widget/couriers')).data!.data.map((c) => c.slug)).toContain(company.slug);
    const quotes = await widget.POST('/v1/widget/quotes', { body: quoteBody() });
    expect(quotes.response.status).toBe(200);
    const created = await widget.POST('/v1/widget/deliveries', {
      body: { quote_id: quotes.data!.data[0].quote_id, ...quoteBody() },
    });
    expect(created.response.status).toBe(201);
    const got = await widget.GET('/v1/widget/deliveries/{id}', {
      params: { path: { id: created.data!.id }, query: { client_secret: created.data!.client_secret } },
    });
    expect(got.data).toMatchObject({ id: created.data!.id, reference: created.data!.reference });
  });
});

describe('errors, typed, for each status family', () => {
  it('401 with a wrong key, 404 for an unknown delivery, 422 with pointers', async () => {
    const wrong = await client({ apiKey: 'sk_live_wrong' }).GET('/v1/couriers');
    expect(wrong.response.status).toBe(401);
    expect(wrong.error).toMatchObject({ status: 401, error: 'unauthorized' });

    const missing = await api.GET('/v1/deliveries/{id}', { params: { path: { id: randomUUID() } } });
    expect(missing.error).toMatchObject({ status: 404, error: 'not_found' });

    const q = await quote();
    const invalid = await api.POST('/v1/deliveries', {
      body: { quote_id: q.quote_id, ...quoteBody(), payment_method: 'cod' },
    });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error!.errors).toContainEqual(expect.objectContaining({ pointer: '/cash_collect_aoa' }));
  });

  it('429 past the rate limit: Retry-After longer than the client will wait returns the answer', async () => {
    const limited = await startStack({ rateLimitPerMinute: 1 });
    try {
      const tenant = await limited.tenant();
      const small = createClient({
        baseUrl: limited.url,
        apiKey: tenant.secret_key,
        fetch: recording(),
        maxRetryDelayMs: 1000,
      });
      expect((await small.GET('/v1/couriers')).response.status).toBe(200);
      const second = await small.GET('/v1/couriers');
      expect(second.response.status).toBe(429);
      expect(Number(second.response.headers.get('retry-after'))).toBeGreaterThan(1);
      expect(second.error).toMatchObject({ status: 429, error: 'rate_limited' });
    } finally {
      await limited.close();
    }
  });

  it('5xx: retried with the same Idempotency-Key, honouring Retry-After; a lasting 503 comes back typed', async () => {
    // A fetch that answers the first attempt with 503 + Retry-After: 1 and fails the second at the network.
    const attempts: { key: string | null }[] = [];
    const flaky = async (request: Request) => {
      attempts.push({ key: request.headers.get('idempotency-key') });
      if (attempts.length === 1) return new Response('{}', { status: 503, headers: { 'retry-after': '1' } });
      if (attempts.length === 2) throw new TypeError('fetch failed');
      return fetch(request);
    };
    // The client's waits, recorded instead of spent.
    const waits: number[] = [];
    const retrying = client({
      apiKey: m.tenant.secret_key,
      fetch: flaky,
      retryDelayMs: 0,
      sleep: async (ms) => void waits.push(ms),
    });
    const q = await quote();
    const created = await retrying.POST('/v1/deliveries', { body: { quote_id: q.quote_id, ...quoteBody() } });
    expect(created.response.status).toBe(201);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
    expect(attempts[0].key).toBeTruthy();
    expect(waits).toEqual([1000, 0]); // Retry-After: 1 s after the 503; the backoff (retryDelayMs 0) after the network error
    // The key the client chose made the server act once: a repeat with it answers the same delivery.
    const repeat = await api.POST('/v1/deliveries', {
      body: { quote_id: q.quote_id, ...quoteBody() },
      headers: { 'Idempotency-Key': attempts[0].key! },
    });
    expect(repeat.response.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.data!.id).toBe(created.data!.id);

    // A tenant without couriers: quotes answer 503 no_courier_configured every time; 1 + 2 retries, then the problem.
    const bare = await stack.tenant();
    let tries = 0;
    const noCourier = client({
      apiKey: bare.secret_key,
      retryDelayMs: 10,
      fetch: (request) => (tries++, fetch(request)),
    });
    const failed = await noCourier.POST('/v1/quotes', { body: quoteBody() });
    expect(failed.response.status).toBe(503);
    expect(failed.error).toMatchObject({ status: 503, error: 'no_courier_configured' });
    expect(tries).toBe(3);
  });
});

describe('test helpers (docs/test-mode.md), with the test key', () => {
  it('advance, stall, expire_payment_window; a live key gets 404', async () => {
    const test = client({ apiKey: m.tenant.test_secret_key });
    const book = async (extra: Record<string, unknown> = {}) => {
      const quotes = await test.POST('/v1/quotes', { body: quoteBody() });
      const manual = quotes.data!.data.find((q) => q.company_slug === 'test-manual')!;
      return (await test.POST('/v1/deliveries', { body: { quote_id: manual.quote_id, ...quoteBody(), ...extra } }))
        .data!;
    };
    const d = await book();
    expect(d.livemode).toBe(false);
    const path = { id: d.id };
    // test-manual accepts the booking (assigned), then waits for the helpers; until it is booked, 409.
    const advanced = await until('pickup_ready', async () => {
      const res = await test.POST('/v1/test_helpers/deliveries/{id}/advance', {
        params: { path },
        body: { to: 'pickup_ready' },
      });
      return res.response.status === 200 ? res : null;
    });
    expect(advanced.data!.status).toBe('pickup_ready');
    const stalled = await test.POST('/v1/test_helpers/deliveries/{id}/stall', {
      params: { path },
      body: { reason: 'state_timeout' },
    });
    expect(stalled.data!.status).toBe('stalled');
    const notAwaiting = await test.POST('/v1/test_helpers/deliveries/{id}/expire_payment_window', {
      params: { path },
      body: {},
    });
    expect(notAwaiting.error).toMatchObject({ status: 409, error: 'delivery_transition_not_allowed' });
    // The merchant recovers the stalled delivery (POST /v1/deliveries/{id}/recover), with an action it accepts.
    expect(stalled.data!.recovery).toEqual({
      reason: 'state_timeout',
      previous_status: 'pickup_ready',
      actions: ['redispatch', 'resume', 'mark_failed'],
    });
    const resumed = await test.POST('/v1/deliveries/{id}/recover', { params: { path }, body: { action: 'resume' } });
    expect(resumed.data).toMatchObject({ status: 'pickup_ready', recovery: null });
    const notStalled = await test.POST('/v1/deliveries/{id}/recover', {
      params: { path },
      body: { action: 'mark_failed', reason: 'gave_up' },
    });
    expect(notStalled.error).toMatchObject({ status: 409, error: 'delivery_not_stalled' });
    const transfer = await book({ payment_method: 'bank_transfer' });
    const expired = await test.POST('/v1/test_helpers/deliveries/{id}/expire_payment_window', {
      params: { path: { id: transfer.id } },
      body: {},
    });
    expect(expired.data!.status).toBe('cancelled');
    const live = await api.POST('/v1/test_helpers/deliveries/{id}/stall', { params: { path }, body: {} });
    expect(live.error).toMatchObject({ status: 404 });
  });

  it('a failed attempt, then a return to sender by hand; 409 return_not_allowed for a second one', async () => {
    const test = client({ apiKey: m.tenant.test_secret_key });
    const quotes = await test.POST('/v1/quotes', { body: quoteBody() });
    const manual = quotes.data!.data.find((q) => q.company_slug === 'test-manual')!;
    const d = (await test.POST('/v1/deliveries', { body: { quote_id: manual.quote_id, ...quoteBody() } })).data!;
    const path = { id: d.id };
    const step = (body: { to: 'in_transit' | 'failed' | 'attempt_failed'; reason?: 'recipient_unavailable' }) =>
      test.POST('/v1/test_helpers/deliveries/{id}/advance', { params: { path }, body });
    await until('in_transit', async () => ((await step({ to: 'in_transit' })).response.status === 200 ? true : null));
    const attempt = await step({ to: 'attempt_failed', reason: 'recipient_unavailable' });
    expect(attempt.data!.status).toBe('in_transit');
    expect((await step({ to: 'failed' })).data!.status).toBe('failed');
    const made = await test.POST('/v1/deliveries/{id}/return', { params: { path }, body: {} });
    expect(made.response.status).toBe(201);
    expect(made.data).toMatchObject({ return_of: d.id, reference: `${d.reference}-R`, payment_method: 'prepaid' });
    const again = await test.POST('/v1/deliveries/{id}/return', { params: { path }, body: {} });
    expect(again.error).toMatchObject({ status: 409, error: 'return_not_allowed' });
  });
});

describe('settings (docs/deliveries.md "Automatic failover")', () => {
  it('the dispatch policy: read the defaults, turn automatic failover on', async () => {
    const before = await api.GET('/v1/settings/dispatch');
    expect(before.data).toMatchObject({ auto_redispatch: false, max_redispatches: 2, max_delivery_attempts: 2 });
    const changed = await api.PUT('/v1/settings/dispatch', {
      body: { auto_redispatch: true, max_fee_increase_aoa: 25_000 },
    });
    expect(changed.data).toMatchObject({
      auto_redispatch: true,
      max_fee_increase_aoa: 25_000,
      assign_timeout_minutes: 20,
    });
    const invalid = await api.PUT('/v1/settings/dispatch', { body: { max_redispatches: 99 } });
    expect(invalid.error).toMatchObject({ status: 422, error: 'validation_failed' });
  });

  it('the shop profile: read, change the name and a help contact, a contact that is not one refused', async () => {
    const before = await api.GET('/v1/settings/shop');
    expect(before.data).toMatchObject({ display_name: null, help_email: null });
    const changed = await api.PUT('/v1/settings/shop', {
      body: { display_name: 'Loja Cliente', help_url: 'https://loja-cliente.ao/ajuda' },
    });
    expect(changed.data).toMatchObject({ display_name: 'Loja Cliente', help_url: 'https://loja-cliente.ao/ajuda' });
    const invalid = await api.PUT('/v1/settings/shop', { body: { help_email: 'ajuda' } });
    expect(invalid.error).toMatchObject({ status: 422, error: 'validation_failed' });
  });
});

describe('API keys and dashboard users (docs/dashboard.md)', () => {
  // Their writes take a dashboard session (a secret key gets 403 session_required): the client sends its cookie,
  // its CSRF token and the dashboard's origin as the dashboard does.
  let dash: DeliveryApiClient;
  beforeAll(async () => {
    const owner = await dashboardSession(stack, (await stack.tenant()).tenant_id);
    dash = client({
      headers: { cookie: owner.cookie, origin: stack.url, 'sec-fetch-site': 'same-origin', 'x-csrf-token': owner.csrf },
    });
  });

  it('api keys: create (shown once), list, change origins, revoke; a secret key gets 403 session_required', async () => {
    const refused = await api.POST('/v1/api_keys', { body: { kind: 'secret' } });
    expect(refused.error).toMatchObject({ status: 403, error: 'session_required' });
    const created = await dash.POST('/v1/api_keys', { body: { kind: 'publishable', allowed_origins: [SHOP] } });
    expect(created.response.status).toBe(201);
    expect(created.data!.secret).toMatch(/^pk_live_/);
    const id = created.data!.id;
    const list = await dash.GET('/v1/api_keys', { params: { query: { limit: 100 } } });
    expect(list.data!.data.map((k) => k.id)).toContain(id);
    expect(list.data!.data.find((k) => k.id === id)?.publishable_key).toBe(created.data!.secret);
    const updated = await dash.PATCH('/v1/api_keys/{id}', {
      params: { path: { id } },
      body: { allowed_origins: ['https://loja.test'], widget_payment_methods: ['prepaid', 'cod'] },
    });
    expect(updated.data!.allowed_origins).toEqual(['https://loja.test']);
    expect(updated.data!.widget_payment_methods).toEqual(['prepaid', 'cod']);
    const revoked = await dash.POST('/v1/api_keys/{id}/revoke', { params: { path: { id } } });
    expect(revoked.data!.status).toBe('revoked');
    const again = await dash.PATCH('/v1/api_keys/{id}', { params: { path: { id } }, body: { allowed_origins: [] } });
    expect(again.error).toMatchObject({ status: 409, error: 'api_key_revoked' });
  });

  it('users: invite (a one-time link), list, change the role, a new link, remove', async () => {
    const invited = await dash.POST('/v1/users', {
      body: { email: `owner-${randomUUID().slice(0, 8)}@loja.test`, role: 'owner' },
    });
    expect(invited.response.status).toBe(201);
    expect(invited.data!.set_password_url).toContain('/dashboard/set-password#token=');
    const id = invited.data!.id;
    expect((await dash.GET('/v1/users')).data!.data.map((u) => u.id)).toContain(id);
    const demoted = await dash.PATCH('/v1/users/{id}', { params: { path: { id } }, body: { role: 'viewer' } });
    expect(demoted.data!.role).toBe('viewer');
    const link = await dash.POST('/v1/users/{id}/password_link', { params: { path: { id } } });
    expect(link.data!.set_password_url).not.toBe(invited.data!.set_password_url);
    const other = await dash.POST('/v1/users', {
      body: { email: `dev-${randomUUID().slice(0, 8)}@loja.test`, role: 'developer' },
    });
    const promoted = await dash.PATCH('/v1/users/{id}', {
      params: { path: { id: other.data!.id } },
      body: { role: 'owner' },
    });
    expect(promoted.data!.role).toBe('owner');
    const removed = await dash.DELETE('/v1/users/{id}', { params: { path: { id } } });
    expect(removed.data).toEqual({ id, deleted: true });
  });
});

describe('cash on delivery (docs/cash-on-delivery.md)', () => {
  it('collection, the courier report, confirm, dispute, the merchant record, balances, the statement, settings', async () => {
    const test = client({ apiKey: m.tenant.test_secret_key });
    const quotes = await test.POST('/v1/quotes', { body: quoteBody() });
    const manual = quotes.data!.data.find((q) => q.company_slug === 'test-manual')!;
    const book = async () =>
      (
        await test.POST('/v1/deliveries', {
          body: {
            quote_id: (await test.POST('/v1/quotes', { body: quoteBody() })).data!.data.find(
              (q) => q.company_slug === 'test-manual',
            )!.quote_id,
            ...quoteBody(),
            payment_method: 'cod',
            cash_collect_aoa: 500_000,
          },
        })
      ).data!;
    const deliver = async (id: string) => {
      for (const to of ['in_transit', 'delivered'] as const) {
        await until(`advance to ${to}`, async () => {
          const res = await test.POST('/v1/test_helpers/deliveries/{id}/advance', {
            params: { path: { id } },
            body: { to },
          });
          return res.response.status === 200 ? res : null;
        });
      }
      return until('cod.collected', async () => {
        const { data } = await test.GET('/v1/deliveries/{id}', { params: { path: { id } } });
        return data?.cod?.status === 'collected' ? data : null;
      });
    };
    const a = await deliver((await book()).id);
    expect(a.cod).toMatchObject({ expected_aoa: 500_000, collected_aoa: 500_000 });
    const remitted = await test.POST('/v1/test_helpers/cod/remit', { body: { company_id: manual.company_id } });
    expect(remitted.response.status).toBe(201);
    const id = remitted.data!.id;
    const confirmed = await test.POST('/v1/cod/remittances/{id}/confirm', { params: { path: { id } } });
    expect(confirmed.data!.status).toBe('confirmed');
    const disputeLate = await test.POST('/v1/cod/remittances/{id}/dispute', {
      params: { path: { id } },
      body: { reason: 'late' },
    });
    expect(disputeLate.error).toMatchObject({ status: 409, error: 'remittance_not_reported' });

    const b = await deliver((await book()).id);
    const again = await test.POST('/v1/test_helpers/cod/remit', { body: { company_id: manual.company_id } });
    const disputed = await test.POST('/v1/cod/remittances/{id}/dispute', {
      params: { path: { id: again.data!.id } },
      body: { reason: 'nothing arrived' },
    });
    expect(disputed.data!.status).toBe('disputed');
    const recorded = await test.POST('/v1/cod/remittances', {
      body: {
        company_id: manual.company_id,
        paid_at: new Date().toISOString(),
        method: 'cash',
        items: [{ delivery_id: b.id, amount_aoa: 500_000 }],
      },
    });
    expect(recorded.data!).toMatchObject({ status: 'confirmed', source: 'merchant' });
    const read = await test.GET('/v1/cod/remittances/{id}', { params: { path: { id: recorded.data!.id } } });
    expect(read.data!.items[0].delivery_id).toBe(b.id);
    const list = await test.GET('/v1/cod/remittances', { params: { query: { company_id: manual.company_id } } });
    expect((list.data as { data: unknown[] }).data.length).toBe(3);
    const balances = await test.GET('/v1/cod/balances');
    expect(balances.data!.data[0]).toMatchObject({
      collected_aoa: 1_000_000,
      remitted_aoa: 1_000_000,
      outstanding_aoa: 0,
    });

    const settings = await test.PUT('/v1/settings/cod', {
      body: { company_id: manual.company_id, remittance_terms_hours: 12 },
    });
    expect(settings.data!.remittance_terms).toEqual([{ company_id: manual.company_id, remittance_terms_hours: 12 }]);
    expect((await test.GET('/v1/settings/cod')).data!.default_remittance_terms_hours).toBe(48);
  }, 60_000);

  it("a courier's signed remittance (no key)", async () => {
    const created = await createDelivery({ payment_method: 'cod', cash_collect_aoa: 300_000 });
    const got = await until('a courier tracking_ref', async () => {
      const { data } = await api.GET('/v1/deliveries/{id}', { params: { path: { id: created.id } } });
      return data?.courier?.tracking_ref && data.status === 'assigned' ? data : null;
    });
    const ref = got.courier!.tracking_ref!;
    await sim.control.sendEvent(company.slug, { tracking_ref: ref, event_type: 'in_transit' });
    await until(
      'in_transit',
      async () =>
        (await api.GET('/v1/deliveries/{id}', { params: { path: { id: created.id } } })).data?.status === 'in_transit',
    );
    await sim.control.deliver(company.slug, ref);
    await until(
      'collected',
      async () =>
        (await api.GET('/v1/deliveries/{id}', { params: { path: { id: created.id } } })).data?.cod?.status ===
        'collected',
    );
    const body = {
      remittance_ref: `REM-${randomUUID().slice(0, 8)}`,
      paid_at: new Date().toISOString(),
      method: 'multicaixa_express' as const,
      items: [{ tracking_ref: ref, amount_aoa: 300_000 }],
    };
    const reported = await client({ headers: signFleetEvent(company.fleet_secret, JSON.stringify(body)) }).POST(
      '/v1/fleet/{courier_slug}/remittances',
      { params: { path: { courier_slug: company.slug } }, body },
    );
    expect(reported.response.status).toBe(201);
    expect(reported.data!).toMatchObject({ status: 'reported', total_aoa: 300_000, tenant_id: m.tenant.tenant_id });
  });
});

it('every operation of the OpenAPI document was called through the client', () => {
  const document = stack.app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> };
  const missed: string[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const method of Object.keys(item)) {
      if (!sent.some((s) => s.method === method.toUpperCase() && pattern.test(s.path)))
        missed.push(`${method.toUpperCase()} ${template}`);
    }
  }
  expect(missed).toEqual([]);
});
