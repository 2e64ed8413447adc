// Courier companies: registering one (the admin command line and the seeds) and linking it to tenants.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../platform/db.js';
import { insertCourier, linkTenantCouriers, linkedActiveCourier, type RateCard } from './repository.js';
import { generateWebhookSecret } from '../platform/secrets.js';

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

/**
 * Whether the tenant can book this company in this mode (live: its linked real couriers; test: the simulated ones).
 * A dispatch policy's preferred companies must be.
 */
export async function canBook(pool: Pool, tenantId: string, companyId: string, livemode: boolean): Promise<boolean> {
  return (await linkedActiveCourier(pool, tenantId, companyId, livemode)) !== null;
}

// What the fleet webhook route (src/deliveries/fleet-routes.ts) needs of a company: the company its path names, the
// secrets its signature may use, and the receipt of an event that is remembered.
export { courierBySlug, recordFleetReceipt, validFleetSecrets } from './repository.js';
