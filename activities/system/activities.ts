import type { Pool } from '../../src/db.js';

export function createSystemActivities(pool: Pool) {
  return {
    async writePing(input: { id: string; message: string }): Promise<{ id: string; written_at: string }> {
      const { rows } = await pool.query<{ id: string; written_at: Date }>(
        `INSERT INTO workflow_pings (id, message) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET message = EXCLUDED.message RETURNING id, written_at`,
        [input.id, input.message],
      );
      return { id: rows[0].id, written_at: rows[0].written_at.toISOString() };
    },
  };
}
export type SystemActivities = ReturnType<typeof createSystemActivities>;
