// Tenants (merchants) as stored. Their keys: src/keys/repository.ts; their courier companies: src/couriers/repository.ts.
import type { Pool } from '../db.js';

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
