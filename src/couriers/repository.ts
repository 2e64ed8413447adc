// Courier companies as stored (their API shapes: view.ts). The simulated test couriers (adapter `simulated`,
// migrations/1700000004100_simulated-couriers.sql) are rows too: every tenant's test keys get them without linking, and
// live keys never see them.
import type { Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';

export interface RateCard {
  /** Fee per started kilometre of haversine distance, centavos. */
  per_km_aoa?: number;
  /** Flat fees for a pair of cities (`"Luanda>Benguela"`) or a single city/zone when origin and destination share it. */
  zone_fees_aoa?: Record<string, number>;
  /** Fee added per started kilogram above `per_kg_threshold_grams`, centavos. */
  per_kg_aoa?: number;
  per_kg_threshold_grams?: number;
  /** ETA minutes added per km. */
  eta_minutes_per_km?: number;
  /** A return to sender costs this percentage of the quote for the swapped route (absent: 100). */
  return_fee_pct?: number;
}

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
  adapter: 'rate_card' | 'http' | 'simulated';
  endpoint: string | null;
  timeout_ms: number;
  rate_card: RateCard;
  fleet_secret: string;
  /** The secret a rotation replaced, still valid until `previous_fleet_secret_expires_at` (24 h after it). */
  previous_fleet_secret: string | null;
  previous_fleet_secret_expires_at: Date | null;
  active: boolean;
}

/** A company's columns, of `courier_companies c`. */
export const COLUMNS = `c.id, c.name, c.slug, c.logo_url, c.base_fee_aoa, c.base_eta_minutes, c.active_drivers, c.service_zones,
  c.operating_hours, c.capabilities, c.adapter, c.endpoint, c.timeout_ms, c.rate_card, c.fleet_secret,
  c.previous_fleet_secret, c.previous_fleet_secret_expires_at, c.active`;

/**
 * The active companies a key may quote and book: a live key the tenant's linked companies (never a simulated one),
 * a test key the simulated test couriers, linked or not (no real courier is ever asked in test mode).
 */
