// Test mode on the real stack: test keys, and the isolation of test and live objects on every route, both ways (an
// object of the other mode is 404 as another tenant's would be, lists and replays never show it), the `livemode` of
// every row a request creates and of every object the API returns, webhooks in test mode (test endpoints only, signed
// the same way, `livemode` in the envelope), the widget with test publishable keys and the tracking page's banner.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreatedTenant } from '../../src/tenants/service.js';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { signFleetEvent } from '../../simulator/server.js';
import { quoteBody } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { VerifyingReceiver, deliveryWith, quoteFrom, types, until } from '../helpers/test-mode.js';

const ORIGIN = 'http://shop.test';
let stack: Stack;
let receiver: VerifyingReceiver;
let t: CreatedTenant;
/** The tenant's live courier: a rate-card company booked "by fleet" (no upstream call), linked to it. */
let liveSlug: string;
beforeAll(async () => {
  stack = await startStack({ webhookScheduleMs: [0, 200, 400] });
  receiver = new VerifyingReceiver();
  await receiver.start();
  t = await stack.tenant([ORIGIN]);
  liveSlug = `live-${randomUUID().slice(0, 8)}`;
  await createCourier(stack.pool, {
    name: 'Live Courier',
    slug: liveSlug,
    adapter: 'rate_card',
    base_fee_aoa: 200_000,
    base_eta_minutes: 60,
  });
  await linkCouriers(stack.pool, t.tenant_id, liveSlug);
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const live = () => t.secret_key;
const test = () => t.test_secret_key;
const get = (path: string, key: string) => stack.request('GET', path, { key });
const post = (path: string, key: string, body: unknown = {}, headers?: Record<string, string>) =>
  stack.request('POST', path, { key, body, headers });

describe('test keys', () => {
  it('authenticate like live ones; a malformed or mistyped one is told what a key looks like', async () => {
    expect(t.test_secret_key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(t.test_publishable_key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    expect((await get('/v1/couriers', test())).status).toBe(200);
    const widget = await stack.request('GET', '/v1/widget/couriers', {
      key: t.test_publishable_key,
      headers: { origin: ORIGIN },
    });
    expect(widget.status).toBe(200);
    const malformed = await get('/v1/couriers', 'sk_test_short');
    stack.expectProblem(malformed, 401, 'unauthorized');
    expect(malformed.body.detail).toMatch(
      /malformed: a secret key is sk_live_ followed by 32 letters and digits \(sk_test_ in test mode\)/,
    );
    const otherKind = await get('/v1/couriers', t.test_publishable_key);
    expect(otherKind.body.detail).toBe('This endpoint takes a secret key (sk_test_...), not a publishable key.');
    const unknown = await get('/v1/couriers', `sk_test_${'0'.repeat(32)}`);
    expect(unknown.body.detail).toBe('Invalid or revoked API key.');
    // The test publishable key checks its origins like the live one.
    const origin = await stack.request('GET', '/v1/widget/couriers', {
      key: t.test_publishable_key,
      headers: { origin: 'http://evil.test' },
    });
    stack.expectProblem(origin, 401, 'unauthorized');
  });
});

describe('isolation: a test key never sees live objects, a live key never sees test objects', () => {
  let liveDelivery: any;
  let testDelivery: any;
  let liveAwaiting: any;
  let testAwaiting: any;
  let liveEndpoint: any;
  let testEndpoint: any;
  beforeAll(async () => {
    liveEndpoint = (await post('/v1/webhook_endpoints', live(), { url: receiver.url('/iso-live') })).body;
    testEndpoint = (await post('/v1/webhook_endpoints', test(), { url: receiver.url('/iso-test') })).body;
    receiver.expect('/iso-live', liveEndpoint.secret);
    receiver.expect('/iso-test', testEndpoint.secret);
    liveDelivery = await deliveryWith(stack, live(), liveSlug);
    testDelivery = await deliveryWith(stack, test(), 'test-manual');
    liveAwaiting = await deliveryWith(stack, live(), liveSlug, { payment_method: 'bank_transfer' });
    testAwaiting = await deliveryWith(stack, test(), 'test-manual', { payment_method: 'bank_transfer' });
    await until(stack, test(), testDelivery.id, (d) => d.status === 'assigned');
  });

  it('livemode on Delivery, Quote entries and webhook endpoints', async () => {
    expect(liveDelivery.livemode).toBe(true);
    expect(testDelivery.livemode).toBe(false);
    expect((await quoteFrom(stack, live(), liveSlug)).livemode).toBe(true);
    expect((await quoteFrom(stack, test(), 'test-auto')).livemode).toBe(false);
    expect(liveEndpoint.livemode).toBe(true);
    expect(testEndpoint.livemode).toBe(false);
    expect((await get(`/v1/webhook_endpoints/${testEndpoint.id}`, test())).body.livemode).toBe(false);
    expect((await get(`/v1/deliveries/${testDelivery.id}`, test())).body.livemode).toBe(false);
  });

  it('GET /v1/couriers: the live key gets the linked companies, the test key the simulated test couriers', async () => {
    const liveSlugs = (await get('/v1/couriers', live())).body.data.map((c: { slug: string }) => c.slug);
    const testSlugs = (await get('/v1/couriers', test())).body.data.map((c: { slug: string }) => c.slug);
    expect(liveSlugs).toEqual([liveSlug]);
    expect(testSlugs).not.toContain(liveSlug);
    expect(testSlugs.every((s: string) => s.startsWith('test-'))).toBe(true);
  });

  it("POST /v1/quotes: each key quotes its own mode's companies only", async () => {
    const liveQuotes = (await post('/v1/quotes', live(), quoteBody())).body.data;
    const testQuotes = (await post('/v1/quotes', test(), quoteBody())).body.data;
    expect(liveQuotes.map((q: any) => q.company_slug)).toEqual([liveSlug]);
    expect(testQuotes.map((q: any) => q.company_slug)).not.toContain(liveSlug);
    expect(testQuotes.length).toBeGreaterThan(0);
  });

  it('POST /v1/deliveries: a quote of the other mode is quote_not_found, both ways', async () => {
    const testQuote = await quoteFrom(stack, test(), 'test-manual');
    const liveQuote = await quoteFrom(stack, live(), liveSlug);
    const a = await post('/v1/deliveries', live(), { quote_id: testQuote.quote_id, ...quoteBody() });
    stack.expectProblem(a, 422, 'quote_not_found');
    const b = await post('/v1/deliveries', test(), { quote_id: liveQuote.quote_id, ...quoteBody() });
    stack.expectProblem(b, 422, 'quote_not_found');
    // Each still works with its own key.
    expect((await post('/v1/deliveries', test(), { quote_id: testQuote.quote_id, ...quoteBody() })).body.livemode).toBe(
      false,
    );
  });

  it('GET /v1/deliveries lists its own mode only', async () => {
    const liveIds = (await get('/v1/deliveries?limit=100', live())).body.data.map((d: any) => d.id);
    const testIds = (await get('/v1/deliveries?limit=100', test())).body.data.map((d: any) => d.id);
    expect(liveIds).toEqual(expect.arrayContaining([liveDelivery.id, liveAwaiting.id]));
    expect(testIds).toEqual(expect.arrayContaining([testDelivery.id, testAwaiting.id]));
    expect(liveIds).not.toContain(testDelivery.id);
    expect(testIds).not.toContain(liveDelivery.id);
    const testList = (await get('/v1/deliveries?limit=100', test())).body.data;
    expect(testList.every((d: any) => d.livemode === false)).toBe(true);
    // Filters and search stay within the mode.
    const searched = (await get(`/v1/deliveries?search=${liveDelivery.reference}`, test())).body.data;
    expect(searched).toEqual([]);
    expect((await get(`/v1/deliveries?status=awaiting_payment`, live())).body.data.map((d: any) => d.id)).toEqual([
      liveAwaiting.id,
    ]);
  });

  it('GET one, GET events, DELETE and payment_confirmation of the other mode are 404 and change nothing', async () => {
    for (const [key, other] of [
      [live(), testDelivery],
      [test(), liveDelivery],
    ] as const) {
      stack.expectProblem(await get(`/v1/deliveries/${other.id}`, key), 404, 'not_found');
      stack.expectProblem(await get(`/v1/deliveries/${other.id}/events`, key), 404, 'not_found');
      stack.expectProblem(await stack.request('DELETE', `/v1/deliveries/${other.id}`, { key }), 404, 'not_found');
    }
    stack.expectProblem(await post(`/v1/deliveries/${testAwaiting.id}/payment_confirmation`, live()), 404, 'not_found');
    stack.expectProblem(await post(`/v1/deliveries/${liveAwaiting.id}/payment_confirmation`, test()), 404, 'not_found');
    expect((await get(`/v1/deliveries/${testDelivery.id}`, test())).body.status).toBe('assigned');
    expect((await get(`/v1/deliveries/${liveDelivery.id}`, live())).body.status).toBe('pending');
    expect((await get(`/v1/deliveries/${testAwaiting.id}`, test())).body.status).toBe('awaiting_payment');
    expect((await get(`/v1/deliveries/${liveAwaiting.id}`, live())).body.status).toBe('awaiting_payment');
    // With their own key they work.
    expect((await get(`/v1/deliveries/${testDelivery.id}/events`, test())).status).toBe(200);
    expect((await post(`/v1/deliveries/${testAwaiting.id}/payment_confirmation`, test())).body.status).toBe('pending');
  });

  it("webhook endpoints: the other mode's endpoint is 404 on every route; the list shows its own mode only", async () => {
    for (const [key, other] of [
      [live(), testEndpoint],
      [test(), liveEndpoint],
    ] as const) {
      const path = `/v1/webhook_endpoints/${other.id}`;
      stack.expectProblem(await get(path, key), 404, 'not_found');
      stack.expectProblem(await stack.request('PATCH', path, { key, body: { description: 'x' } }), 404, 'not_found');
      stack.expectProblem(await post(`${path}/rotate_secret`, key), 404, 'not_found');
      stack.expectProblem(await get(`${path}/attempts`, key), 404, 'not_found');
      stack.expectProblem(await post(`${path}/replay`, key, { since: new Date(0).toISOString() }), 404, 'not_found');
      stack.expectProblem(await stack.request('DELETE', path, { key }), 404, 'not_found');
    }
    const liveList = (await get('/v1/webhook_endpoints', live())).body.data.map((e: any) => e.id);
    const testList = (await get('/v1/webhook_endpoints', test())).body.data.map((e: any) => e.id);
    expect(liveList).toEqual([liveEndpoint.id]);
    expect(testList).toEqual([testEndpoint.id]);
  });

  it('replay: a message of the other mode is message_not_found; a range replays its own mode only', async () => {
    // Both deliveries' delivery.created messages exist by now (each went to its own mode's endpoint).
    await until(stack, live(), liveDelivery.id, () => receiver.at('/iso-live', liveDelivery.id).length > 0);
    await until(stack, test(), testDelivery.id, () => receiver.at('/iso-test', testDelivery.id).length > 0);
    const liveMessage = receiver.at('/iso-live', liveDelivery.id)[0].body.id;
    const testMessage = receiver.at('/iso-test', testDelivery.id)[0].body.id;
    const a = await post(`/v1/webhook_endpoints/${liveEndpoint.id}/replay`, live(), { message_id: testMessage });
    stack.expectProblem(a, 422, 'message_not_found');
    const b = await post(`/v1/webhook_endpoints/${testEndpoint.id}/replay`, test(), { message_id: liveMessage });
    stack.expectProblem(b, 422, 'message_not_found');
    expect(
      (await post(`/v1/webhook_endpoints/${testEndpoint.id}/replay`, test(), { message_id: testMessage })).status,
    ).toBe(202);
    const { rows } = await stack.pool.query<{ livemode: boolean; n: number }>(
      'SELECT livemode, count(*)::int AS n FROM webhook_messages WHERE tenant_id = $1 GROUP BY livemode ORDER BY livemode',
      [t.tenant_id],
    );
    const count = Object.fromEntries(rows.map((r) => [String(r.livemode), r.n]));
    await until(
      stack,
      test(),
      testDelivery.id,
      () => receiver.at('/iso-test').filter((h) => h.body.id === testMessage).length >= 2,
    );
    const before = { test: receiver.at('/iso-test').length, live: receiver.at('/iso-live').length };
    // The single replay's workflow ends a moment after its message arrived (it logs the attempt): until then the
    // endpoint answers 409 replay_in_progress, one replay at a time (a CI run on a busy machine met it).
    const rangeReplay = () =>
      post(`/v1/webhook_endpoints/${testEndpoint.id}/replay`, test(), {
        since: new Date(Date.now() - 3_600_000).toISOString(),
      });
    let range = await rangeReplay();
    for (let i = 0; i < 100 && range.status === 409 && range.body.error === 'replay_in_progress'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      range = await rangeReplay();
    }
    expect(range.status).toBe(202);
    expect(range.body.replayed).toBeLessThanOrEqual(count.false);
    expect(range.body.replayed).toBeGreaterThan(0);
    expect(count.true).toBeGreaterThan(0);
    // Every replayed message reached the test endpoint only, and each is a test delivery's.
    await until(
      stack,
      test(),
      testDelivery.id,
      () => receiver.at('/iso-test').length >= before.test + range.body.replayed,
    );
    expect(receiver.at('/iso-live').length).toBe(before.live);
    expect(receiver.at('/iso-test').every((h) => h.body.livemode === false)).toBe(true);
    expect(receiver.at('/iso-live').every((h) => h.body.livemode === true)).toBe(true);
  });

  it("widget: couriers, quotes, creation and reads stay within the publishable key's mode", async () => {
    const widget = (method: string, path: string, key: string, body?: unknown) =>
      stack.request(method, `/v1/widget${path}`, { key, body, headers: { origin: ORIGIN } });
    const testCouriers = (await widget('GET', '/couriers', t.test_publishable_key)).body.data.map((c: any) => c.slug);
    expect(testCouriers).not.toContain(liveSlug);
    expect((await widget('GET', '/couriers', t.publishable_key)).body.data.map((c: any) => c.slug)).toEqual([liveSlug]);
    const testQuotes = (await widget('POST', '/quotes', t.test_publishable_key, quoteBody())).body.data;
    expect(testQuotes.every((q: any) => q.livemode === false && q.company_slug.startsWith('test-'))).toBe(true);
    const testQuote = testQuotes.find((q: any) => q.company_slug === 'test-manual');
    // A test quote with the live publishable key: quote_not_found.
    stack.expectProblem(
      await widget('POST', '/deliveries', t.publishable_key, { quote_id: testQuote.quote_id, ...quoteBody() }),
      422,
      'quote_not_found',
    );
    const created = await widget('POST', '/deliveries', t.test_publishable_key, {
      quote_id: testQuote.quote_id,
      ...quoteBody(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ livemode: false, metadata: { source: 'widget' } });
    expect((await widget('GET', `/deliveries/${created.body.id}`, t.test_publishable_key)).body.livemode).toBe(false);
    stack.expectProblem(await widget('GET', `/deliveries/${created.body.id}`, t.publishable_key), 404, 'not_found');
    stack.expectProblem(
      await widget('GET', `/deliveries/${liveDelivery.id}`, t.test_publishable_key),
      404,
      'not_found',
    );
    // The secret test key sees the widget's test delivery; the live one does not.
    expect((await get(`/v1/deliveries/${created.body.id}`, test())).status).toBe(200);
    stack.expectProblem(await get(`/v1/deliveries/${created.body.id}`, live()), 404, 'not_found');
  });

  it('test helpers: 404 for a live key (even on a live delivery, whatever the body), and for a live delivery with a test key', async () => {
    for (const step of ['advance', 'stall', 'expire_payment_window']) {
      for (const id of [liveDelivery.id, testDelivery.id]) {
        const res = await post(
          `/v1/test_helpers/deliveries/${id}/${step}`,
          live(),
          step === 'advance' ? { to: 'nowhere' } : {},
        );
        stack.expectProblem(res, 404, 'not_found');
      }
      stack.expectProblem(
        await post(
          `/v1/test_helpers/deliveries/${liveAwaiting.id}/${step}`,
          test(),
          step === 'advance' ? { to: 'failed' } : {},
        ),
        404,
        'not_found',
      );
    }
    expect((await get(`/v1/deliveries/${liveAwaiting.id}`, live())).body.status).toBe('awaiting_payment');
  });

  it('Idempotency-Key: the same key under a test and a live key are two requests, never a replay across modes', async () => {
    const key = `idem-${randomUUID()}`;
    const a = await post('/v1/quotes', test(), quoteBody(), { 'idempotency-key': key });
    const b = await post('/v1/quotes', live(), quoteBody(), { 'idempotency-key': key });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data.every((q: any) => q.livemode === true)).toBe(true);
    const again = await post('/v1/quotes', test(), quoteBody(), { 'idempotency-key': key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(a.body);
  });

  it('fleet events: the simulated couriers take none from outside (404)', async () => {
    const body = JSON.stringify({
      tracking_ref: testDelivery.reference,
      event_type: 'pickup_ready',
      occurred_at: new Date().toISOString(),
    });
    const secret = 'whsec_' + Buffer.from('x'.repeat(24)).toString('base64');
    const res = await stack.request('POST', '/v1/fleet/test-manual/events', {
      body,
      headers: signFleetEvent(secret, body),
    });
    stack.expectProblem(res, 404, 'not_found');
  });

  it('every row the test requests created says livemode false; the live ones true', async () => {
    const q = async (sql: string, params: unknown[]) =>
      (await stack.pool.query<{ livemode: boolean }>(sql, params)).rows.map((r) => r.livemode);
    const tenant = [t.tenant_id];
    for (const [table, where] of [
      ['quotes', 'tenant_id = $1'],
      ['deliveries', 'tenant_id = $1'],
      ['delivery_events', 'tenant_id = $1'],
      ['webhook_endpoints', 'tenant_id = $1'],
      ['webhook_messages', 'tenant_id = $1'],
      ['webhook_attempts', 'tenant_id = $1'],
      ['idempotency_keys', 'tenant_id = $1'],
    ]) {
      const modes = await q(`SELECT DISTINCT livemode FROM ${table} WHERE ${where} ORDER BY livemode`, tenant);
      expect(modes, table).toEqual([false, true]);
    }
    // Row by row: a test delivery's events, messages and attempts are test rows.
    expect(await q('SELECT livemode FROM delivery_events WHERE delivery_id = $1', [testDelivery.id])).toEqual(
      expect.arrayContaining([false]),
    );
    expect(new Set(await q('SELECT livemode FROM delivery_events WHERE delivery_id = $1', [testDelivery.id]))).toEqual(
      new Set([false]),
    );
    expect(new Set(await q('SELECT livemode FROM webhook_messages WHERE delivery_id = $1', [testDelivery.id]))).toEqual(
      new Set([false]),
    );
    expect(new Set(await q('SELECT livemode FROM webhook_attempts WHERE endpoint_id = $1', [testEndpoint.id]))).toEqual(
      new Set([false]),
    );
    expect(new Set(await q('SELECT livemode FROM api_keys WHERE tenant_id = $1', tenant))).toEqual(
      new Set([false, true]),
    );
  });
});

describe('webhooks in test mode', () => {
  it("a test delivery's events go to the test endpoints only, signed the same way, livemode false; a live delivery's to the live ones", async () => {
    const m = await stack.tenant();
    const liveEp = (await post('/v1/webhook_endpoints', m.secret_key, { url: receiver.url('/wh-live') })).body;
    const testEp = (await post('/v1/webhook_endpoints', m.test_secret_key, { url: receiver.url('/wh-test') })).body;
    receiver.expect('/wh-live', liveEp.secret);
    receiver.expect('/wh-test', testEp.secret);
    const slug = `live-${randomUUID().slice(0, 8)}`;
    await createCourier(stack.pool, {
      name: 'Live',
      slug,
      adapter: 'rate_card',
      base_fee_aoa: 100_000,
      base_eta_minutes: 30,
    });
    await linkCouriers(stack.pool, m.tenant_id, slug);

    const d = await deliveryWith(stack, m.test_secret_key, 'test-manual', {
      options: { metadata: { order_id: 'T-1' } },
    });
    await until(stack, m.test_secret_key, d.id, (x) => x.status === 'assigned');
    for (const to of ['pickup_ready', 'in_transit', 'delivered']) {
      expect((await post(`/v1/test_helpers/deliveries/${d.id}/advance`, m.test_secret_key, { to })).status).toBe(200);
    }
    const liveD = await deliveryWith(stack, m.secret_key, slug);

    const expected = [
      'delivery.created',
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
      'delivery.in_transit',
      'delivery.delivered',
    ];
    await until(stack, m.test_secret_key, d.id, () => receiver.at('/wh-test', d.id).length >= expected.length);
    const got = receiver.at('/wh-test', d.id).map((h) => h.body);
    expect(got.map((b) => b.type).sort()).toEqual([...expected].sort());
    for (const body of got) {
      expect(body.livemode).toBe(false);
      expect(body.data.delivery).toMatchObject({ id: d.id, livemode: false });
      expect(body.data.metadata).toEqual({ order_id: 'T-1' });
    }
    expect(receiver.at('/wh-live', d.id)).toEqual([]);
    await until(stack, m.secret_key, liveD.id, () => receiver.at('/wh-live', liveD.id).length >= 1);
    expect(receiver.at('/wh-live', liveD.id)[0].body).toMatchObject({ type: 'delivery.created', livemode: true });
    expect(receiver.at('/wh-test', liveD.id)).toEqual([]);
    expect(receiver.rejected).toEqual([]);
    // The attempt logs say the same, each endpoint its own mode's.
    const attempts = (await get(`/v1/webhook_endpoints/${testEp.id}/attempts`, m.test_secret_key)).body.data;
    expect(attempts.length).toBeGreaterThanOrEqual(expected.length);
    expect(attempts.every((a: any) => a.status === 'succeeded')).toBe(true);
  });
});

describe('tracking', () => {
  it('the public tracking route takes test deliveries; the tracking page shows a "test delivery" banner on them only', async () => {
    const d = await deliveryWith(stack, test(), 'test-manual');
    const liveD = await deliveryWith(stack, live(), liveSlug);
    expect((await stack.request('GET', `/v1/deliveries/${d.id}/tracking`)).status).toBe(200);
    const page = await fetch(`${stack.url}/track/${d.id}?lang=en`).then((r) => r.text());
    expect(page).toContain('data-testmode="true"');
    expect(page).toContain('Test delivery');
    const pt = await fetch(`${stack.url}/track/${d.id}`).then((r) => r.text());
    expect(pt).toContain('Entrega de teste');
    const livePage = await fetch(`${stack.url}/track/${liveD.id}?lang=en`).then((r) => r.text());
    expect(livePage).not.toContain('data-testmode');
    expect(livePage).not.toContain('Test delivery');
    expect(types(await until(stack, test(), d.id, (x) => x.status === 'assigned'))).toContain('delivery.assigned');
  });
});
