import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Simulator } from '../../simulator/server.js';
import { createDelivery } from '../../src/deliveries/create.js';
import { reconcileOnce } from '../../src/deliveries/start.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import {
  DESTINATION,
  ORIGIN,
  PARCEL,
  createDeliveryFor,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
let m: Merchant;
beforeAll(async () => {
  stack = await startStack();
  sim = await startSimulator();
  m = await merchantWith(stack, sim, [simCompany({ require_delivery_pin: true })], [], ['http://shop.test']);
});
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const post = (body: unknown, key = m.tenant.secret_key, headers: Record<string, string> = {}) =>
  stack.request('POST', '/v1/deliveries', { key, body, headers });
/**
 * Every string and number in a JSON value, as strings: a PIN leaks if one of them is the PIN. (A substring check
 * fails on a PIN that happens to be digits of a coordinate or a timestamp: -8.8147 holds 8147.)
 */
const leaves = (value: unknown): string[] =>
  value !== null && typeof value === 'object' ? Object.values(value).flatMap(leaves) : [String(value)];
const expectCode = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(code);
  expect(res.body.type).toBe(`${stack.url}/errors/${code}`);
};

describe('POST /v1/deliveries', () => {
  it('creates a delivery from a quote: 201 full Delivery, fee locked, metadata echoed, workflow started', async () => {
    const q = await quote(stack, m);
    const res = await post({
      quote_id: q.quote_id,
      ...quoteBody(),
      company_id: q.company_id,
      options: { metadata: { order_id: 'A-1' } },
    });
    expect(res.status).toBe(201);
    const d = res.body;
    expect(d).toMatchObject({
      status: 'pending',
      origin: ORIGIN,
      destination: DESTINATION,
      parcel: PARCEL,
      payment_method: 'prepaid',
      cash_collect_aoa: null,
      quoted_fee_aoa: q.fee_aoa,
      metadata: { order_id: 'A-1' },
      tracking_url: `${stack.url}/track/${d.id}`,
    });
    expect(d.reference).toMatch(/^DLV-[0-9A-Z]{10}$/);
    expect(d.delivery_pin).toMatch(/^\d{4}$/);
    expect(Date.parse(d.inserted_at)).not.toBeNaN();
    expect(Date.parse(d.sla_deadline_at)).toBeGreaterThan(Date.now());
    expect(d.events).toHaveLength(1);
    expect(d.events[0]).toMatchObject({
      event_type: 'delivery.created',
      source: 'api',
      payload: { status: 'pending' },
    });

    const { rows } = await stack.pool.query('SELECT used_at, delivery_id FROM quotes WHERE id = $1', [q.quote_id]);
    expect(rows[0].delivery_id).toBe(d.id);
    const description = await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).describe();
    expect(description.status.name).toBe('RUNNING');

    // The simulator accepts the booking at once: dispatched, then assigned.
    const assigned = await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
    expect(assigned.events.map((e: any) => e.event_type)).toEqual([
      'delivery.created',
      'delivery.dispatched',
      'delivery.assigned',
    ]);
    expect(assigned.courier.tracking_ref).toBeTruthy();
    expect(assigned.metadata).toEqual({ order_id: 'A-1' });
    // The courier never sees the PIN.
    const booking = sim.control.bookings(m.slug).find((b) => b.delivery_id === d.id)!;
    expect(leaves(booking.request)).not.toContain(d.delivery_pin);
  });

  it('quote_id_required', async () => {
    expectCode(await post({ ...quoteBody() }), 422, 'quote_id_required');
  });

  it("quote_not_found, for an unknown id and for another tenant's quote", async () => {
    expectCode(await post({ quote_id: randomUUID(), ...quoteBody() }), 422, 'quote_not_found');
    expectCode(await post({ quote_id: 'not-a-uuid', ...quoteBody() }), 422, 'quote_not_found');
    const other = await merchantWith(stack, sim, [simCompany()]);
    const theirs = await quote(stack, other);
    expectCode(await post({ quote_id: theirs.quote_id, ...quoteBody() }), 422, 'quote_not_found');
  });

  it('quote_expired', async () => {
    const q = await quote(stack, m);
    await stack.pool.query(`UPDATE quotes SET valid_until = now() - interval '1 second' WHERE id = $1`, [q.quote_id]);
    expectCode(await post({ quote_id: q.quote_id, ...quoteBody() }), 422, 'quote_expired');
  });

  it('quote_company_mismatch', async () => {
    const q = await quote(stack, m);
    expectCode(
      await post({ quote_id: q.quote_id, ...quoteBody(), company_id: randomUUID() }),
      422,
      'quote_company_mismatch',
    );
  });

  it.each([
    ['origin', { origin: { ...ORIGIN, address_line: 'Rua Outra 1' } }],
    ['destination', { destination: { ...DESTINATION, city: 'Benguela' } }],
    ['parcel', { parcel: { ...PARCEL, weight_grams: 5000 } }],
    ['missing optional parcel field', { parcel: { weight_grams: PARCEL.weight_grams } }],
  ])('quote_payload_mismatch: %s differs', async (_what, change) => {
    const q = await quote(stack, m);
    expectCode(await post({ quote_id: q.quote_id, ...quoteBody(), ...change }), 422, 'quote_payload_mismatch');
  });

  it('compares on the normalised form: key order and surrounding spaces do not matter', async () => {
    const q = await quote(stack, m);
    const { address_line, city, province, coordinates, contact } = ORIGIN;
    const reordered = { contact, coordinates, province: ` ${province} `, city, address_line };
    const res = await post({ destination: DESTINATION, parcel: PARCEL, origin: reordered, quote_id: q.quote_id });
    expect(res.status).toBe(201);
  });

  it('courier_fee_aoa_not_accepted', async () => {
    const q = await quote(stack, m);
    expectCode(
      await post({ quote_id: q.quote_id, ...quoteBody(), courier_fee_aoa: 100 }),
      422,
      'courier_fee_aoa_not_accepted',
    );
  });

  it('quote_already_used', async () => {
    const q = await quote(stack, m);
    expect((await post({ quote_id: q.quote_id, ...quoteBody() })).status).toBe(201);
    expectCode(await post({ quote_id: q.quote_id, ...quoteBody() }), 422, 'quote_already_used');
  });

  it('one quote, two concurrent creations: exactly one delivery', async () => {
    const q = await quote(stack, m);
    const results = await Promise.all([
      post({ quote_id: q.quote_id, ...quoteBody() }),
      post({ quote_id: q.quote_id, ...quoteBody() }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
  });

  it('field-level validation with pointers: cod needs cash_collect_aoa, payment_method values, date-times, types', async () => {
    const q = await quote(stack, m);
    const base = { quote_id: q.quote_id, ...quoteBody() };
    const cod = await post({ ...base, payment_method: 'cod' });
    expectCode(cod, 422, 'validation_failed');
    expect(cod.body.errors).toContainEqual(expect.objectContaining({ pointer: '/cash_collect_aoa' }));

    const method = await post({ ...base, payment_method: 'cheque' });
    expectCode(method, 422, 'validation_failed');
    expect(method.body.errors).toContainEqual(expect.objectContaining({ pointer: '/payment_method' }));

    const date = await post({ ...base, scheduled_pickup_at: 'tomorrow' });
    expect(date.body.errors).toContainEqual(expect.objectContaining({ pointer: '/scheduled_pickup_at' }));

    const weight = await post({ ...base, parcel: { ...PARCEL, weight_grams: 'heavy' } });
    expect(weight.body.errors).toContainEqual(expect.objectContaining({ pointer: '/parcel/weight_grams' }));

    const missing = await post({ quote_id: q.quote_id });
    expect(missing.body.errors.map((e: any) => e.pointer)).toEqual(
      expect.arrayContaining(['/origin', '/destination', '/parcel']),
    );

    // None of that consumed the quote.
    expect((await post({ ...base, payment_method: 'cod', cash_collect_aoa: 1_500_000 })).status).toBe(201);
  });

  it('bank_transfer starts in awaiting_payment; payment confirmation moves it to pending and on', async () => {
    const d = await createDeliveryFor(stack, m, { payment_method: 'bank_transfer' });
    expect(d.status).toBe('awaiting_payment');
    expect(d.events[0].payload).toMatchObject({ status: 'awaiting_payment' });
    const confirmed = await stack.request('POST', `/v1/deliveries/${d.id}/payment_confirmation`, {
      key: m.tenant.secret_key,
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('pending');
    const assigned = await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
    expect(assigned.events.map((e: any) => e.event_type)).toEqual([
      'delivery.created',
      'delivery.payment_confirmed',
      'delivery.dispatched',
      'delivery.assigned',
    ]);
    const again = await stack.request('POST', `/v1/deliveries/${d.id}/payment_confirmation`, {
      key: m.tenant.secret_key,
    });
    expectCode(again, 409, 'delivery_not_awaiting_payment');
  });

  it('Idempotency-Key: a repeat returns the first response; another body is 422; no second delivery', async () => {
    const q = await quote(stack, m);
    const key = randomUUID();
    const first = await post({ quote_id: q.quote_id, ...quoteBody() }, undefined, { 'idempotency-key': key });
    const second = await post({ quote_id: q.quote_id, ...quoteBody() }, undefined, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expectCode(
      await post({ quote_id: q.quote_id, ...quoteBody(), payment_method: 'cod', cash_collect_aoa: 5 }, undefined, {
        'idempotency-key': key,
      }),
      422,
      'idempotency_key_reused',
    );
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE quote_id = $1', [
      q.quote_id,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe('creation retried after a crash between commit and answer', () => {
  it('the same Idempotency-Key finds the delivery its first attempt created', async () => {
    const q = await quote(stack, m);
    const key = randomUUID();
    // The first attempt committed (as the route does) but its answer and idempotency record were lost.
    const first = await createDelivery(
      stack.pool,
      stack.config,
      { tenantId: m.tenant.tenant_id, livemode: true },
      { quote_id: q.quote_id, ...quoteBody(), payment_method: 'prepaid' },
      'api',
      `api:${key}`,
    );
    const retry = await post({ quote_id: q.quote_id, ...quoteBody() }, undefined, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.id);
    // Without the key, the used quote is refused as before.
    expectCode(await post({ quote_id: q.quote_id, ...quoteBody() }), 422, 'quote_already_used');
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE quote_id = $1', [
      q.quote_id,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe('widget deliveries', () => {
  const widget = { origin: 'http://shop.test' };
  it('creates with metadata.source = widget and reads a trimmed form with event history', async () => {
    const q = await quote(stack, m);
    const res = await stack.request('POST', '/v1/widget/deliveries', {
      key: m.tenant.publishable_key,
      headers: widget,
      body: { quote_id: q.quote_id, ...quoteBody(), options: { metadata: { cart: 'c-9' } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({ cart: 'c-9', source: 'widget' });
    const got = await stack.request('GET', `/v1/widget/deliveries/${res.body.id}`, {
      key: m.tenant.publishable_key,
      headers: widget,
    });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: res.body.id, reference: res.body.reference });
    // The metadata (and the PIN, the contacts) only with the delivery's client secret (test/deliveries/security-widget.test.ts).
    expect(got.body).not.toHaveProperty('metadata');
    const full = await stack.request(
      'GET',
      `/v1/widget/deliveries/${res.body.id}?client_secret=${res.body.client_secret}`,
      {
        key: m.tenant.publishable_key,
        headers: widget,
      },
    );
    expect(full.body).toMatchObject({ id: res.body.id, metadata: { cart: 'c-9', source: 'widget' } });
    expect(got.body.events[0]).toEqual({
      id: expect.any(String),
      event_type: 'delivery.created',
      occurred_at: expect.any(String),
    });
    for (const hidden of ['cash_collect_aoa', 'sla_deadline_at']) expect(got.body).not.toHaveProperty(hidden);
    expect(got.body.courier).not.toHaveProperty('tracking_ref');
    // The widget surface is the tenant's own, too.
    const other = await merchantWith(stack, sim, [simCompany()], [], ['http://shop.test']);
    expect(
      (
        await stack.request('GET', `/v1/widget/deliveries/${res.body.id}`, {
          key: other.tenant.publishable_key,
          headers: widget,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await stack.request('GET', `/v1/widget/deliveries/${res.body.id}`, {
          key: m.tenant.publishable_key,
          headers: { origin: 'http://evil.test' },
        })
      ).status,
    ).toBe(401);
  });
});

describe('GET one, events, tracking', () => {
  it("another tenant's id and a malformed id are 404 everywhere", async () => {
    const d = await createDeliveryFor(stack, m);
    const other = await merchantWith(stack, sim, [simCompany()]);
    for (const path of [`/v1/deliveries/${d.id}`, `/v1/deliveries/${d.id}/events`]) {
      expectCode(await stack.request('GET', path, { key: other.tenant.secret_key }), 404, 'not_found');
    }
    expectCode(
      await stack.request('DELETE', `/v1/deliveries/${d.id}`, { key: other.tenant.secret_key }),
      404,
      'not_found',
    );
    for (const path of [
      '/v1/deliveries/nope',
      '/v1/deliveries/nope/events',
      '/v1/deliveries/nope/tracking',
      `/v1/deliveries/${randomUUID()}/tracking`,
    ]) {
      expectCode(await stack.request('GET', path, { key: m.tenant.secret_key }), 404, 'not_found');
    }
  });

  it('events oldest first; tracking shows only reference, status and event types and times, without a key', async () => {
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
    const events = await stack.request('GET', `/v1/deliveries/${d.id}/events`, { key: m.tenant.secret_key });
    expect(events.status).toBe(200);
    const times = events.body.data.map((e: any) => Date.parse(e.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.body.data[0]).toMatchObject({ event_type: 'delivery.created', source: 'api' });

    const tracking = await stack.request('GET', `/v1/deliveries/${d.id}/tracking`);
    expect(tracking.status).toBe(200);
    expect(Object.keys(tracking.body).sort()).toEqual(['events', 'reference', 'status']);
    expect(tracking.body).toMatchObject({ reference: d.reference, status: 'assigned' });
    for (const e of tracking.body.events) expect(Object.keys(e).sort()).toEqual(['event_type', 'occurred_at']);
    expect(leaves(tracking.body)).not.toContain(d.delivery_pin);
  });
});

describe('GET /v1/deliveries (list)', () => {
  let lister: Merchant;
  const created: any[] = [];
  beforeAll(async () => {
    lister = await merchantWith(stack, sim, [simCompany()]);
    for (let i = 0; i < 5; i++)
      created.push(await createDeliveryFor(stack, lister, i % 2 ? { payment_method: 'bank_transfer' } : {}));
  });
  const list = (query: string, key = lister.tenant.secret_key) =>
    stack.request('GET', `/v1/deliveries${query}`, { key });

  it("lists only the tenant's deliveries, newest first, as summaries", async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => d.id)).toEqual(created.map((d) => d.id).reverse());
    expect(res.body.pagination).toEqual({ limit: 50, offset: 0, has_more: false });
    expect(res.body.data[0]).not.toHaveProperty('events');
    expect(Object.keys(res.body.data[0])).toEqual(
      expect.arrayContaining([
        'id',
        'reference',
        'status',
        'inserted_at',
        'origin',
        'destination',
        'parcel',
        'quoted_fee_aoa',
        'courier',
      ]),
    );
    const other = await list('', m.tenant.secret_key);
    expect(other.body.data.map((d: any) => d.id)).not.toContain(created[0].id);
  });

  it('sorts both ways and pages with has_more', async () => {
    const asc = await list('?sort=inserted_at_asc');
    expect(asc.body.data.map((d: any) => d.id)).toEqual(created.map((d) => d.id));
    const page1 = await list('?limit=2&offset=0');
    const page2 = await list('?limit=2&offset=2');
    const page3 = await list('?limit=2&offset=4');
    expect(page1.body.pagination).toEqual({ limit: 2, offset: 0, has_more: true });
    expect(page3.body.pagination).toEqual({ limit: 2, offset: 4, has_more: false });
    expect([...page1.body.data, ...page2.body.data, ...page3.body.data].map((d: any) => d.id)).toEqual(
      created.map((d) => d.id).reverse(),
    );
  });

  it('clamps limit above 100', async () => {
    expect((await list('?limit=500')).body.pagination.limit).toBe(100);
  });

  it('filters by one status or a comma-separated list', async () => {
    const awaiting = await list('?status=awaiting_payment');
    expect(awaiting.body.data.map((d: any) => d.id).sort()).toEqual([created[1].id, created[3].id].sort());
    const both = await list('?status=awaiting_payment,pending,assigned');
    expect(both.body.data).toHaveLength(5);
  });

  it('filters by creation time, inclusive on both ends', async () => {
    const middle = created[2].inserted_at;
    const gte = await list(`?inserted_at_gte=${encodeURIComponent(middle)}&sort=inserted_at_asc`);
    expect(gte.body.data.map((d: any) => d.id)).toEqual(created.slice(2).map((d) => d.id));
    const lte = await list(`?inserted_at_lte=${encodeURIComponent(middle)}&sort=inserted_at_asc`);
    expect(lte.body.data.map((d: any) => d.id)).toEqual(created.slice(0, 3).map((d) => d.id));
    const exact = await list(
      `?inserted_at_gte=${encodeURIComponent(middle)}&inserted_at_lte=${encodeURIComponent(middle)}`,
    );
    expect(exact.body.data.map((d: any) => d.id)).toEqual([created[2].id]);
  });

  it('searches reference, cities and address lines, case-insensitively, with LIKE characters taken literally', async () => {
    const byRef = await list(`?search=${created[0].reference.slice(4).toLowerCase()}`);
    expect(byRef.body.data.map((d: any) => d.id)).toEqual([created[0].id]);
    expect((await list('?search=deolinda')).body.data).toHaveLength(5);
    expect((await list('?search=LUANDA')).body.data).toHaveLength(5);
    expect((await list('?search=%25')).body.data).toHaveLength(0);
    expect((await list('?search=_')).body.data).toHaveLength(0);
    expect((await list(`?search=${encodeURIComponent("'; DROP TABLE deliveries; --")}`)).status).toBe(200);
  });

  it.each([
    ['status', '?status=lost'],
    ['status', '?status=pending,lost'],
    ['inserted_at_gte', '?inserted_at_gte=yesterday'],
    ['inserted_at_lte', '?inserted_at_lte=2026-13-45'],
    ['sort', '?sort=reference'],
    ['limit', '?limit=0'],
    ['limit', '?limit=abc'],
    ['offset', '?offset=-1'],
    ['offset', '?offset=100001'],
  ])('invalid %s (%s): 422 naming the parameter', async (parameter, query) => {
    const res = await list(query);
    expectCode(res, 422, 'validation_failed');
    expect(res.body.errors).toContainEqual(expect.objectContaining({ parameter }));
  });
});

describe('reconciler', () => {
  it('starts the workflow of a delivery committed without one (a crash between commit and start)', async () => {
    const q = await quote(stack, m);
    const created = await createDelivery(
      stack.pool,
      stack.config,
      { tenantId: m.tenant.tenant_id, livemode: true },
      { quote_id: q.quote_id, ...quoteBody(), payment_method: 'prepaid' },
      'api',
    );
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id));
    await expect(handle.describe()).rejects.toThrow();
    expect(await reconcileOnce(stack.temporal, stack.pool, stack.config, 0)).toBeGreaterThanOrEqual(1);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await waitForStatus(stack, m.tenant.secret_key, created.id, 'assigned');
    // Nothing left to start; a second pass changes nothing.
    const { rows } = await stack.pool.query(
      'SELECT count(*)::int AS n FROM deliveries WHERE workflow_started_at IS NULL AND tenant_id = $1',
      [m.tenant.tenant_id],
    );
    expect(rows[0].n).toBe(0);
  });
});
