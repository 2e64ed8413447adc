// Rows of the diagnostic round trip (POST /v1/diagnostics/round_trip: API -> workflow -> activity -> Postgres).
import type { Pool } from '../platform/db.js';

export async function writePing(
  pool: Pool,
  input: { id: string; message: string },
): Promise<{ id: string; written_at: string }> {
  const { rows } = await pool.query<{ id: string; written_at: Date }>(
    `INSERT INTO workflow_pings (id, message) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET message = EXCLUDED.message RETURNING id, written_at`,
    [input.id, input.message],
  );
  return { id: rows[0].id, written_at: rows[0].written_at.toISOString() };
}
