// The quote fan-out (src/quotes/service.ts) with its two repositories replaced in memory and real adapters that call
// nothing (rate cards, simulated test couriers): cheapest first, then fastest, then by name; "cannot carry" and
// failures counted apart; a company that does not answer in time left out; each entry persisted with the normal form
// and hash of the request, and a validity that an upstream may shorten, never lengthen.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CourierRow } from '../../src/couriers/repository.js';
import type { NewQuote } from '../../src/quotes/repository.js';

let couriers: Partial<CourierRow>[] = [];
const inserted: { payload: unknown; hash: string; quotes: NewQuote[] }[] = [];
const NOW = Date.parse('2030-01-01T10:00:00Z');

vi.mock('../../src/couriers/repository.js', () => ({ tenantCouriers: async () => couriers }));
vi.mock('../../src/quotes/repository.js', () => ({
  insertQuotes: async (_pool: unknown, _scope: unknown, payload: unknown, hash: string, quotes: NewQuote[]) => {
    inserted.push({ payload, hash, quotes });
    return new Map(quotes.map((q) => [q.id, new Date(NOW + q.validitySeconds * 1000)]));
  },
}));

const { createQuoteService } = await import('../../src/quotes/service.js');
const { payloadHash } = await import('../../src/quotes/payload.js');

const card = (slug: string, fee: number, eta: number, change: Partial<CourierRow> = {}): Partial<CourierRow> => ({
  id: `id-${slug}`,
  name: slug.toUpperCase(),
  slug,
  logo_url: null,
  adapter: 'rate_card',
  endpoint: null,
  timeout_ms: 1000,
  base_fee_aoa: fee,
  base_eta_minutes: eta,
  service_zones: [],
  capabilities: { require_delivery_pin: slug === 'b' } as CourierRow['capabilities'],
  rate_card: {},
  ...change,
});
const luanda = { address_line: ' Rua Rainha Ginga 10 ', city: 'Luanda', province: 'Luanda' };
const request = { origin: luanda, destination: luanda, parcel: { weight_grams: 2000 } };
const warnings: string[] = [];
const service = createQuoteService({
  pool: {} as never,
  config: { quoteValiditySeconds: 900, logLevel: 'silent' },
  log: { warn: (_obj, msg) => void warnings.push(msg) },
});
const live = { tenantId: 't1', livemode: true };

afterEach(() => {
  inserted.length = 0;
  warnings.length = 0;
});

describe('quoteAll', () => {
  it('nothing configured: no entries, configured 0, nothing stored', async () => {
    couriers = [];
    expect(await service.quoteAll(live, request)).toEqual({ data: [], configured: 0, cannot_carry: 0, failed: [] });
    expect(inserted).toEqual([]);
  });

  it('cheapest first, then fastest, then by name; every entry persisted with the normalised request and its hash', async () => {
    couriers = [card('c', 200_000, 30), card('b', 100_000, 60), card('a', 100_000, 60), card('d', 100_000, 45)];
    const result = await service.quoteAll(live, request);
    expect(result.data.map((q) => q.company_slug)).toEqual(['d', 'a', 'b', 'c']);
    expect(result).toMatchObject({ configured: 4, cannot_carry: 0, failed: [] });
    expect(result.data[0]).toMatchObject({
      fee_aoa: 100_000,
      eta_minutes: 45,
      company_id: 'id-d',
      company_name: 'D',
      livemode: true,
      require_delivery_pin: false,
      valid_until: new Date(NOW + 900_000).toISOString(),
    });
    expect(result.data.find((q) => q.company_slug === 'b')?.require_delivery_pin).toBe(true);
    expect(inserted).toHaveLength(1);
    expect(inserted[0].hash).toBe(payloadHash(request));
    expect((inserted[0].payload as typeof request).origin.address_line).toBe('Rua Rainha Ginga 10');
    expect(new Set(result.data.map((q) => q.quote_id)).size).toBe(4);
    expect(inserted[0].quotes.map((q) => q.validitySeconds)).toEqual([900, 900, 900, 900]);
  });

  it('"cannot carry" is counted, not failed; a failing company is left out, named and logged', async () => {
    couriers = [
      card('ok', 100_000, 30),
      card('small', 100_000, 30, { capabilities: { max_weight_grams: 1000 } as CourierRow['capabilities'] }),
      card('broken', 100_000, 30, { rate_card: { per_km_aoa: 'lots' } as never }),
    ];
    const result = await service.quoteAll(live, request);
    expect(result.data.map((q) => q.company_slug)).toEqual(['ok']);
    expect(result.cannot_carry).toBe(1);
    expect(result.failed).toEqual([{ company_slug: 'broken', error: 'broken: rate card is malformed' }]);
    expect(warnings).toEqual(['courier quote failed; company left out']);
  });

  it('every company failing: no entries, nothing stored, the failures listed (the API answers 502)', async () => {
    couriers = [card('broken', 1, 1, { rate_card: { per_kg_aoa: -1 } as never })];
    const result = await service.quoteAll(live, request);
    expect(result).toMatchObject({ data: [], configured: 1, failed: [{ company_slug: 'broken' }] });
    expect(inserted).toEqual([]);
  });

  it('a company that does not answer within its timeout (plus a little grace) is left out as failed', async () => {
    couriers = [
      card('fast', 100_000, 30),
      card('test-slow-quotes', 100_000, 30, { adapter: 'simulated', timeout_ms: 50 }),
    ];
    const started = Date.now();
    const result = await service.quoteAll(
      { tenantId: 't1', livemode: false },
      {
        ...request,
        parcel: { weight_grams: 1, parcel_type: 'slow_quote' },
      },
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.data.map((q) => [q.company_slug, q.livemode])).toEqual([['fast', false]]);
    expect(result.failed).toEqual([
      { company_slug: 'test-slow-quotes', error: 'test-slow-quotes: no answer within 50 ms' },
    ]);
  });
});
