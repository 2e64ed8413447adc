// The adapter for a courier company, by its `adapter` column. Every caller (quote service, quotes route,
// dispatch) goes through this, so a company behaves the same wherever it is asked, and is measured (observed.ts).
import type { CourierRow } from '../repository.js';
import { observed } from './observed.js';
import type { CourierAdapter } from './adapter.js';
import { HttpCourierAdapter } from './http.js';
import { RateCardAdapter } from './rate-card.js';
import { SimulatedCourierAdapter } from './simulated.js';

export * from './adapter.js';

export interface AdapterOptions {
  /** Overrides courier_companies.timeout_ms for every upstream call. */
  timeoutMs?: number;
}

export function adapterFor(courier: CourierRow, options: AdapterOptions = {}): CourierAdapter {
  return observed(courier.slug, adapterOf(courier, options));
}

function adapterOf(courier: CourierRow, options: AdapterOptions): CourierAdapter {
  switch (courier.adapter) {
    case 'http':
      return new HttpCourierAdapter(courier, options);
    case 'rate_card':
      return new RateCardAdapter(courier, options);
    case 'simulated':
      return new SimulatedCourierAdapter(courier);
    default:
      throw new Error(
        `Unknown courier adapter "${String((courier as { adapter: unknown }).adapter)}" for ${courier.slug}`,
      );
  }
}
