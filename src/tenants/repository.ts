// Tenants (merchants) as stored. Their keys: src/keys/repository.ts; their courier companies: src/couriers/repository.ts.
import type { Pool } from '../platform/db.js';
import { DEFAULT_DISPATCH_POLICY, type DispatchPolicy } from './dispatch-policy.js';

export async function insertTenant(pool: Pool, id: string, name: string): Promise<void> {
  await pool.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [id, name]);
}

export async function tenantExists(pool: Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM tenants WHERE id = $1', [id]);
  return Boolean(rowCount);
}

/** Every tenant, oldest first. */
export async function listTenants(pool: Pool): Promise<{ tenant_id: string; name: string; created_at: Date }[]> {
  const { rows } = await pool.query<{ tenant_id: string; name: string; created_at: Date }>(
    'SELECT id AS tenant_id, name, created_at FROM tenants ORDER BY created_at',
  );
  return rows;
}

/** What the tracking page shows of the merchant (`admin tenant settings`). */
export interface TenantPageSettings {
  display_name: string | null;
  help_email: string | null;
  help_phone: string | null;
  help_url: string | null;
}

/** The tracking page's settings and the tenant's name, or null for an unknown tenant. */
export async function tenantPageSettingsOf(
  pool: Pool,
  id: string,
): Promise<(TenantPageSettings & { name: string }) | null> {
  const { rows } = await pool.query<TenantPageSettings & { name: string }>(
    'SELECT name, display_name, help_email, help_phone, help_url FROM tenants WHERE id = $1',
    [id],
  );
  return rows[0] ?? null;
}

/**
 * Sets the given settings (a null clears one; an absent one stays) and returns them all, or null for an unknown
 * tenant.
 */
export async function updateTenantPageSettings(
  pool: Pool,
  id: string,
  changes: Partial<TenantPageSettings>,
): Promise<(TenantPageSettings & { name: string }) | null> {
  const columns = (['display_name', 'help_email', 'help_phone', 'help_url'] as const).filter((c) => c in changes);
  const { rows } = await pool.query<TenantPageSettings & { name: string }>(
    `UPDATE tenants SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ') || 'name = name'} WHERE id = $1
     RETURNING name, display_name, help_email, help_phone, help_url`,
    [id, ...columns.map((c) => changes[c] ?? null)],
  );
  return rows[0] ?? null;
}

/** A policy's columns as a DispatchPolicy (of `tenant_dispatch_policies`; also read as JSON by a creation). */
export const DISPATCH_POLICY_COLUMNS = `auto_redispatch, max_fee_increase_aoa, max_redispatches, assign_timeout_minutes,
  preferred_company_ids::text[] AS preferred_company_ids, max_delivery_attempts`;

/**
 * The tenant's dispatch policy of one mode (src/tenants/dispatch-policy.ts): live and test mode each have their own, as
 * everything else of test mode (docs/test-mode.md). The defaults when the tenant never set one for that mode.
 */
export async function dispatchPolicyOf(pool: Pool, tenantId: string, livemode: boolean): Promise<DispatchPolicy> {
  const { rows } = await pool.query<DispatchPolicy>(
    `SELECT ${DISPATCH_POLICY_COLUMNS} FROM tenant_dispatch_policies WHERE tenant_id = $1 AND livemode = $2`,
    [tenantId, livemode],
  );
  return rows[0] ?? { ...DEFAULT_DISPATCH_POLICY };
}

/** Stores the whole policy of one mode (the caller merged the change into the current one). */
export async function saveDispatchPolicy(
  pool: Pool,
  tenantId: string,
  livemode: boolean,
  policy: DispatchPolicy,
): Promise<void> {
  await pool.query(
    `INSERT INTO tenant_dispatch_policies (tenant_id, livemode, auto_redispatch, max_fee_increase_aoa, max_redispatches, assign_timeout_minutes,
                                           preferred_company_ids, max_delivery_attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (tenant_id, livemode) DO UPDATE SET auto_redispatch = $3, max_fee_increase_aoa = $4, max_redispatches = $5,
       assign_timeout_minutes = $6, preferred_company_ids = $7, max_delivery_attempts = $8, updated_at = now()`,
    [
      tenantId,
      livemode,
      policy.auto_redispatch,
      policy.max_fee_increase_aoa,
      policy.max_redispatches,
      policy.assign_timeout_minutes,
      policy.preferred_company_ids,
      policy.max_delivery_attempts,
    ],
  );
}
