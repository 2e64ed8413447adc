// The shapes a courier company leaves the API in (src/couriers/views.ts): the merchant's Courier, and the widget's,
// which a browser reads: no fleet size, opening hours or bank account, and never the adapter's secrets.
import { describe, expect, it } from 'vitest';
import type { CourierRow } from '../../src/couriers/repository.js';
import { toCourier, toWidgetCourier } from '../../src/couriers/views.js';
import { WidgetCourier } from '../../src/couriers/routes.js';
import { Courier } from '../../src/couriers/schemas.js';

const row: CourierRow = {
  id: '33333333-3333-4333-8333-333333333333',
  name: 'Rápido',
  slug: 'rapido',
  logo_url: 'https://cdn.test/r.png',
  base_fee_aoa: 150_000,
  base_eta_minutes: 60,
  active_drivers: 12,
  service_zones: ['Luanda'],
  operating_hours: { mon: '08-18' },
  capabilities: {
    bank_transfer_enabled: true,
    bank_name: 'BAI',
    bank_account_holder: 'Rápido Lda',
    bank_iban: 'AO06004000000000000000000',
    max_weight_grams: 30_000,
    parcel_types: ['document'],
    require_delivery_pin: true,
  },
  adapter: 'http',
  endpoint: 'https://courier.test/api',
  timeout_ms: 1000,
  rate_card: {},
  fleet_secret: 'fleet-secret-value',
  previous_fleet_secret: 'old-fleet-secret',
  previous_fleet_secret_expires_at: null,
  active: true,
};

describe('courier views', () => {
  it("the merchant's Courier: the spec's fields, none of the adapter's", () => {
    const c = toCourier(row);
    expect(Courier.strict().parse(c)).toBeTruthy();
    expect(c.capabilities.bank_iban).toBe('AO06004000000000000000000');
    const text = JSON.stringify(c);
    for (const secret of ['fleet-secret', 'courier.test/api', 'rate_card', 'adapter'])
      expect(text).not.toContain(secret);
  });

  it("the widget's: no fleet size, opening hours or bank details", () => {
    const w = toWidgetCourier(row);
    expect(WidgetCourier.strict().parse(w)).toBeTruthy();
    expect(w).not.toHaveProperty('active_drivers');
    expect(w).not.toHaveProperty('operating_hours');
    expect(w.capabilities).toEqual({
      bank_transfer_enabled: true,
      max_weight_grams: 30_000,
      parcel_types: ['document'],
      require_delivery_pin: true,
    });
    expect(JSON.stringify(w)).not.toMatch(/BAI|AO06|Lda|fleet-secret/);
  });
});
