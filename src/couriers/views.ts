// The shapes courier companies leave the API in: the spec's Courier resource (merchant) and the widget's trimmed one.
import type { CourierRow } from './repository.js';

/** The Courier resource of the spec. */
export function toCourier(row: CourierRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    logo_url: row.logo_url,
    base_fee_aoa: row.base_fee_aoa,
    base_eta_minutes: row.base_eta_minutes,
    active_drivers: row.active_drivers,
    service_zones: row.service_zones,
    operating_hours: row.operating_hours,
    capabilities: row.capabilities,
  };
}

/** What a browser may see: no fleet size, opening hours or bank account details. */
export function toWidgetCourier(row: CourierRow) {
  const { active_drivers: _drivers, operating_hours: _hours, capabilities, ...courier } = toCourier(row);
  const { bank_name: _bank, bank_account_holder: _holder, bank_iban: _iban, ...widgetCapabilities } = capabilities;
  return { ...courier, capabilities: widgetCapabilities };
}
