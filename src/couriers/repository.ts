// Courier companies as stored, and their public (spec) shape.
import type { Pool } from '../db.js';
import type { RateCard } from '../lib/tenants.js';

export interface Capabilities {
  bank_transfer_enabled: boolean;
  bank_name: string | null;
  bank_account_holder: string | null;
  bank_iban: string | null;
  max_weight_grams: number | null;
  parcel_types: string[] | null;
  require_delivery_pin: boolean;
}

export interface CourierRow {
  id: string;
  name: string;
  slug: string;
  logo_url: string | null;
  base_fee_aoa: number | null;
  base_eta_minutes: number | null;
  active_drivers: number | null;
  service_zones: string[];
  operating_hours: Record<string, unknown> | null;
  capabilities: Capabilities;
  adapter: 'rate_card' | 'http';
  endpoint: string | null;
  timeout_ms: number;
  rate_card: RateCard;
  fleet_secret: string;
  active: boolean;
}

const COLUMNS = `c.id, c.name, c.slug, c.logo_url, c.base_fee_aoa, c.base_eta_minutes, c.active_drivers, c.service_zones,
  c.operating_hours, c.capabilities, c.adapter, c.endpoint, c.timeout_ms, c.rate_card, c.fleet_secret, c.active`;

export async function tenantCouriers(pool: Pool, tenantId: string): Promise<CourierRow[]> {
  const { rows } = await pool.query<CourierRow>(
    `SELECT ${COLUMNS} FROM courier_companies c JOIN tenant_couriers tc ON tc.courier_id = c.id
      WHERE tc.tenant_id = $1 AND c.active ORDER BY c.name, c.id`,
    [tenantId],
  );
  return rows;
}

export async function courierById(pool: Pool, id: string): Promise<CourierRow | null> {
  const { rows } = await pool.query<CourierRow>(`SELECT ${COLUMNS} FROM courier_companies c WHERE c.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function courierBySlug(pool: Pool, slug: string): Promise<CourierRow | null> {
  const { rows } = await pool.query<CourierRow>(`SELECT ${COLUMNS} FROM courier_companies c WHERE c.slug = $1`, [slug]);
  return rows[0] ?? null;
}

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
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    logo_url: row.logo_url,
    base_fee_aoa: row.base_fee_aoa,
    base_eta_minutes: row.base_eta_minutes,
    service_zones: row.service_zones,
    capabilities: {
      bank_transfer_enabled: row.capabilities.bank_transfer_enabled,
      max_weight_grams: row.capabilities.max_weight_grams,
      parcel_types: row.capabilities.parcel_types,
      require_delivery_pin: row.capabilities.require_delivery_pin,
    },
  };
}
