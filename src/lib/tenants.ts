// Tenants, keys and courier companies: the operations behind the admin command line and the seeds.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../db.js';
import { generateKey, generateWebhookSecret, hashKey, type KeyKind } from './keys.js';

export interface IssuedKey {
  id: string;
  key: string;
}

export async function createKey(pool: Pool, tenantId: string, kind: KeyKind, allowedOrigins: string[] = []): Promise<IssuedKey> {
  const key = generateKey(kind);
  const id = randomUUID();
  await pool.query(
    `INSERT INTO api_keys (id, tenant_id, kind, key_hash, prefix, allowed_origins) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, tenantId, kind, hashKey(key), key.slice(0, 12), allowedOrigins.map(normaliseOrigin)],
  );
  return { id, key };
}

export interface CreatedTenant {
  tenant_id: string;
  secret_key: string;
  secret_key_id: string;
  publishable_key: string;
  publishable_key_id: string;
}

export async function createTenant(pool: Pool, name: string, allowedOrigins: string[] = []): Promise<CreatedTenant> {
  const tenantId = randomUUID();
  await pool.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [tenantId, name]);
  const secret = await createKey(pool, tenantId, 'secret');
  const publishable = await createKey(pool, tenantId, 'publishable', allowedOrigins);
  return {
    tenant_id: tenantId,
    secret_key: secret.key,
    secret_key_id: secret.id,
    publishable_key: publishable.key,
    publishable_key_id: publishable.id,
  };
}

/** Revokes by key id or by the key itself. Returns the revoked key's id, or null when there is no such key. */
export async function revokeKey(pool: Pool, idOrKey: string): Promise<string | null> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrKey);
  const { rows } = await pool.query<{ id: string }>(
    isUuid
      ? 'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id'
      : 'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_hash = $1 RETURNING id',
    [isUuid ? idOrKey : hashKey(idOrKey)],
  );
  return rows[0]?.id ?? null;
}

/** `scheme://host[:port]`, lower-cased, default ports dropped. Throws on anything else. */
export function normaliseOrigin(origin: string): string {
  const url = new URL(origin);
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`"${origin}" is not an origin (expected scheme://host[:port])`);
  }
  return url.origin;
}

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
}

export interface CourierInput {
  name: string;
  slug: string;
  adapter: 'rate_card' | 'http';
  endpoint?: string | null;
  logo_url?: string | null;
  base_fee_aoa?: number | null;
  base_eta_minutes?: number | null;
  active_drivers?: number | null;
  service_zones?: string[];
  operating_hours?: Record<string, unknown> | null;
  max_weight_grams?: number | null;
  parcel_types?: string[] | null;
  require_delivery_pin?: boolean;
  bank_transfer_enabled?: boolean;
  bank_name?: string | null;
  bank_account_holder?: string | null;
  bank_iban?: string | null;
  timeout_ms?: number;
  rate_card?: RateCard;
  fleet_secret?: string;
}

export interface CreatedCourier {
  courier_id: string;
  slug: string;
  fleet_secret: string;
}

export async function createCourier(pool: Pool, input: CourierInput): Promise<CreatedCourier> {
  const id = randomUUID();
  const fleetSecret = input.fleet_secret ?? generateWebhookSecret();
  const capabilities = {
    bank_transfer_enabled: input.bank_transfer_enabled ?? false,
    bank_name: input.bank_name ?? null,
    bank_account_holder: input.bank_account_holder ?? null,
    bank_iban: input.bank_iban ?? null,
    max_weight_grams: input.max_weight_grams ?? null,
    parcel_types: input.parcel_types ?? null,
    require_delivery_pin: input.require_delivery_pin ?? false,
  };
  await pool.query(
    `INSERT INTO courier_companies (id, name, slug, logo_url, base_fee_aoa, base_eta_minutes, active_drivers,
       service_zones, operating_hours, capabilities, adapter, endpoint, timeout_ms, rate_card, fleet_secret)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`,
    [
      id, input.name, input.slug, input.logo_url ?? null, input.base_fee_aoa ?? null, input.base_eta_minutes ?? null,
      input.active_drivers ?? null, input.service_zones ?? [], input.operating_hours ?? null, capabilities,
      input.adapter, input.endpoint ?? null, input.timeout_ms ?? 2000, input.rate_card ?? {}, fleetSecret,
    ],
  );
  return { courier_id: id, slug: input.slug, fleet_secret: fleetSecret };
}

/** Links one courier (by slug) or every courier to a tenant. Returns the linked slugs. */
export async function linkCouriers(pool: Pool, tenantId: string, slug: string | 'all'): Promise<string[]> {
  const { rows } = await pool.query<{ slug: string }>(
    `INSERT INTO tenant_couriers (tenant_id, courier_id)
       SELECT $1, id FROM courier_companies WHERE ($2::text IS NULL OR slug = $2)
     ON CONFLICT DO NOTHING
     RETURNING (SELECT slug FROM courier_companies c WHERE c.id = courier_id)`,
    [tenantId, slug === 'all' ? null : slug],
  );
  return rows.map((r) => r.slug);
}
