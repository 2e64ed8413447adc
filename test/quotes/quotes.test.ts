// POST /v1/quotes and /v1/widget/quotes on the real stack, with the courier simulator as a real HTTP server,
// plus unit tests of the rate-card arithmetic on known cases.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { closeCourierAgent } from '../../src/couriers/adapters/http.js';
import {
  haversineKm,
  priceFromRateCard,
  RateCardAdapter,
  type PricingInput,
} from '../../src/couriers/adapters/rate-card.js';
import type { CourierRow } from '../../src/couriers/repository.js';
import { payloadHash } from '../../src/quotes/payload.js';
import { type CreatedTenant } from '../../src/tenants/service.js';
import { createCourier, linkCouriers, type CourierInput } from '../../src/couriers/service.js';
import { createSimulator, newFleetSecret, type CompanyConfig, type Simulator } from '../../simulator/server.js';
import { startStack, type Stack } from '../helpers/stack.js';

const luanda = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const viana = { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' };
const benguela = { address_line: 'Avenida Norton de Matos 5', city: 'Benguela', province: 'Benguela' };
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

describe('rate-card arithmetic', () => {
  const card = (over: Partial<PricingInput> = {}, rate: PricingInput['rate_card'] = {}): PricingInput => ({
    base_fee_aoa: 100_000,
    base_eta_minutes: 30,
    rate_card: rate,
    ...over,
  });
  const at = (lat: number, lng: number, city = 'Luanda', province = 'Luanda') => ({
    address_line: 'x',
    city,
    province,
    coordinates: { lat, lng },
  });

  it('haversine on known distances', () => {
    expect(haversineKm({ lat: 0, lng: 0 }, { lat: 1, lng: 0 })).toBeCloseTo(111.195, 2);
    expect(haversineKm({ lat: 0, lng: 0 }, { lat: 0, lng: 0.1 })).toBeCloseTo(11.1195, 3);
    // Luanda - Benguela, about 400 km as the crow flies.
    expect(haversineKm({ lat: -8.8383, lng: 13.2344 }, { lat: -12.5763, lng: 13.4055 })).toBeCloseTo(416, -1);
  });

  it('charges every started km over the haversine distance, and the ETA per km rounded up', () => {
    const p = priceFromRateCard(card({}, { per_km_aoa: 10_000, eta_minutes_per_km: 1.5 }), {
      origin: at(0, 0),
      destination: at(0, 0.1),
      parcel: { weight_grams: 500 },
    });
    // 11.12 km -> 12 started km; ETA 30 + ceil(1.5 x 11.12 = 16.68) = 47.
    expect(p).toMatchObject({
      ok: true,
      fee_aoa: 100_000 + 12 * 10_000,
      eta_minutes: 47,
      breakdown: { base: 100_000, distance: 120_000, weight: 0 },
    });
    const same = priceFromRateCard(card({}, { per_km_aoa: 10_000 }), {
      origin: at(-8.8, 13.2),
      destination: at(-8.8, 13.2),
      parcel: { weight_grams: 500 },
    });
    expect(same).toMatchObject({ ok: true, fee_aoa: 100_000, eta_minutes: 30 });
    const exactly = priceFromRateCard(card({}, { per_km_aoa: 1_000 }), {
      origin: at(0, 0),
      destination: at(1, 0),
      parcel: { weight_grams: 1 },
    });
    expect(exactly).toMatchObject({ fee_aoa: 100_000 + 112 * 1_000 }); // 111.195 km -> 112
  });

  it('charges every started kg above the threshold', () => {
    const price = (grams: number) => {
      const p = priceFromRateCard(card({}, { per_kg_aoa: 5_000, per_kg_threshold_grams: 2_000 }), {
        origin: luanda,
        destination: luanda,
        parcel: { weight_grams: grams },
      });
      return p.ok ? p.fee_aoa : null;
    };
    expect(price(1)).toBe(100_000);
    expect(price(2_000)).toBe(100_000);
    expect(price(2_001)).toBe(105_000);
    expect(price(3_000)).toBe(105_000);
    expect(price(3_001)).toBe(110_000);
    expect(price(12_000)).toBe(150_000);
    // No threshold: from the first gram.
    const noThreshold = priceFromRateCard(card({}, { per_kg_aoa: 5_000 }), {
      origin: luanda,
      destination: luanda,
      parcel: { weight_grams: 2_500 },
    });
    expect(noThreshold).toMatchObject({ fee_aoa: 115_000 });
  });

  it('uses the zone table without coordinates: city pair, single city, province, case- and accent-insensitive', () => {
    const zones = { 'Luanda>Benguela': 600_000, Luanda: 50_000, Huíla: 30_000 };
    const fee = (origin: typeof luanda, destination: typeof luanda) => {
      const p = priceFromRateCard(card({}, { zone_fees_aoa: zones, per_km_aoa: 99_999 }), {
        origin,
        destination,
        parcel: { weight_grams: 100 },
      });
      return p.ok ? p.fee_aoa : null;
    };
    expect(fee(luanda, benguela)).toBe(700_000);
    expect(fee(benguela, luanda)).toBe(100_000); // no "Benguela>Luanda" entry: no distance fee
    expect(fee(luanda, { ...luanda, city: 'LUANDA ' })).toBe(150_000);
    expect(fee(luanda, viana)).toBe(150_000); // Luanda>Viana unknown, same province Luanda
    const lubango = { address_line: 'x', city: 'Lubango', province: 'Huila' };
    expect(fee(lubango, lubango)).toBe(130_000);
    // Coordinates on one side only: the zone table.
    expect(fee({ ...luanda, coordinates: { lat: 0, lng: 0 } } as never, benguela)).toBe(700_000);
  });

  it('returns "cannot carry" for zones, weight and parcel type; empty zones serve everywhere', () => {
    const req = { origin: luanda, destination: benguela, parcel: { weight_grams: 5_000 } };
    expect(priceFromRateCard(card({ service_zones: ['Luanda'] }), req)).toEqual({ ok: false, reason: 'zone' });
    expect(priceFromRateCard(card({ service_zones: ['luanda', 'BENGUELA'] }), req).ok).toBe(true);
    expect(priceFromRateCard(card({ service_zones: [] }), req).ok).toBe(true);
    expect(priceFromRateCard(card({ service_zones: ['Luanda'] }), { ...req, destination: viana }).ok).toBe(true); // by province
    expect(priceFromRateCard(card({ max_weight_grams: 4_999 }), req)).toEqual({ ok: false, reason: 'weight' });
    expect(priceFromRateCard(card({ max_weight_grams: 5_000 }), req).ok).toBe(true);
    expect(
      priceFromRateCard(card({ parcel_types: ['document'] }), {
        ...req,
        parcel: { weight_grams: 1, parcel_type: 'fridge' },
      }),
    ).toEqual({
      ok: false,
      reason: 'parcel_type',
    });
    expect(
      priceFromRateCard(card({ parcel_types: ['document'] }), {
        ...req,
        parcel: { weight_grams: 1, parcel_type: 'Document' },
      }).ok,
    ).toBe(true);
    expect(priceFromRateCard(card({ parcel_types: ['document'] }), { ...req, parcel: { weight_grams: 1 } }).ok).toBe(
      true,
    );
  });

  it('always yields integer centavos and minutes', () => {
    for (let i = 0; i < 200; i++) {
      const p = priceFromRateCard(
        card({}, { per_km_aoa: 7_777, per_kg_aoa: 333, per_kg_threshold_grams: 1_234, eta_minutes_per_km: 0.37 }),
        {
          origin: at(-8 - Math.random() * 5, 12 + Math.random() * 5),
          destination: at(-8 - Math.random() * 5, 12 + Math.random() * 5),
          parcel: { weight_grams: 1 + Math.floor(Math.random() * 50_000) },
        },
      );
      expect(p.ok && Number.isInteger(p.fee_aoa) && Number.isInteger(p.eta_minutes)).toBe(true);
    }
  });

  it('books "by fleet" without an endpoint', async () => {
    const row = { slug: 'x', endpoint: null, rate_card: {}, capabilities: {} } as unknown as CourierRow;
    const a = new RateCardAdapter(row);
    const req = {
      delivery_id: randomUUID(),
      reference: 'DLV-ABC123',
      origin: luanda,
      destination: viana,
      parcel: { weight_grams: 1 },
      payment_method: 'prepaid' as const,
      cash_collect_aoa: null,
      scheduled_pickup_at: null,
      callback_url: 'http://x',
      idempotency_key: 'DLV-ABC123.1',
    };
    expect(await a.book(req)).toEqual({ tracking_ref: 'DLV-ABC123', status: 'pending' });
    expect(await a.cancel('DLV-ABC123')).toBe('cancelled');
  });

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

describe('the quote activity', () => {
  it('is registered with the worker and returns the entries and the outcome counts', async () => {
    const activities = createActivities({ config: stack.config, pool: stack.pool });
    expect(typeof activities.quoteAll).toBe('function');
    const t = await stack.tenant();
    const ok = await httpCourier(t);
    await httpCourier(t, { failure_rate: 1 });
    await rateCardCourier(t, { service_zones: ['Namibe'] });
    const result = await activities.quoteAll({ tenantId: t.tenant_id, livemode: true }, body);
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
