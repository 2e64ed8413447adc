// The SQL of the worker's metrics: the deliveries-by-status gauge (read on scrape, cached) and the courier of a
// stalled delivery. Both are cheap: an index-only scan of the open deliveries' partial index
// (migrations/1700000006500_observability.sql), and one row by primary key, only for stalls.
import type { Pool } from '../platform/db.js';
import { FINAL_STATUSES } from '../../shared/deliveries/vocabulary.js';

const FINAL = FINAL_STATUSES.map((status) => `'${status}'`).join(', ');

/** Deliveries that can still change, counted by status. */
export async function countOpenDeliveriesByStatus(pool: Pool): Promise<{ status: string; count: number }[]> {
  const { rows } = await pool.query<{ status: string; count: string }>(
    `SELECT status, count(*) AS count FROM deliveries WHERE status NOT IN (${FINAL}) GROUP BY status`,
  );
  return rows.map((r) => ({ status: r.status, count: Number(r.count) }));
}

/** The slug of the company a delivery is booked with now, or null. */
export async function courierSlugOfDelivery(pool: Pool, deliveryId: string): Promise<string | null> {
  const { rows } = await pool.query<{ slug: string }>(
    'SELECT c.slug FROM deliveries d JOIN courier_companies c ON c.id = d.company_id WHERE d.id = $1',
    [deliveryId],
  );
  return rows[0]?.slug ?? null;
}
