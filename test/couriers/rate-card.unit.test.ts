// The rate-card arithmetic of src/couriers/adapters/rate-card.ts on known cases: distance, weight, zones, what a
// card cannot carry, integer centavos. Pure: no database, no courier, no network.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  haversineKm,
  priceFromRateCard,
  RateCardAdapter,
  RateCardSchema,
  returnFee,
  type PricingInput,
} from '../../src/couriers/adapters/rate-card.js';
import type { CourierRow } from '../../src/couriers/repository.js';

const luanda = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const viana = { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' };
const benguela = { address_line: 'Avenida Norton de Matos 5', city: 'Benguela', province: 'Benguela' };

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
});

describe('returnFee', () => {
  it("the swapped route's quote times return_fee_pct (default 100), rounded to the centavo", () => {
    expect(returnFee(123_457, undefined)).toBe(123_457);
    expect(returnFee(123_457, {})).toBe(123_457);
    expect(returnFee(123_457, { return_fee_pct: 50 })).toBe(61_729);
    expect(returnFee(100_000, { return_fee_pct: 0 })).toBe(0);
    expect(returnFee(100_000, { return_fee_pct: 150 })).toBe(150_000);
  });

  it('the rate card accepts return_fee_pct 0-1000 as an integer only', () => {
    expect(RateCardSchema.safeParse({ return_fee_pct: 75 }).success).toBe(true);
    expect(RateCardSchema.safeParse({ return_fee_pct: -1 }).success).toBe(false);
    expect(RateCardSchema.safeParse({ return_fee_pct: 12.5 }).success).toBe(false);
  });
});
