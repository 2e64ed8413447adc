// Tenants, keys and courier companies: the operations behind the admin command line and the seeds.
// The SQL is in the repositories (src/tenants, src/keys, src/couriers).
import { randomUUID } from 'node:crypto';
import { insertCourier, linkTenantCouriers, type RateCard } from '../couriers/repository.js';
import type { Pool } from '../platform/db.js';
import { insertKey, insertKeyWithinLimit, revokeKeyRow } from '../keys/repository.js';
import { insertTenant } from './repository.js';
import { generateKey, generateWebhookSecret, hashKey, type KeyKind, type KeyMode } from '../platform/secrets.js';
import type { Scope } from '../platform/scope.js';
import { isUuid } from '../platform/uuid.js';

export interface IssuedKey {
  id: string;
  key: string;
}

/** A new key of this kind and mode (`test`: sk_test_ / pk_test_, confined to test objects). */
export async function createKey(
  pool: Pool,
  tenantId: string,
  kind: KeyKind,
  allowedOrigins: string[] = [],
  mode: KeyMode = 'live',
): Promise<IssuedKey> {
  const key = generateKey(kind, mode);
  const id = randomUUID();
  await insertKey(pool, {
    id,
    tenantId,
    kind,
    mode,
    hash: hashKey(key),
    prefix: key.slice(0, 12),
    allowedOrigins: allowedOrigins.map(normaliseOrigin),
  });
  return { id, key };
}

/**
 * A new key of the scope's tenant and mode, unless it already has `max` active keys of that mode (null then): the
 * limit is checked in the insert's transaction (src/keys/repository.ts insertKeyWithinLimit).
 */
export async function createKeyWithinLimit(
  pool: Pool,
  scope: Scope,
  kind: KeyKind,
  allowedOrigins: string[],
  max: number,
): Promise<IssuedKey | null> {
  const mode: KeyMode = scope.livemode ? 'live' : 'test';
  const key = generateKey(kind, mode);
  const id = randomUUID();
  const row = {
    id,
    tenantId: scope.tenantId,
    kind,
    mode,
    hash: hashKey(key),
    prefix: key.slice(0, 12),
    allowedOrigins: allowedOrigins.map(normaliseOrigin),
  };
  return (await insertKeyWithinLimit(pool, row, max)) ? { id, key } : null;
}

/** A new tenant's keys: the live pair (`secret_key`, `publishable_key`) and the test pair (`test_...`). */
export interface CreatedTenant {
  tenant_id: string;
  secret_key: string;
  secret_key_id: string;
  publishable_key: string;
  publishable_key_id: string;
  test_secret_key: string;
  test_secret_key_id: string;
  test_publishable_key: string;
  test_publishable_key_id: string;
}

/** A tenant with a live and a test pair of keys; both publishable keys allow `allowedOrigins`. */
export async function createTenant(pool: Pool, name: string, allowedOrigins: string[] = []): Promise<CreatedTenant> {
  const tenantId = randomUUID();
  await insertTenant(pool, tenantId, name);
  const secret = await createKey(pool, tenantId, 'secret');
  const publishable = await createKey(pool, tenantId, 'publishable', allowedOrigins);
  const testSecret = await createKey(pool, tenantId, 'secret', [], 'test');
  const testPublishable = await createKey(pool, tenantId, 'publishable', allowedOrigins, 'test');
  return {
    tenant_id: tenantId,
    secret_key: secret.key,
    secret_key_id: secret.id,
    publishable_key: publishable.key,
    publishable_key_id: publishable.id,
    test_secret_key: testSecret.key,
    test_secret_key_id: testSecret.id,
    test_publishable_key: testPublishable.key,
    test_publishable_key_id: testPublishable.id,
  };
}

/** Revokes by key id or by the key itself. Returns the revoked key's id, or null when there is no such key. */
export async function revokeKey(pool: Pool, idOrKey: string): Promise<string | null> {
  return revokeKeyRow(pool, isUuid(idOrKey) ? { id: idOrKey } : { hash: hashKey(idOrKey) });
}

/** `scheme://host[:port]`, lower-cased, default ports dropped. Throws on anything else. */
export function normaliseOrigin(origin: string): string {
  const url = new URL(origin);
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`"${origin}" is not an origin (expected scheme://host[:port])`);
  }
  return url.origin;
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
  await insertCourier(pool, {
    id,
    name: input.name,
    slug: input.slug,
    logo_url: input.logo_url ?? null,
    base_fee_aoa: input.base_fee_aoa ?? null,
    base_eta_minutes: input.base_eta_minutes ?? null,
    active_drivers: input.active_drivers ?? null,
    service_zones: input.service_zones ?? [],
    operating_hours: input.operating_hours ?? null,
    capabilities,
    adapter: input.adapter,
    endpoint: input.endpoint ?? null,
    timeout_ms: input.timeout_ms ?? 2000,
    rate_card: input.rate_card ?? {},
    fleet_secret: fleetSecret,
  });
  return { courier_id: id, slug: input.slug, fleet_secret: fleetSecret };
}

/** Links one courier (by slug) or every courier to a tenant. Returns the linked slugs. */
export async function linkCouriers(pool: Pool, tenantId: string, slug: string | 'all'): Promise<string[]> {
  return linkTenantCouriers(pool, tenantId, slug === 'all' ? null : slug);
}