export async function tenantCouriers(pool: Pool, scope: Scope): Promise<CourierRow[]> {
  if (!scope.livemode) {
    const { rows } = await pool.query<CourierRow>(
      `SELECT ${COLUMNS} FROM courier_companies c WHERE c.adapter = 'simulated' AND c.active ORDER BY c.name, c.id`,
    );
    return rows;
  }
  const { rows } = await pool.query<CourierRow>(
    `SELECT ${COLUMNS} FROM courier_companies c JOIN tenant_couriers tc ON tc.courier_id = c.id
      WHERE tc.tenant_id = $1 AND c.active AND c.adapter <> 'simulated' ORDER BY c.name, c.id`,
    [scope.tenantId],
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

/** A new company's row (src/tenants/service.ts createCourier fills in the defaults). */
export type NewCourierRow = Pick<
  CourierRow,
  | 'id'
  | 'name'
  | 'slug'
  | 'logo_url'
  | 'base_fee_aoa'
  | 'base_eta_minutes'
  | 'active_drivers'
  | 'service_zones'
  | 'operating_hours'
  | 'capabilities'
  | 'adapter'
  | 'endpoint'
  | 'timeout_ms'
  | 'rate_card'
  | 'fleet_secret'
>;

export async function insertCourier(pool: Pool, row: NewCourierRow): Promise<void> {
  await pool.query(
    `INSERT INTO courier_companies (id, name, slug, logo_url, base_fee_aoa, base_eta_minutes, active_drivers,
       service_zones, operating_hours, capabilities, adapter, endpoint, timeout_ms, rate_card, fleet_secret)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`,
    [
      row.id,
      row.name,
      row.slug,
      row.logo_url,
      row.base_fee_aoa,
      row.base_eta_minutes,
      row.active_drivers,
      row.service_zones,
      row.operating_hours,
      row.capabilities,
      row.adapter,
      row.endpoint,
      row.timeout_ms,
      row.rate_card,
      row.fleet_secret,
    ],
  );
}

/** Links one courier (by slug; null: every courier) to a tenant. Returns the slugs newly linked. Simulated test couriers are never linked: test keys have them all. */
export async function linkTenantCouriers(pool: Pool, tenantId: string, slug: string | null): Promise<string[]> {
  const { rows } = await pool.query<{ slug: string }>(
    `INSERT INTO tenant_couriers (tenant_id, courier_id)
       SELECT $1, id FROM courier_companies WHERE ($2::text IS NULL OR slug = $2) AND adapter <> 'simulated'
     ON CONFLICT DO NOTHING
     RETURNING (SELECT slug FROM courier_companies c WHERE c.id = courier_id)`,
    [tenantId, slug],
  );
  return rows.map((r) => r.slug);
}

export async function courierSlugExists(pool: Pool, slug: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM courier_companies WHERE slug = $1', [slug]);
  return Boolean(rowCount);
}

/** Every company, or those linked to `tenantId`, by slug (the admin command line's list). */
export async function listCouriers(
  pool: Pool,
  tenantId: string | null = null,
): Promise<
  { courier_id: string; slug: string; name: string; adapter: string; endpoint: string | null; active: boolean }[]
> {
  const { rows } = await pool.query<{
    courier_id: string;
    slug: string;
    name: string;
    adapter: string;
    endpoint: string | null;
    active: boolean;
  }>(
    `SELECT id AS courier_id, slug, name, adapter, endpoint, active FROM courier_companies c
      WHERE $1::uuid IS NULL OR EXISTS (SELECT 1 FROM tenant_couriers tc WHERE tc.courier_id = c.id AND tc.tenant_id = $1)
      ORDER BY slug`,
    [tenantId],
  );
  return rows;
}

/**
 * An active company linked to the tenant, or a simulated test courier (an operator's redispatch target), or null.
 * Booking checks that the company's mode is the delivery's (src/deliveries/dispatch.ts).
 */
export async function linkedActiveCourier(
  pool: Pool,
  tenantId: string,
  companyId: string,
  /** Only companies of this mode (simulated test couriers for test mode, the others for live mode); absent: either. */
  livemode?: boolean,
): Promise<{ id: string; slug: string } | null> {
  const { rows } = await pool.query<{ id: string; slug: string }>(
    `SELECT c.id, c.slug FROM courier_companies c
      WHERE c.id = $2 AND c.active
        AND (c.adapter = 'simulated' OR EXISTS (SELECT 1 FROM tenant_couriers tc WHERE tc.courier_id = c.id AND tc.tenant_id = $1))
        AND ($3::boolean IS NULL OR (c.adapter = 'simulated') = NOT $3::boolean)`,
    [tenantId, companyId, livemode ?? null],
  );
  return rows[0] ?? null;
}

/** Remembers a fleet event's webhook-id (until FLEET_RECEIPT_RETENTION_MS; the maintenance purge forgets it). */
export async function recordFleetReceipt(pool: Pool, courierId: string, webhookId: string): Promise<void> {
  await pool.query(
    'INSERT INTO fleet_webhook_receipts (courier_id, webhook_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [courierId, webhookId],
  );
}

/** How long the replaced fleet secret keeps working after `courier rotate-secret`. */
export const FLEET_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** The fleet secrets a signed event may use now: the current one, and the previous one within its grace period. */
export function validFleetSecrets(row: CourierRow, now = new Date()): string[] {
  const secrets = [row.fleet_secret];
  if (row.previous_fleet_secret && row.previous_fleet_secret_expires_at && row.previous_fleet_secret_expires_at > now) {
    secrets.push(row.previous_fleet_secret);
  }
  return secrets;
}

/**
 * Turns a company on or off (operators: `courier activate|deactivate`). An inactive company is neither quoted nor booked
 * and its fleet events are refused (403 courier_inactive); its deliveries stay as they are. Returns whether it was
 * active before, or null for an unknown id.
 */
export async function setCourierActive(
  pool: Pool,
  id: string,
  active: boolean,
): Promise<{ was_active: boolean } | null> {
  const { rows } = await pool.query<{ was_active: boolean }>(
    `UPDATE courier_companies c SET active = $2 FROM courier_companies before
      WHERE c.id = $1 AND before.id = c.id
      RETURNING before.active AS was_active`,
    [id, active],
  );
  return rows[0] ?? null;
}

/**
 * Replaces a company's fleet secret. The old one stays valid for FLEET_SECRET_GRACE_MS; rotating again within
 * that time ends the grace of the oldest secret at once (only two secrets are ever valid).
 * Returns null for an unknown slug.
 */
export async function rotateFleetSecret(
  pool: Pool,
  slug: string,
  newSecret: string,
): Promise<{ courier_id: string; slug: string; fleet_secret: string; previous_secret_expires_at: Date } | null> {
  const { rows } = await pool.query<{ id: string; previous_fleet_secret_expires_at: Date }>(
    `UPDATE courier_companies
        SET previous_fleet_secret = fleet_secret,
            previous_fleet_secret_expires_at = now() + make_interval(secs => $3::double precision / 1000),
            fleet_secret = $2
      WHERE slug = $1
      RETURNING id, previous_fleet_secret_expires_at`,
    [slug, newSecret, FLEET_SECRET_GRACE_MS],
  );
  if (!rows[0]) return null;
  return {
    courier_id: rows[0].id,
    slug,
    fleet_secret: newSecret,
    previous_secret_expires_at: rows[0].previous_fleet_secret_expires_at,
  };
}
