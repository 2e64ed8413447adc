// The security matrix, on the real stack: tenant isolation on every tenant-scoped route, keys stored only as
// hashes, revoked and wrong-kind keys, Origin checks and CORS preflights on the widget surface, fleet event
// signatures, SQL metacharacters in every string the API stores or searches, the body limit, rate limits, and what
// the public tracking view and page show.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/platform/secrets.js';
import { revokeKey } from '../../src/keys/service.js';
import { signFleetEvent, type Simulator } from '../../simulator/server.js';
import { SQL_STRINGS } from '../helpers/fuzz.js';
import {
  DESTINATION,
  ORIGIN,
  PARCEL,
  createDeliveryFor,
  merchantWith,
  quoteBody,
  simCompany,
  startSimulator,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';
const OTHER_SHOP = 'http://other-shop.test';
const BODY_LIMIT = 64 * 1024;

let stack: Stack;
let sim: Simulator;
let a: Merchant; // the victim
let b: Merchant; // the other tenant
let fleetA: { slug: string; secret: string };
let fleetB: { slug: string; secret: string };
/** Every key issued in this file: none may appear in any table. */
const issuedKeys: string[] = [];

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack({ bodyLimitBytes: BODY_LIMIT, webhookScheduleMs: [0], webhookTimeoutMs: 1000 });
  const ca = simCompany({ require_delivery_pin: true });
  const cb = simCompany();
  a = await merchantWith(stack, sim, [ca], [], [SHOP]);
  b = await merchantWith(stack, sim, [cb], [], [OTHER_SHOP]);
  fleetA = { slug: ca.slug, secret: ca.fleet_secret };
  fleetB = { slug: cb.slug, secret: cb.fleet_secret };
  issuedKeys.push(a.tenant.secret_key, a.tenant.publishable_key, b.tenant.secret_key, b.tenant.publishable_key);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const expectProblem = (res: { status: number; headers: Headers; body: any }, status: number, code?: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    status,
    type: expect.stringContaining('/errors/'),
    title: expect.any(String),
    detail: expect.any(String),
  });
  if (code) expect(res.body.error).toBe(code);
};

const merchant = (m: Merchant) => ({ key: m.tenant.secret_key });
const widget = (m: Merchant, origin = m === a ? SHOP : OTHER_SHOP) => ({
  key: m.tenant.publishable_key,
  headers: { origin },
});

