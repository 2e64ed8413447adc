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
