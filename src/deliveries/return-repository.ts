// The writes of a return to sender (src/deliveries/returns.ts): the original, locked while its return is made, and
// the two links between them. One return per original: deliveries_return_of_idx (migrations/1700000020000).
import type { PoolClient } from '../platform/db.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';

/** The original's status and links, locked (`FOR UPDATE`) until the transaction ends. */
export async function lockForReturn(
  client: PoolClient,
  deliveryId: string,
): Promise<{ status: Status; return_of: string | null; return_delivery_id: string | null } | null> {
  const { rows } = await client.query<{ status: Status; return_of: string | null; return_delivery_id: string | null }>(
    'SELECT status, return_of, return_delivery_id FROM deliveries WHERE id = $1 FOR UPDATE',
    [deliveryId],
  );
  return rows[0] ?? null;
}

/** Links a return to its original, both ways. */
export async function linkReturn(client: PoolClient, originalId: string, returnId: string): Promise<void> {
  await client.query('UPDATE deliveries SET return_of = $2 WHERE id = $1', [returnId, originalId]);
  await client.query('UPDATE deliveries SET return_delivery_id = $2, updated_at = now() WHERE id = $1', [
    originalId,
    returnId,
  ]);
}