describe("tenant isolation: another tenant's ids are 404, never data", () => {
  let delivery: any;
  let unpaid: any;
  let endpoint: any;
  let messageId: string;
  beforeAll(async () => {
    delivery = await createDeliveryFor(stack, a, { options: { metadata: { secret: 'tenant-a-only' } } });
    unpaid = await createDeliveryFor(stack, a, { payment_method: 'bank_transfer' });
    const res = await stack.request('POST', '/v1/webhook_endpoints', {
      ...merchant(a),
      body: { url: 'http://127.0.0.1:9/a-hook', description: 'tenant A' },
    });
    expect(res.status).toBe(201);
    endpoint = res.body;
    const { rows } = await stack.pool
      .query<{ id: string }>('SELECT id FROM webhook_messages WHERE tenant_id = $1 LIMIT 1', [a.tenant.tenant_id])
      .catch(() => ({ rows: [] as { id: string }[] }));
    messageId = rows[0]?.id ?? `msg_${randomUUID()}`;
  });

  /** The answer names nothing of tenant A. */
  const leaksNothing = (res: { body: any }) => {
    const text = JSON.stringify(res.body);
    for (const secret of [
      delivery.reference,
      unpaid.reference,
      'tenant-a-only',
      ORIGIN.address_line,
      DESTINATION.contact.phone,
      endpoint.secret,
      'a-hook',
    ]) {
      expect(text).not.toContain(secret);
    }
  };

  it.each([
    ['GET', (d: any) => `/v1/deliveries/${d.id}`],
    ['GET', (d: any) => `/v1/deliveries/${d.id}/events`],
    ['DELETE', (d: any) => `/v1/deliveries/${d.id}`],
    ['POST', (d: any) => `/v1/deliveries/${d.id}/payment_confirmation`],
  ] as const)('merchant %s %s', async (method, path) => {
    for (const d of [delivery, unpaid]) {
      const res = await stack.request(method, path(d), merchant(b));
      expectProblem(res, 404, 'not_found');
      leaksNothing(res);
    }
    // Nothing changed for the owner.
    expect((await stack.request('GET', `/v1/deliveries/${unpaid.id}`, merchant(a))).body.status).toBe(
      'awaiting_payment',
    );
    expect((await stack.request('GET', `/v1/deliveries/${delivery.id}`, merchant(a))).body.status).not.toBe(
      'cancelled',
    );
  });

  it('widget GET /v1/widget/deliveries/{id}', async () => {
    const res = await stack.request('GET', `/v1/widget/deliveries/${delivery.id}`, widget(b));
    expectProblem(res, 404, 'not_found');
    leaksNothing(res);
    expect((await stack.request('GET', `/v1/widget/deliveries/${delivery.id}`, widget(a))).status).toBe(200);
  });

  it("lists show only the tenant's own records", async () => {
    const list = await stack.request('GET', '/v1/deliveries?limit=100', merchant(b));
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: any) => d.id)).not.toContain(delivery.id);
    leaksNothing(list);
    const search = await stack.request(
      'GET',
      `/v1/deliveries?search=${encodeURIComponent(delivery.reference)}`,
      merchant(b),
    );
    expect(search.body.data).toEqual([]);
    const endpoints = await stack.request('GET', '/v1/webhook_endpoints', merchant(b));
    expect(endpoints.body.data.map((e: any) => e.id)).not.toContain(endpoint.id);
  });

  it('a quote of another tenant cannot be used', async () => {
    const q = (await stack.request('POST', '/v1/quotes', { ...merchant(a), body: quoteBody() })).body.data[0];
    const res = await stack.request('POST', '/v1/deliveries', {
      ...merchant(b),
      body: { quote_id: q.quote_id, ...quoteBody() },
    });
    expectProblem(res, 422, 'quote_not_found');
  });

  it.each([
    ['GET', '', undefined],
    ['PATCH', '', { description: 'hijacked', url: 'http://127.0.0.1:9/evil' }],
    ['POST', '/rotate_secret', undefined],
    ['GET', '/attempts', undefined],
    ['POST', '/replay', 'message'],
    ['POST', '/replay', { since: '2000-01-01T00:00:00Z' }],
    ['DELETE', '', undefined],
  ] as const)('webhook endpoints %s {id}%s', async (method, suffix, body) => {
    const payload = body === 'message' ? { message_id: messageId } : body;
    const res = await stack.request(method, `/v1/webhook_endpoints/${endpoint.id}${suffix}`, {
      ...merchant(b),
      body: payload,
    });
    expectProblem(res, 404, 'not_found');
    leaksNothing(res);
    // Still there, unchanged, with the same secret.
    const { rows } = await stack.pool.query(
      'SELECT url, description, secret, tenant_id FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(rows[0]).toMatchObject({
      url: 'http://127.0.0.1:9/a-hook',
      description: 'tenant A',
      secret: endpoint.secret,
      tenant_id: a.tenant.tenant_id,
    });
  });
});

