// The request schemas of deliveries (src/deliveries/schemas.ts) and the shared ones (src/http/schemas.ts), parsed with zod
// alone: strict objects, money as integer AOA centavos, dates within 1970..9999 UTC, cash only with cod, the status
// filter of the list. How a failure becomes a field error code is in test/http/validation.unit.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CreateDeliveryBody, ListQuery, WidgetCreateDeliveryBody } from '../../src/deliveries/schemas.js';
import { Address, Parcel } from '../../src/couriers/schemas.js';
import { clampDate, DateTimeInput, EARLIEST_DATE_MS, LATEST_DATE_MS, PaginationQuery } from '../../src/http/schemas.js';

const origin = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const destination = { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' };
const body = (change: Record<string, unknown> = {}) => ({
  quote_id: randomUUID(),
  origin,
  destination,
  parcel: { weight_grams: 2500 },
  ...change,
});

/** The issues of a failed parse as `path code` lines (`code` our params.code when a refinement names one). */
function issues(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((i) => {
    const own = (i as { params?: { code?: string } }).params?.code;
    return `${i.path.join('.')} ${own ?? i.code}`;
  });
}

describe('CreateDeliveryBody', () => {
  it('accepts a minimal body and defaults payment_method to prepaid', () => {
    const parsed = CreateDeliveryBody.parse(body());
    expect(parsed.payment_method).toBe('prepaid');
    expect(parsed.cash_collect_aoa).toBeUndefined();
  });

  it('is strict at every level: an unknown field is an unrecognized key, never dropped', () => {
    expect(issues(CreateDeliveryBody, body({ payment_methd: 'cod' }))).toEqual([' unrecognized_keys']);
    expect(issues(CreateDeliveryBody, body({ origin: { ...origin, floor: 3 } }))).toEqual(['origin unrecognized_keys']);
    expect(issues(CreateDeliveryBody, body({ parcel: { weight_grams: 1, colour: 'red' } }))).toEqual([
      'parcel unrecognized_keys',
    ]);
    expect(issues(CreateDeliveryBody, body({ options: { metadata: {}, notify: true } }))).toEqual([
      'options unrecognized_keys',
    ]);
  });

  it('cash_collect_aoa: required with cod, refused with any other method (null is fine), integer centavos', () => {
    expect(issues(CreateDeliveryBody, body({ payment_method: 'cod' }))).toEqual(['cash_collect_aoa required']);
    expect(issues(CreateDeliveryBody, body({ payment_method: 'cod', cash_collect_aoa: null }))).toEqual([
      'cash_collect_aoa required',
    ]);
    expect(CreateDeliveryBody.parse(body({ payment_method: 'cod', cash_collect_aoa: 500_000 })).cash_collect_aoa).toBe(
      500_000,
    );
    expect(issues(CreateDeliveryBody, body({ payment_method: 'prepaid', cash_collect_aoa: 1 }))).toEqual([
      'cash_collect_aoa not_allowed',
    ]);
    expect(issues(CreateDeliveryBody, body({ payment_method: 'bank_transfer', cash_collect_aoa: null }))).toEqual([]);
    expect(issues(CreateDeliveryBody, body({ payment_method: 'cod', cash_collect_aoa: 10.5 }))).toEqual([
      'cash_collect_aoa invalid_type',
    ]);
    expect(issues(CreateDeliveryBody, body({ payment_method: 'cod', cash_collect_aoa: -1 }))).toEqual([
      'cash_collect_aoa too_small',
    ]);
    expect(issues(CreateDeliveryBody, body({ payment_method: 'cod', cash_collect_aoa: 1e14 + 1 }))).toEqual([
      'cash_collect_aoa too_big',
    ]);
  });

  it('the widget body checks cash only against the method: its key decides whether cod needs an amount', () => {
    expect(issues(WidgetCreateDeliveryBody, body({ payment_method: 'cod' }))).toEqual([]);
    expect(issues(WidgetCreateDeliveryBody, body({ payment_method: 'prepaid', cash_collect_aoa: 5 }))).toEqual([
      'cash_collect_aoa not_allowed',
    ]);
  });

  it('scheduled times: ISO 8601 with an offset, within 1970..9999 UTC, delivery not before pickup', () => {
    expect(issues(CreateDeliveryBody, body({ scheduled_pickup_at: '2030-01-01T10:00:00+01:00' }))).toEqual([]);
    expect(issues(CreateDeliveryBody, body({ scheduled_pickup_at: '2030-01-01T10:00:00' }))).toEqual([
      'scheduled_pickup_at invalid_format',
    ]);
    expect(issues(CreateDeliveryBody, body({ scheduled_pickup_at: 'tomorrow' }))).toEqual([
      'scheduled_pickup_at invalid_format',
    ]);
    expect(
      issues(
        CreateDeliveryBody,
        body({ scheduled_pickup_at: '2030-01-02T10:00:00Z', scheduled_delivery_at: '2030-01-01T10:00:00Z' }),
      ),
    ).toEqual(['scheduled_delivery_at custom']);
    expect(
      issues(
        CreateDeliveryBody,
        body({ scheduled_pickup_at: '2030-01-01T10:00:00Z', scheduled_delivery_at: '2030-01-01T10:00:00Z' }),
      ),
    ).toEqual([]);
  });

  it('metadata: at most 50 keys, names up to 40 characters, 8 KB of JSON', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(issues(CreateDeliveryBody, body({ options: { metadata: keys(50) } }))).toEqual([]);
    expect(issues(CreateDeliveryBody, body({ options: { metadata: keys(51) } }))).toEqual([
      'options.metadata too_large',
    ]);
    expect(issues(CreateDeliveryBody, body({ options: { metadata: { big: 'x'.repeat(8200) } } }))).toEqual([
      'options.metadata too_large',
    ]);
    expect(issues(CreateDeliveryBody, body({ options: { metadata: { ['k'.repeat(41)]: 1 } } }))[0]).toMatch(
      /^options\.metadata/,
    );
  });

  it('quote_id is at most 64 characters and company_id a uuid', () => {
    expect(issues(CreateDeliveryBody, body({ quote_id: 'q'.repeat(65) }))).toEqual(['quote_id too_big']);
    expect(issues(CreateDeliveryBody, body({ company_id: 'acme' }))).toEqual(['company_id invalid_format']);
  });
});

