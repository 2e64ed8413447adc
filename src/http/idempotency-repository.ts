// Idempotency-Key records (idempotency_keys): one per tenant, mode, route and key (src/http/plugins/idempotency.ts uses
// them). A test key's record never answers a live key's request with the same Idempotency-Key, nor the reverse.
import type { Pool } from '../platform/db.js';

/** How long a key's record answers for it; the maintenance purge deletes older records (src/maintenance/repository.ts). */
export const IDEMPOTENCY_TTL = "interval '24 hours'";
/** A first request that crashed without answering frees its key after this long (requests finish well within it). */
const ABANDONED = "interval '1 minute'";

export interface IdempotencyClaim {
  tenantId: string;
  /** The key's mode: false for a test key. */
  livemode: boolean;
  scope: string;
  key: string;
}

export interface IdempotencyRecord {
  request_hash: string;
  status_code: number | null;
  response_body: unknown;
  withheld_fields: string[] | null;
}

/** Claims the key, taking over one that expired or whose first request was abandoned. False: someone holds it. */
export async function claimKey(pool: Pool, claim: IdempotencyClaim, requestHash: string): Promise<boolean> {
  const claimed = await pool.query(
    `INSERT INTO idempotency_keys (tenant_id, key_scope, idempotency_key, request_hash, livemode) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, livemode, key_scope, idempotency_key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, status_code = NULL, response_body = NULL, withheld_fields = NULL, created_at = now()
       WHERE idempotency_keys.created_at < now() - ${IDEMPOTENCY_TTL}
          OR (idempotency_keys.status_code IS NULL AND idempotency_keys.created_at < now() - ${ABANDONED})
     RETURNING 1`,
    [claim.tenantId, claim.scope, claim.key, requestHash, claim.livemode],
  );
  return claimed.rowCount === 1;
}

export async function findRecord(pool: Pool, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
  const { rows } = await pool.query<IdempotencyRecord>(
    'SELECT request_hash, status_code, response_body, withheld_fields FROM idempotency_keys WHERE tenant_id = $1 AND livemode = $4 AND key_scope = $2 AND idempotency_key = $3',
    [claim.tenantId, claim.scope, claim.key, claim.livemode],
  );
  return rows[0] ?? null;
}

/** Frees the key (the answer was not one to remember). */
export async function releaseKey(pool: Pool, claim: IdempotencyClaim): Promise<void> {
  await pool.query(
    'DELETE FROM idempotency_keys WHERE tenant_id = $1 AND livemode = $4 AND key_scope = $2 AND idempotency_key = $3',
    [claim.tenantId, claim.scope, claim.key, claim.livemode],
  );
}

/** Stores the answer a repeat replays. */
export async function storeAnswer(
  pool: Pool,
  claim: IdempotencyClaim,
  statusCode: number,
  body: string | null,
  withheld: string[] | null,
): Promise<void> {
  await pool.query(
    `UPDATE idempotency_keys SET status_code = $4, response_body = $5, withheld_fields = $6
      WHERE tenant_id = $1 AND livemode = $7 AND key_scope = $2 AND idempotency_key = $3`,
    [claim.tenantId, claim.scope, claim.key, statusCode, body, withheld, claim.livemode],
  );
}