describe('keys', () => {
  it('revoked secret and publishable keys are refused', async () => {
    const t = await stack.tenant([SHOP]);
    issuedKeys.push(t.secret_key, t.publishable_key);
    expect((await stack.request('GET', '/v1/couriers', { key: t.secret_key })).status).toBe(200);
    expect(
      (await stack.request('GET', '/v1/widget/couriers', { key: t.publishable_key, headers: { origin: SHOP } })).status,
    ).toBe(200);
    await revokeKey(stack.pool, t.secret_key_id);
    await revokeKey(stack.pool, t.publishable_key);
    expectProblem(await stack.request('GET', '/v1/couriers', { key: t.secret_key }), 401, 'unauthorized');
    expectProblem(
      await stack.request('POST', '/v1/quotes', { key: t.secret_key, body: quoteBody() }),
      401,
      'unauthorized',
    );
    expectProblem(
      await stack.request('GET', '/v1/widget/couriers', { key: t.publishable_key, headers: { origin: SHOP } }),
      401,
      'unauthorized',
    );
    expectProblem(
      await stack.request('POST', '/v1/widget/quotes', {
        key: t.publishable_key,
        headers: { origin: SHOP },
        body: quoteBody(),
      }),
      401,
      'unauthorized',
    );
  });

  const merchantRoutes: [string, string][] = [
    ['GET', '/v1/couriers'],
    ['POST', '/v1/quotes'],
    ['POST', '/v1/deliveries'],
    ['GET', '/v1/deliveries'],
    ['GET', `/v1/deliveries/${randomUUID()}`],
    ['GET', `/v1/deliveries/${randomUUID()}/events`],
    ['DELETE', `/v1/deliveries/${randomUUID()}`],
    ['POST', `/v1/deliveries/${randomUUID()}/payment_confirmation`],
    ['GET', '/v1/webhook_endpoints'],
    ['POST', '/v1/webhook_endpoints'],
    ['GET', `/v1/webhook_endpoints/${randomUUID()}`],
    ['POST', '/v1/diagnostics/round_trip'],
  ];
  const widgetRoutes: [string, string][] = [
    ['GET', '/v1/widget/couriers'],
    ['POST', '/v1/widget/quotes'],
    ['POST', '/v1/widget/deliveries'],
    ['GET', `/v1/widget/deliveries/${randomUUID()}`],
  ];

  it.each(merchantRoutes)('a publishable key is refused on merchant %s %s', async (method, path) => {
    const res = await stack.request(method, path, {
      key: a.tenant.publishable_key,
      headers: { origin: SHOP },
      body: method === 'POST' ? quoteBody() : undefined,
    });
    expectProblem(res, 401, 'unauthorized');
  });

  it.each(widgetRoutes)('a secret key is refused on widget %s %s', async (method, path) => {
    const res = await stack.request(method, path, {
      key: a.tenant.secret_key,
      headers: { origin: SHOP },
      body: method === 'POST' ? quoteBody() : undefined,
    });
    expectProblem(res, 401, 'unauthorized');
  });

  it.each(widgetRoutes)('widget %s %s: a forged, missing or malformed Origin is 401', async (method, path) => {
    const body = method === 'POST' ? quoteBody() : undefined;
    for (const origin of [
      undefined,
      'http://evil.test',
      OTHER_SHOP,
      `${SHOP}/`,
      `${SHOP}:8080`,
      `https://shop.test`,
      `${SHOP}.evil.test`,
      'null',
      '',
      `${SHOP}/path`,
      `${SHOP}, http://evil.test`,
    ]) {
      const res = await stack.request(method, path, {
        key: a.tenant.publishable_key,
        headers: origin === undefined ? {} : { origin },
        body,
      });
      expectProblem(res, 401, 'unauthorized');
    }
    // Another tenant's publishable key from its own allowed origin does not open tenant A's data either (404 above);
    // here: the right key from the right origin is not refused.
    const ok = await stack.request(method, path, { key: a.tenant.publishable_key, headers: { origin: SHOP }, body });
    expect(ok.status).not.toBe(401);
  });

  it('Origin compares as an origin: scheme and host are case-insensitive (RFC 6454), anything else must match exactly', async () => {
    // Browsers send origins lower-cased; a case variant names the same origin, so it is accepted rather than refused.
    const res = await stack.request('GET', '/v1/widget/couriers', {
      key: a.tenant.publishable_key,
      headers: { origin: 'HTTP://SHOP.TEST' },
    });
    expect(res.status).toBe(200);
    expectProblem(
      await stack.request('GET', '/v1/widget/couriers', {
        key: a.tenant.publishable_key,
        headers: { origin: 'HTTP://SHOP.TEST/' },
      }),
      401,
      'unauthorized',
    );
  });

  it('CORS preflights are answered only for origins an active publishable key allows', async () => {
    const revokedOrigin = `http://revoked-${randomUUID().slice(0, 8)}.test`;
    const t = await stack.tenant([revokedOrigin]);
    issuedKeys.push(t.secret_key, t.publishable_key);
    // Both publishable keys allow it (the live and the test one, docs/test-mode.md): revoke both.
    await revokeKey(stack.pool, t.publishable_key_id);
    await revokeKey(stack.pool, t.test_publishable_key_id);
    const preflight = (origin: string, path = '/v1/widget/quotes') =>
      fetch(`${stack.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
    const allowed = await preflight(SHOP);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SHOP);
    for (const origin of ['http://evil.test', `${SHOP}/`, `${SHOP}:8080`, `${SHOP}.evil.test`, 'null', revokedOrigin]) {
      const res = await preflight(origin);
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // Merchant routes are not for browsers: no CORS even for an allowed origin.
    expect((await preflight(SHOP, '/v1/quotes')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('fleet events: signature and freshness', () => {
  let d: any;
  let ref: string;
  const count = async () =>
    Number(
      (await stack.pool.query('SELECT count(*) FROM delivery_events WHERE delivery_id = $1', [d.id])).rows[0].count,
    );
  beforeAll(async () => {
    d = await createDeliveryFor(stack, a);
    const assigned = await waitForStatus(stack, a.tenant.secret_key, d.id, 'assigned');
    ref = assigned.courier.tracking_ref;
  });
  const event = () =>
    JSON.stringify({
      tracking_ref: ref,
      event_type: 'failed',
      occurred_at: new Date().toISOString(),
      payload: { reason: 'forged' },
    });
  const send = (body: string, headers: Record<string, string>, slug = fleetA.slug) =>
    stack.request('POST', `/v1/fleet/${slug}/events`, {
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it.each([
    ['no signature headers', () => ({})],
    [
      'a wrong signature',
      (body: string) => ({
        ...signFleetEvent(fleetA.secret, body),
        'webhook-signature': 'v1,' + Buffer.alloc(32, 7).toString('base64'),
      }),
    ],
    ["another company's secret", (body: string) => signFleetEvent(fleetB.secret, body)],
    [
      'a random whsec_ secret',
      (body: string) => signFleetEvent('whsec_' + Buffer.from(randomUUID()).toString('base64'), body),
    ],
    ['a tampered body', (body: string) => ({ ...signFleetEvent(fleetA.secret, body), tamper: '1' })],
    [
      'a timestamp 6 minutes old',
      (body: string) => signFleetEvent(fleetA.secret, body, `msg_${randomUUID()}`, new Date(Date.now() - 6 * 60_000)),
    ],
    [
      'a timestamp 6 minutes ahead',
      (body: string) => signFleetEvent(fleetA.secret, body, `msg_${randomUUID()}`, new Date(Date.now() + 6 * 60_000)),
    ],
    [
      'a signature for another webhook-id',
      (body: string) => ({ ...signFleetEvent(fleetA.secret, body), 'webhook-id': `msg_${randomUUID()}` }),
    ],
    [
      'a signature for another timestamp',
      (body: string) => ({
        ...signFleetEvent(fleetA.secret, body),
        'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 1),
      }),
    ],
  ] as const)('%s: 401, nothing recorded', async (_name, headers) => {
    const before = await count();
    const body = event();
    const h = headers(body) as Record<string, string>;
    const sent = 'tamper' in h ? body.replace('"failed"', '"delivered"') : body;
    delete h.tamper;
    expectProblem(await send(sent, h), 401, 'unauthorized');
    expect(await count()).toBe(before);
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, merchant(a))).body.status).toBe('assigned');
  });

  it("the other company's slug with its own valid signature cannot touch this company's job (404)", async () => {
    const body = event();
    const res = await send(body, signFleetEvent(fleetB.secret, body), fleetB.slug);
    expectProblem(res, 404, 'not_found');
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, merchant(a))).body.status).toBe('assigned');
  });
});

describe('SQL metacharacters are data', () => {
  it('in search: 200, taken literally, never an error', async () => {
    for (const s of [
      ...SQL_STRINGS,
      "%' OR 1=1 --",
      "x'); DELETE FROM deliveries; --",
      '\\\\',
      '[a-z]',
      '.*',
      '(?i)',
    ]) {
      const res = await stack.request('GET', `/v1/deliveries?search=${encodeURIComponent(s)}`, merchant(b));
      expect(res.status, s).toBe(200);
      expect(res.body.data, s).toEqual([]);
    }
    expect(Number((await stack.pool.query('SELECT count(*) FROM deliveries')).rows[0].count)).toBeGreaterThan(0);
  });

  it('in every string field of quotes and deliveries: stored and echoed verbatim, found by search', async () => {
    const evil = (i: number) => `${SQL_STRINGS[i % SQL_STRINGS.length]}x${i}'"\\%_;--`.trim();
    const origin = {
      address_line: evil(1),
      city: evil(2),
      province: evil(3),
      coordinates: ORIGIN.coordinates,
      contact: { name: evil(4), phone: "+244'9--;" },
    };
    const destination = {
      address_line: evil(5),
      city: evil(6),
      province: evil(7),
      coordinates: DESTINATION.coordinates,
      contact: { name: evil(8), phone: '"; DROP' },
    };
    const parcel = { ...PARCEL, description: evil(9), parcel_type: "box'; --" };
    const metadata = { [evil(10).slice(0, 40)]: evil(11), "o'reilly": { nested: evil(12) }, '%_': ['--', "'"] };
    const quoted = await stack.request('POST', '/v1/quotes', { ...merchant(a), body: { origin, destination, parcel } });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    const q = quoted.body.data[0];
    const created = await stack.request('POST', '/v1/deliveries', {
      ...merchant(a),
      body: { quote_id: q.quote_id, origin, destination, parcel, options: { metadata } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const res of [created, await stack.request('GET', `/v1/deliveries/${created.body.id}`, merchant(a))]) {
      expect(res.body.origin).toEqual(origin);
      expect(res.body.destination).toEqual(destination);
      expect(res.body.parcel).toEqual(parcel);
      expect(res.body.metadata).toEqual(metadata);
    }
    for (const term of [origin.city, destination.address_line, 'x5\'"\\%_;--']) {
      const found = await stack.request('GET', `/v1/deliveries?search=${encodeURIComponent(term)}`, merchant(a));
      expect(found.status).toBe(200);
      expect(
        found.body.data.map((d: any) => d.id),
        term,
      ).toContain(created.body.id);
    }
    // Webhook endpoint description too.
    const ep = await stack.request('POST', '/v1/webhook_endpoints', {
      ...merchant(b),
      body: { url: "http://127.0.0.1:9/x?q=';--", description: evil(13) },
    });
    expect(ep.status).toBe(201);
    expect(ep.body).toMatchObject({ url: "http://127.0.0.1:9/x?q=';--", description: evil(13) });
    expect((await stack.request('GET', `/v1/webhook_endpoints/${ep.body.id}`, merchant(b))).body.description).toBe(
      evil(13),
    );
  });
});

describe('request body limit', () => {
  const big = () => JSON.stringify({ ...quoteBody(), pad: 'x'.repeat(BODY_LIMIT + 1) });
  it.each([
    ['POST', '/v1/quotes', 'secret'],
    ['POST', '/v1/deliveries', 'secret'],
    ['POST', '/v1/webhook_endpoints', 'secret'],
    ['POST', '/v1/widget/quotes', 'widget'],
    ['POST', '/v1/widget/deliveries', 'widget'],
    ['POST', '/v1/fleet/{slug}/events', 'none'],
  ] as const)('%s %s: 413 payload_too_large problem+json', async (method, path, auth) => {
    const opts = auth === 'secret' ? merchant(a) : auth === 'widget' ? widget(a) : {};
    const res = await stack.request(method, path.replace('{slug}', fleetA.slug), { ...opts, body: big() });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('also without Content-Length (chunked)', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"pad":"'));
        if (sent > BODY_LIMIT * 2) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent += chunk.length;
      },
    });
    const res = await fetch(`${stack.url}/v1/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.tenant.secret_key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await res.json()).error).toBe('payload_too_large');
  });
});

describe('rate limits', () => {
  let limited: Stack;
  beforeAll(async () => {
    limited = await startStack({ rateLimitPerMinute: 5, widgetRateLimitPerMinute: 3 });
  });
  afterAll(() => limited?.close());

  const check429 = (res: { status: number; headers: Headers; body: any }, limit: number) => {
    expectProblem(res, 429, 'rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  };

  it('merchant: per key, with RateLimit-* headers, then 429 problem+json with Retry-After', async () => {
    const t = await limited.tenant();
    const other = await limited.tenant();
    issuedKeys.push(t.secret_key, t.publishable_key, other.secret_key, other.publishable_key);
    for (let i = 0; i < 5; i++) {
      const res = await limited.request('GET', '/v1/couriers', { key: t.secret_key });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
      expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    }
    check429(await limited.request('GET', '/v1/couriers', { key: t.secret_key }), 5);
    check429(await limited.request('POST', '/v1/quotes', { key: t.secret_key, body: quoteBody() }), 5);
    // Another key is not affected.
    expect((await limited.request('GET', '/v1/couriers', { key: other.secret_key })).status).toBe(200);
  });

  it('widget: its own limit, 429 problem+json with Retry-After', async () => {
    const t = await limited.tenant([SHOP]);
    issuedKeys.push(t.secret_key, t.publishable_key);
    for (let i = 0; i < 3; i++)
      expect(
        (await limited.request('GET', '/v1/widget/couriers', { key: t.publishable_key, headers: { origin: SHOP } }))
          .status,
      ).toBe(200);
    check429(
      await limited.request('GET', '/v1/widget/couriers', { key: t.publishable_key, headers: { origin: SHOP } }),
      3,
    );
  });

  it('unauthenticated requests are limited per address and still 429 problem+json', async () => {
    let last: any;
    for (let i = 0; i < 7; i++) last = await limited.request('GET', `/v1/deliveries/${randomUUID()}/tracking`);
    check429(last, 5);
  });
});

describe('public tracking shows reference, status and event types and times only', () => {
  let d: any;
  beforeAll(async () => {
    d = await createDeliveryFor(stack, a, {
      payment_method: 'cod',
      cash_collect_aoa: 777_777,
      options: { metadata: { leak_marker: 'METADATA-LEAK-MARKER', customer_email: 'ana@example.test' } },
    });
    const assigned = await waitForStatus(stack, a.tenant.secret_key, d.id, 'assigned');
    d = assigned;
    expect(d.delivery_pin).toMatch(/^\d{4}$/);
    // An event not allowed from `assigned`: recorded as ignored, with a payload that must not leak.
    const sent = await sim.control.sendEvent(a.slug, {
      tracking_ref: d.courier.tracking_ref,
      event_type: 'delivered',
      payload: { pin: '0000', note: 'IGNORED-PAYLOAD-MARKER' },
    });
    expect(sent.response_status).toBe(202);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const events = (await stack.request('GET', `/v1/deliveries/${d.id}/events`, merchant(a))).body.data;
      if (events.some((e: any) => e.payload?.ignored)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    d = (await stack.request('GET', `/v1/deliveries/${d.id}`, merchant(a))).body;
    expect(d.events.some((e: any) => e.payload?.ignored)).toBe(true);
  });

  const secrets = () => [
    d.origin.address_line,
    d.destination.address_line,
    d.origin.contact.phone,
    d.destination.contact.phone,
    d.origin.contact.name,
    d.destination.contact.name,
    'METADATA-LEAK-MARKER',
    'ana@example.test',
    'IGNORED-PAYLOAD-MARKER',
    d.courier.tracking_ref,
    d.company_id,
    '777777',
    a.tenant.tenant_id,
  ];

  it('GET /v1/deliveries/{id}/tracking: exactly three fields, events of two fields, no ignored events', async () => {
    const res = await stack.request('GET', `/v1/deliveries/${d.id}/tracking`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['events', 'reference', 'status']);
    expect(res.body).toMatchObject({ reference: d.reference, status: 'assigned' });
    for (const e of res.body.events) expect(Object.keys(e).sort()).toEqual(['event_type', 'occurred_at']);
    expect(res.body.events.map((e: any) => e.event_type)).toEqual(
      d.events.filter((e: any) => !e.payload?.ignored).map((e: any) => e.event_type),
    );
    expect(res.body.events.map((e: any) => e.event_type)).not.toContain('delivery.delivered');
    const text = JSON.stringify(res.body);
    for (const s of secrets()) expect(text, s).not.toContain(s);
    expect(text).not.toMatch(new RegExp(`\\b${d.delivery_pin}\\b`));
  });

  it('the /track/{id} page contains no PIN, address, phone, contact or metadata', async () => {
    const res = await fetch(`${stack.url}/track/${d.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(d.reference);
    for (const s of secrets()) expect(html, s).not.toContain(s);
    // The PIN is 4 digits: look for it outside styles, scripts and date-times (a year could equal it).
    const visible = html
      .replace(/<style[\s\S]*?<\/style>/gi, '')
      .replace(/<script[\s\S]*?<\/script>/gi, '')
      .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, '')
      .replace(/\b(19|20)\d{2}\b/g, '');
    expect(visible).not.toMatch(new RegExp(`(?<![\\d#])${d.delivery_pin}(?!\\d)`));
  });
});

describe('secret keys are stored only as hashes; publishable keys (public) also whole, in one column', () => {
  it('no table holds an issued secret key, in any text, bytea, json or array column; a publishable key only api_keys.publishable_key', async () => {
    // Use the keys once more through idempotent routes, so that anything recording requests has seen them.
    await stack.request('POST', '/v1/quotes', {
      ...merchant(a),
      body: quoteBody(),
      headers: { 'idempotency-key': randomUUID() },
    });
    await stack.request('POST', '/v1/widget/quotes', {
      ...widget(a),
      body: quoteBody(),
      headers: { 'idempotency-key': randomUUID() },
    });
    const { rows: columns } = await stack.pool.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'character', 'bytea', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`,
    );
    expect(columns.length).toBeGreaterThan(10);
    // The key, and its 32 random characters alone.
    const needles = (kind: string) => issuedKeys.filter((k) => k.startsWith(kind)).flatMap((k) => [k, k.slice(8)]);
    const holding = async (keys: string[]) => {
      const hits: string[] = [];
      for (const c of columns) {
        const col = `"${c.column_name}"`;
        const asText = c.data_type === 'bytea' ? `encode(${col}, 'escape')` : `${col}::text`;
        const { rows } = await stack.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM "${c.table_name}" WHERE ${col} IS NOT NULL AND EXISTS (SELECT 1 FROM unnest($1::text[]) k WHERE strpos(${asText}, k) > 0)`,
          [keys],
        );
        if (Number(rows[0].n) > 0) hits.push(`${c.table_name}.${c.column_name}`);
      }
      return hits;
    };
    expect(needles('sk_').length).toBeGreaterThan(4);
    expect(await holding(needles('sk_'))).toEqual([]);
    // A publishable key is public (it sits in the shop's pages): kept whole to be read at any time (docs/dashboard.md
    // "API keys"), in its own row only.
    expect(await holding(needles('pk_'))).toEqual(['api_keys.publishable_key']);
    const { rows: own } = await stack.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM api_keys WHERE publishable_key IS NOT NULL AND key_hash <> sha256(convert_to(publishable_key, $1))',
      ['UTF8'],
    );
    expect(Number(own[0].n)).toBe(0);
    // What is stored is the SHA-256 of the key.
    const { rows } = await stack.pool.query<{ key_hash: Buffer; prefix: string }>(
      'SELECT key_hash, prefix FROM api_keys WHERE id = $1',
      [a.tenant.secret_key_id],
    );
    expect(rows[0].key_hash.equals(hashKey(a.tenant.secret_key))).toBe(true);
    expect(a.tenant.secret_key.startsWith(rows[0].prefix)).toBe(true);
    expect(rows[0].prefix.length).toBeLessThanOrEqual(12);
  });
});