describe('the shared schemas', () => {
  it('DateTimeInput: the first and the last instant are in, one millisecond outside is out_of_range', () => {
    expect(DateTimeInput.safeParse('1970-01-01T00:00:00Z').success).toBe(true);
    expect(DateTimeInput.safeParse('9999-12-31T23:59:59.999Z').success).toBe(true);
    expect(issues(DateTimeInput, '1969-12-31T23:59:59.999Z')).toEqual([' out_of_range']);
    // The local time is in range, its UTC instant is not: the offset counts.
    expect(issues(DateTimeInput, '1970-01-01T00:30:00+01:00')).toEqual([' out_of_range']);
    expect(issues(DateTimeInput, '9999-12-31T23:30:00-01:00')).toEqual([' out_of_range']);
    // A malformed value is reported once, as a format problem.
    expect(issues(DateTimeInput, '2030-13-01T00:00:00Z')).toEqual([' invalid_format']);
  });

  it('clampDate keeps a computed time within the range a request may name', () => {
    expect(clampDate(LATEST_DATE_MS + 60_000).getTime()).toBe(LATEST_DATE_MS);
    expect(clampDate(EARLIEST_DATE_MS - 1).getTime()).toBe(EARLIEST_DATE_MS);
    expect(clampDate(1_800_000_000_000).getTime()).toBe(1_800_000_000_000);
  });

  it('Address: trimmed text that is not blank, coordinates within the globe, strict', () => {
    expect(Address.parse({ ...origin, city: '  Luanda ' }).city).toBe('Luanda');
    expect(issues(Address, { ...origin, city: '   ' })).toEqual(['city too_small']);
    expect(issues(Address, { ...origin, coordinates: { lat: 91, lng: 0 } })).toEqual(['coordinates.lat too_big']);
    expect(issues(Address, { ...origin, coordinates: { lat: 0, lng: -181 } })).toEqual(['coordinates.lng too_small']);
    expect(issues(Address, { ...origin, contact: { name: 'Ana', email: 'a@b.c' } })).toEqual([
      'contact unrecognized_keys',
    ]);
    expect(issues(Address, { city: 'Luanda', province: 'Luanda' })).toEqual(['address_line invalid_type']);
  });

  it('Parcel: whole grams 1..1,000,000, declared value in integer centavos, whole centimetres', () => {
    expect(issues(Parcel, { weight_grams: 1 })).toEqual([]);
    expect(issues(Parcel, { weight_grams: 1_000_000 })).toEqual([]);
    expect(issues(Parcel, { weight_grams: 0 })).toEqual(['weight_grams too_small']);
    expect(issues(Parcel, { weight_grams: 1_000_001 })).toEqual(['weight_grams too_big']);
    expect(issues(Parcel, { weight_grams: 2.5 })).toEqual(['weight_grams invalid_type']);
    expect(issues(Parcel, { weight_grams: '2500' })).toEqual(['weight_grams invalid_type']);
    expect(issues(Parcel, { weight_grams: 1, declared_value_aoa: 99.99 })).toEqual(['declared_value_aoa invalid_type']);
    expect(issues(Parcel, { weight_grams: 1, declared_value_aoa: -1 })).toEqual(['declared_value_aoa too_small']);
    expect(issues(Parcel, { weight_grams: 1, length_cm: 1001 })).toEqual(['length_cm too_big']);
  });

  it('PaginationQuery: strings from the query string, limit clamped to 100, offset bounded', () => {
    expect(PaginationQuery.parse({})).toEqual({ limit: 50, offset: 0 });
    expect(PaginationQuery.parse({ limit: '500', offset: '20' })).toEqual({ limit: 100, offset: 20 });
    expect(issues(PaginationQuery, { limit: '0' })).toEqual(['limit too_small']);
    expect(issues(PaginationQuery, { offset: '100001' })).toEqual(['offset too_big']);
    expect(issues(PaginationQuery, { page: '2' })).toEqual([' unrecognized_keys']);
  });
});

describe('ListQuery', () => {
  it('status: one or a comma-separated list of known statuses, spaces allowed', () => {
    expect(ListQuery.parse({ status: 'pending' }).status).toEqual(['pending']);
    expect(ListQuery.parse({ status: 'pending, delivered' }).status).toEqual(['pending', 'delivered']);
    expect(ListQuery.parse({}).status).toBeUndefined();
    expect(issues(ListQuery, { status: 'pending,lost' })).toEqual(['status invalid_enum']);
  });

  it('sort defaults to the newest first; dates are date-time inputs with their range', () => {
    expect(ListQuery.parse({}).sort).toBe('inserted_at_desc');
    expect(issues(ListQuery, { sort: 'fee' })).toEqual(['sort invalid_value']);
    expect(issues(ListQuery, { inserted_at_gte: '0001-01-01T00:00:00Z' })).toEqual(['inserted_at_gte out_of_range']);
    expect(issues(ListQuery, { search: 's'.repeat(201) })).toEqual(['search too_big']);
  });
});
