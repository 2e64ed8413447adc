// POST /v1/quotes and /v1/widget/quotes on the real stack, with the courier simulator as a real HTTP server.
// The rate-card arithmetic is in the unit tier: test/couriers/rate-card.unit.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuoteService } from '../../src/quotes/service.js';
import { closeCourierAgent } from '../../src/couriers/adapters/http.js';
import { RateCardAdapter } from '../../src/couriers/adapters/rate-card.js';
import type { CourierRow } from '../../src/couriers/repository.js';
import { payloadHash } from '../../src/quotes/payload.js';
import { createCourier, linkCouriers, type CourierInput } from '../../src/couriers/service.js';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { createSimulator, newFleetSecret, type CompanyConfig, type Simulator } from '../../simulator/server.js';
import { startStack, type Stack } from '../helpers/stack.js';

const luanda = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const viana = { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' };
const body = { origin: luanda, destination: viana, parcel: { weight_grams: 2500 } };

let stack: Stack;
let sim: Simulator;

beforeAll(async () => {
  [stack, sim] = await Promise.all([startStack({ quoteValiditySeconds: 900 }), createSimulator({ companies: [] })]);
});
afterAll(async () => {
  await sim?.close();
  await stack?.close();
  await closeCourierAgent();
});

const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A simulated http courier linked to the tenant. */
async function httpCourier(tenant: CreatedTenant, sim_: Partial<CompanyConfig> = {}, row: Partial<CourierInput> = {}) {
  const slug = uniq('http');
  const fleet_secret = newFleetSecret();
  sim.control.upsert({ slug, fleet_secret, pricing: { base_fee_aoa: 100_000 }, ...sim_ });
  const created = await createCourier(stack.pool, {
    name: `Courier ${slug}`,
    slug,
    adapter: 'http',
    endpoint: sim.endpoint(slug),
    fleet_secret,
    timeout_ms: 1000,
    ...row,
  });
  await linkCouriers(stack.pool, tenant.tenant_id, slug);
  return { id: created.courier_id, slug };
}

async function rateCardCourier(tenant: CreatedTenant, row: Partial<CourierInput> = {}) {
  const slug = uniq('card');
  const created = await createCourier(stack.pool, {
    name: `Card ${slug}`,
    slug,
    adapter: 'rate_card',
    base_fee_aoa: 150_000,
    base_eta_minutes: 60,
    ...row,
  });
  await linkCouriers(stack.pool, tenant.tenant_id, slug);
  return { id: created.courier_id, slug };
}

const quote = (tenant: CreatedTenant, payload: unknown = body, headers: Record<string, string> = {}) =>
  stack.request('POST', '/v1/quotes', { key: tenant.secret_key, body: payload, headers });

describe('rate-card courier with an endpoint', () => {
  it('books through the courier protocol when it has an endpoint', async () => {
    const slug = uniq('cardep');
    sim.control.upsert({ slug, fleet_secret: newFleetSecret(), booking_status: 'accepted' });
    const row = {
      slug,
      endpoint: sim.endpoint(slug),
      timeout_ms: 1000,
      rate_card: {},
      capabilities: {},
    } as unknown as CourierRow;
    const req = {
      delivery_id: randomUUID(),
      reference: 'DLV-EP1',
      origin: luanda,
      destination: viana,
      parcel: { weight_grams: 1 },
      payment_method: 'prepaid' as const,
      cash_collect_aoa: null,
      scheduled_pickup_at: null,
      callback_url: 'http://127.0.0.1:9/cb',
      idempotency_key: 'DLV-EP1.1',
    };
    const booked = await new RateCardAdapter(row).book(req);
    expect(booked.status).toBe('accepted');
    expect(sim.control.booking(slug, booked.tracking_ref)).toMatchObject({ reference: 'DLV-EP1' });
  });
});

describe('POST /v1/quotes', () => {
  it('answers one entry per company with every Quote entry field, cheapest first, each persisted', async () => {
    const t = await stack.tenant();
    const a = await httpCourier(
      t,
      { pricing: { base_fee_aoa: 300_000, base_eta_minutes: 20 } },
      { logo_url: 'https://cdn.test/a.png', require_delivery_pin: true },
    );
    const b = await httpCourier(t, { pricing: { base_fee_aoa: 120_000, base_eta_minutes: 90 } });
    const c = await rateCardCourier(t, {
      rate_card: { per_kg_aoa: 10_000, per_kg_threshold_grams: 2_000, zone_fees_aoa: { Luanda: 25_000 } },
    });

    const res = await quote(t);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.data.map((e: any) => e.company_id)).toEqual([b.id, c.id, a.id]);
    const [eb, ec, ea] = res.body.data;
    expect(ea).toEqual({
      quote_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      valid_until: expect.any(String),
      company_id: a.id,
      fee_aoa: 300_000,
      eta_minutes: 20,
      company_name: `Courier ${a.slug}`,
      company_slug: a.slug,
      company_logo_url: 'https://cdn.test/a.png',
      require_delivery_pin: true,
      livemode: true,
    });
    expect(eb).toMatchObject({
      fee_aoa: 120_000,
      eta_minutes: 90,
      company_logo_url: null,
      require_delivery_pin: false,
    });
    // 150 000 base + 25 000 zone (Luanda province) + 1 started kg above 2 kg.
    expect(ec).toMatchObject({ fee_aoa: 185_000, eta_minutes: 60 });

    const { rows } = await stack.pool.query('SELECT * FROM quotes WHERE tenant_id = $1 ORDER BY fee_aoa', [
      t.tenant_id,
    ]);
    expect(rows).toHaveLength(3);
    for (const [i, row] of rows.entries()) {
      const entry = res.body.data[i];
      expect(row).toMatchObject({
        id: entry.quote_id,
        company_id: entry.company_id,
        fee_aoa: entry.fee_aoa,
        eta_minutes: entry.eta_minutes,
        used_at: null,
        delivery_id: null,
      });
      expect(row.valid_until.toISOString()).toBe(entry.valid_until);
      expect(row.payload_hash).toBe(payloadHash(body));
      expect(row.origin).toEqual(luanda);
    }
    expect(rows.find((r) => r.company_id === a.id).upstream_ref).toMatch(/^q_/);
    expect(rows.find((r) => r.company_id === c.id).upstream_ref).toBeNull();
  });

  it('stores the normalised payload: strings trimmed, same hash as the clean request; unknown fields are refused', async () => {
    const t = await stack.tenant();
    await httpCourier(t);
    const messy = {
      origin: { ...luanda, city: '  Luanda ', coordinates: { lat: -8.8, lng: 13.2 } },
      destination: { ...viana, contact: { name: 'Ana', phone: '+244 900 000 000' } },
      parcel: { weight_grams: 2500 },
    };
    const res = await quote(t, messy);
    expect(res.status).toBe(200);
    const { rows } = await stack.pool.query(
      'SELECT origin, destination, parcel, payload_hash FROM quotes WHERE id = $1',
      [res.body.data[0].quote_id],
    );
    const clean = {
      origin: { ...luanda, coordinates: { lat: -8.8, lng: 13.2 } },
      destination: { ...viana, contact: { name: 'Ana', phone: '+244 900 000 000' } },
      parcel: { weight_grams: 2500 },
    };
    expect(rows[0]).toEqual({ ...clean, payload_hash: payloadHash(clean) });
    // A field the contract does not name, at any depth, is 422 unknown_field (one item each), and prices nothing.
    const extra = {
      origin: { ...messy.origin, coordinates: { lat: -8.8, lng: 13.2, alt: 5 }, floor: 3 },
      destination: { ...viana, contact: { name: 'Ana', email: 'a@b.c' } },
      parcel: { weight_grams: 2500, colour: 'red' },
      extra: { anything: true },
    };
    const refused = await quote(t, extra);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('validation_failed');
    expect(refused.body.errors.map((e: { pointer: string; code: string }) => `${e.code} ${e.pointer}`).sort()).toEqual(
      ['/destination/contact/email', '/extra', '/origin/coordinates/alt', '/origin/floor', '/parcel/colour'].map(
        (p) => `unknown_field ${p}`,
      ),
    );
    const count = await stack.pool.query('SELECT count(*)::int AS n FROM quotes WHERE tenant_id = $1', [t.tenant_id]);
    expect(count.rows[0].n).toBe(1);
  });

  it('leaves out a failing company (partial failure)', async () => {
    const t = await stack.tenant();
    const ok = await httpCourier(t);
    await httpCourier(t, { failure_rate: 1 });
    await httpCourier(t, { garbage: 'html' });
    const res = await quote(t);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: any) => e.company_id)).toEqual([ok.id]);
    const { rows } = await stack.pool.query('SELECT company_id FROM quotes WHERE tenant_id = $1', [t.tenant_id]);
    expect(rows.map((r) => r.company_id)).toEqual([ok.id]);
  });

  it('answers 502 upstream_unavailable when every company failed, and stores nothing', async () => {
    const t = await stack.tenant();
    await httpCourier(t, { failure_rate: 1 });
    await httpCourier(t, { garbage: 'wrong_types' });
    await httpCourier(t, {}, { endpoint: 'http://127.0.0.1:9/nowhere' });
    const res = await quote(t);
    stack.expectProblem(res, 502, 'upstream_unavailable');
    const { rowCount } = await stack.pool.query('SELECT 1 FROM quotes WHERE tenant_id = $1', [t.tenant_id]);
    expect(rowCount).toBe(0);
  });

  it('garbage answers of every kind leave the company out, never crash', async () => {
    const t = await stack.tenant();
    const ok = await httpCourier(t);
    for (const mode of ['json', 'html', 'truncated', 'wrong_types', 'empty'] as const)
      await httpCourier(t, { garbage: mode });
    const res = await quote(t);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: any) => e.company_id)).toEqual([ok.id]);
  });

  it('bounds a hanging company by its timeout and still answers with the others', async () => {
    const t = await stack.tenant();
    const fast = await httpCourier(t, { latency_ms: 50 });
    await httpCourier(t, { hang: true }, { timeout_ms: 400 });
    const started = Date.now();
    const res = await quote(t);
    const took = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: any) => e.company_id)).toEqual([fast.id]);
    // The behaviour: the company's own 400 ms timeout bounds the answer, not the 2 s default (COURIER_TIMEOUT_MS).
    // Generous on purpose: how fast it answers is for bench/quotes.ts.
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(2000);
  });

  it('waits for a slow company that answers within its timeout', async () => {
    const t = await stack.tenant();
    await httpCourier(t, { latency_ms: 10 });
    await httpCourier(t, { latency_ms: 300 }, { timeout_ms: 1000 });
    const res = await quote(t);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
  });

  it('answers 503 no_courier_configured when the tenant has no company', async () => {
    const t = await stack.tenant();
    stack.expectProblem(await quote(t), 503, 'no_courier_configured');
  });

  it('ignores inactive companies', async () => {
    const t = await stack.tenant();
    const c = await httpCourier(t);
    await stack.pool.query('UPDATE courier_companies SET active = false WHERE id = $1', [c.id]);
    stack.expectProblem(await quote(t), 503, 'no_courier_configured');
  });

  it('answers 200 with an empty data when companies are configured but none can carry', async () => {
    const t = await stack.tenant();
    await rateCardCourier(t, { service_zones: ['Benguela'] });
    await rateCardCourier(t, { max_weight_grams: 1000 });
    await rateCardCourier(t, { parcel_types: ['document'] });
    await httpCourier(t, { max_weight_grams: 2000 });
    const res = await quote(t, { ...body, parcel: { weight_grams: 2500, parcel_type: 'furniture' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it("only asks the tenant's own companies", async () => {
    const t1 = await stack.tenant();
    const t2 = await stack.tenant();
    const mine = await httpCourier(t1);
    const theirs = await httpCourier(t2);
    const shared = await rateCardCourier(t1);
    await linkCouriers(stack.pool, t2.tenant_id, shared.slug);

    const r1 = await quote(t1);
    expect(r1.body.data.map((e: any) => e.company_id).sort()).toEqual([mine.id, shared.id].sort());
    const r2 = await quote(t2);
    expect(r2.body.data.map((e: any) => e.company_id).sort()).toEqual([theirs.id, shared.id].sort());
    const { rows } = await stack.pool.query('SELECT DISTINCT tenant_id FROM quotes WHERE id = ANY($1)', [
      r2.body.data.map((e: any) => e.quote_id),
    ]);
    expect(rows).toEqual([{ tenant_id: t2.tenant_id }]);
  });

  it('an upstream valid_for_seconds shortens the validity; the default is QUOTE_VALIDITY_SECONDS (900)', async () => {
    const t = await stack.tenant();
    const short = await httpCourier(t, { valid_for_seconds: 60 });
    const long = await httpCourier(t, { valid_for_seconds: 7200 });
    const none = await httpCourier(t, { valid_for_seconds: null });
    const card = await rateCardCourier(t);
    const before = Date.now();
    const res = await quote(t);
    const validity = (id: string) =>
      (new Date(res.body.data.find((e: any) => e.company_id === id).valid_until).getTime() - before) / 1000;
    expect(validity(short.id)).toBeGreaterThan(55);
    expect(validity(short.id)).toBeLessThan(65);
    for (const id of [long.id, none.id, card.id]) {
      expect(validity(id)).toBeGreaterThan(895);
      expect(validity(id)).toBeLessThan(905);
    }
  });

  it('validates the body: 422 validation_failed with a pointer per problem', async () => {
    const t = await stack.tenant();
    await httpCourier(t);
    const missing = await quote(t, { origin: luanda, parcel: { weight_grams: 0 } });
    stack.expectProblem(missing, 422, 'validation_failed');
    const pointers = missing.body.errors.map((e: any) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/destination', '/parcel/weight_grams']));
    for (const e of missing.body.errors)
      expect(e).toEqual({ pointer: expect.any(String), code: expect.any(String), detail: expect.any(String) });

    const bad = await quote(t, {
      ...body,
      origin: { ...luanda, city: '', coordinates: { lat: 200, lng: 0 } },
      parcel: { weight_grams: 1.5 },
    });
    stack.expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors.map((e: any) => e.pointer)).toEqual(
      expect.arrayContaining(['/origin/city', '/origin/coordinates/lat', '/parcel/weight_grams']),
    );

    stack.expectProblem(await quote(t, []), 422, 'validation_failed');
    stack.expectProblem(await quote(t, { ...body, parcel: { weight_grams: '2500' } }), 422, 'validation_failed');
    stack.expectProblem(
      await stack.request('POST', '/v1/quotes', { key: t.secret_key, body: '{"origin":' }),
      400,
      'invalid_json',
    );
  });

  it('needs a secret key', async () => {
    const t = await stack.tenant();
    stack.expectProblem(await stack.request('POST', '/v1/quotes', { body }), 401, 'unauthorized');
    stack.expectProblem(
      await stack.request('POST', '/v1/quotes', {
        key: t.publishable_key,
        body,
        headers: { origin: 'http://shop.test' },
      }),
      401,
      'unauthorized',
    );
  });

  it('replays the first answer for the same Idempotency-Key and body; another body is 422 idempotency_key_reused', async () => {
    const t = await stack.tenant();
    await httpCourier(t);
    const key = randomUUID();
    const first = await quote(t, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await quote(t, body, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const { rowCount } = await stack.pool.query('SELECT 1 FROM quotes WHERE tenant_id = $1', [t.tenant_id]);
    expect(rowCount).toBe(1);

    stack.expectProblem(
      await quote(t, { ...body, parcel: { weight_grams: 9999 } }, { 'idempotency-key': key }),
      422,
      'idempotency_key_reused',
    );
    const fresh = await quote(t, body, { 'idempotency-key': randomUUID() });
    expect(fresh.body.data[0].quote_id).not.toBe(first.body.data[0].quote_id);
  });

  it('does not remember a 502, so a retry with the same key asks again', async () => {
    const t = await stack.tenant();
    const c = await httpCourier(t, { failure_rate: 1 });
    const key = randomUUID();
    stack.expectProblem(await quote(t, body, { 'idempotency-key': key }), 502, 'upstream_unavailable');
    sim.control.configure(c.slug, { failure_rate: 0 });
    expect((await quote(t, body, { 'idempotency-key': key })).status).toBe(200);
  });
});

describe('POST /v1/widget/quotes', () => {
  const widget = (
    t: CreatedTenant,
    headers: Record<string, string>,
    key = t.publishable_key,
    payload: unknown = body,
  ) => stack.request('POST', '/v1/widget/quotes', { key, body: payload, headers });

  it('quotes with a publishable key from an allowed origin, same shape as the merchant route', async () => {
    const t = await stack.tenant(['http://shop.test']);
    const c = await httpCourier(t, {}, { require_delivery_pin: true });
    const res = await widget(t, { origin: 'http://shop.test' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        company_id: c.id,
        fee_aoa: 100_000,
        require_delivery_pin: true,
        quote_id: expect.any(String),
        valid_until: expect.any(String),
      }),
    ]);
    const { rowCount } = await stack.pool.query('SELECT 1 FROM quotes WHERE id = $1 AND tenant_id = $2', [
      res.body.data[0].quote_id,
      t.tenant_id,
    ]);
    expect(rowCount).toBe(1);
  });

  it('refuses other origins, no origin and secret keys with 401', async () => {
    const t = await stack.tenant(['http://shop.test']);
    await httpCourier(t);
    stack.expectProblem(await widget(t, { origin: 'http://evil.test' }), 401, 'unauthorized');
    stack.expectProblem(await widget(t, {}), 401, 'unauthorized');
    stack.expectProblem(await widget(t, { origin: 'http://shop.test' }, t.secret_key), 401, 'unauthorized');
  });

  it('has the same 422, 502, 503 and idempotency behaviour', async () => {
    const t = await stack.tenant(['http://shop.test']);
    const origin = { origin: 'http://shop.test' };
    stack.expectProblem(await widget(t, origin), 503, 'no_courier_configured');
    const c = await httpCourier(t, { failure_rate: 1 });
    stack.expectProblem(await widget(t, origin), 502, 'upstream_unavailable');
    sim.control.configure(c.slug, { failure_rate: 0 });
    stack.expectProblem(await widget(t, origin, t.publishable_key, { origin: luanda }), 422, 'validation_failed');
    const key = { ...origin, 'idempotency-key': randomUUID() };
    const first = await widget(t, key);
    expect((await widget(t, key)).body).toEqual(first.body);
  });
});

describe('the quote service', () => {
  it('returns the entries and the outcome counts', async () => {
    const quotes = createQuoteService({ config: stack.config, pool: stack.pool });
    const t = await stack.tenant();
    const ok = await httpCourier(t);
    await httpCourier(t, { failure_rate: 1 });
    await rateCardCourier(t, { service_zones: ['Namibe'] });
    const result = await quotes.quoteAll({ tenantId: t.tenant_id, livemode: true }, body);
    expect(result.configured).toBe(3);
    expect(result.cannot_carry).toBe(1);
    expect(result.failed).toEqual([{ company_slug: expect.any(String), error: expect.stringMatching(/HTTP 503/) }]);
    expect(result.data.map((e) => e.company_id)).toEqual([ok.id]);
  });
});

describe('OpenAPI', () => {
  it('documents both quote routes with their schemas; the widget one with the publishable key', async () => {
    const doc = (await stack.request('GET', '/v1/openapi.json')).body;
    const merchant = doc.paths['/v1/quotes'].post;
    const widget = doc.paths['/v1/widget/quotes'].post;
    expect(Object.keys(merchant.responses)).toEqual(expect.arrayContaining(['200', '401', '422', '502', '503']));
    expect(widget.security).toEqual([{ publishableKey: [] }]);
    expect(widget.tags).toEqual(['widget']);
    expect(merchant.parameters.map((p: any) => p.name)).toContain('idempotency-key');
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
  });
});
