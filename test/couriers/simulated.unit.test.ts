// The built-in test couriers of test mode (src/couriers/adapters/simulated.ts, docs/test-mode.md), decided by slug:
// how each answers a booking, the fleet events it sends by itself, and test-slow-quotes' parcel type and delay. And
// the RateCardAdapter's guards: a malformed card or an absurd price is the courier being unavailable, not a quote.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { CourierRejectedError, CourierUnavailableError } from '../../src/couriers/adapters/adapter.js';
import { RateCardAdapter } from '../../src/couriers/adapters/rate-card.js';
import {
  SLOW_QUOTE_MS,
  SLOW_QUOTE_PARCEL_TYPE,
  SimulatedCourierAdapter,
  simulatedMoves,
  simulatedTrackingRef,
} from '../../src/couriers/adapters/simulated.js';
import type { CourierRow } from '../../src/couriers/repository.js';
import { FLEET_TRANSITIONS } from '../../shared/deliveries/state-table.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';

const luanda = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const courier = (slug: string, change: Partial<CourierRow> = {}) =>
  ({
    slug,
    name: slug,
    endpoint: null,
    base_fee_aoa: 100_000,
    base_eta_minutes: 30,
    service_zones: [],
    capabilities: { max_weight_grams: null, parcel_types: null },
    rate_card: {},
    ...change,
  }) as unknown as CourierRow;
const booking = {
  delivery_id: '0b6f4c1e-7a6e-4c31-9d2a-2f1c1f0e9a11',
  reference: 'DLV-ABC123',
  origin: luanda,
  destination: luanda,
  parcel: { weight_grams: 1 },
  payment_method: 'prepaid' as const,
  cash_collect_aoa: null,
  scheduled_pickup_at: null,
  callback_url: 'http://x',
  idempotency_key: 'x.1',
};
const quoteOf = (parcel_type?: string) => ({
  origin: luanda,
  destination: luanda,
  parcel: { weight_grams: 1, ...(parcel_type ? { parcel_type } : {}) },
});

afterEach(() => vi.useRealTimers());

describe('the simulated test couriers', () => {
  it('booking: accepted, pending (never assigns) or rejected (422), with the same job reference on every retry', async () => {
    for (const slug of ['test-auto', 'test-manual', 'test-pin', 'test-slow-quotes', 'unknown-by-hand'])
      expect(await new SimulatedCourierAdapter(courier(slug)).book(booking), slug).toEqual({
        tracking_ref: 'TEST-DLV-ABC123',
        status: 'accepted',
      });
    expect((await new SimulatedCourierAdapter(courier('test-never-assigns')).book(booking)).status).toBe('pending');
    const rejected = new SimulatedCourierAdapter(courier('test-rejects')).book(booking);
    await expect(rejected).rejects.toBeInstanceOf(CourierRejectedError);
    await expect(rejected).rejects.toMatchObject({ status: 422, slug: 'test-rejects' });
    expect(simulatedTrackingRef('DLV-1')).toBe('TEST-DLV-1');
    expect(await new SimulatedCourierAdapter(courier('test-auto')).cancel()).toBe('cancelled');
  });

  it('only test-auto moves by itself, and its moves are a path the lifecycle allows from assigned to delivered', () => {
    for (const slug of ['test-manual', 'test-pin', 'test-never-assigns', 'test-rejects', 'test-slow-quotes', 'x'])
      expect(simulatedMoves(slug), slug).toEqual([]);
    const moves = simulatedMoves('test-auto');
    expect(moves.at(-1)).toBe('delivered');
    let status: Status = 'assigned';
    for (const move of moves) {
      expect(FLEET_TRANSITIONS[move].from, `${move} from ${status}`).toContain(status);
      status = FLEET_TRANSITIONS[move].to;
    }
    expect(status).toBe('delivered');
    simulatedMoves('test-auto').pop(); // a copy: the behaviour itself is not changed
    expect(simulatedMoves('test-auto')).toEqual(moves);
    // The documented "within a minute": the default step times the number of steps.
    expect(loadConfig({}).simulatedCourierStepMs * moves.length).toBeLessThan(60_000);
  });

  it('prices from its rate card; test-slow-quotes quotes only its parcel type, after SLOW_QUOTE_MS', async () => {
    expect(await new SimulatedCourierAdapter(courier('test-auto')).quote(quoteOf())).toEqual({
      fee_aoa: 100_000,
      eta_minutes: 30,
      upstream_ref: null,
    });
    const slow = new SimulatedCourierAdapter(courier('test-slow-quotes'));
    expect(await slow.quote(quoteOf())).toBeNull();
    vi.useFakeTimers();
    let answered = false;
    const pending = slow.quote(quoteOf(SLOW_QUOTE_PARCEL_TYPE)).then((q) => ((answered = true), q));
    await vi.advanceTimersByTimeAsync(SLOW_QUOTE_MS - 1);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject({ fee_aoa: 100_000 });
  });
});

describe('RateCardAdapter guards', () => {
  it('a malformed rate card or a price beyond safe integers is CourierUnavailableError; a card that cannot carry is null', async () => {
    const malformed = new RateCardAdapter(courier('c1', { rate_card: { per_km_aoa: 'lots' } as never }));
    await expect(malformed.quote(quoteOf())).rejects.toBeInstanceOf(CourierUnavailableError);
    const absurd = new RateCardAdapter(courier('c2', { base_fee_aoa: Number.MAX_SAFE_INTEGER + 10 }));
    await expect(absurd.quote(quoteOf())).rejects.toBeInstanceOf(CourierUnavailableError);
    const heavy = new RateCardAdapter(courier('c3', { capabilities: { max_weight_grams: 0 } as never }));
    expect(await heavy.quote({ ...quoteOf(), parcel: { weight_grams: 5 } })).toBeNull();
  });
});
