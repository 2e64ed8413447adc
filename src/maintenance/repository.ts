// The maintenance purge's deletes: one bounded batch of one kind of expired rows at a time
// (workflows/maintenance/definitions.ts lists the kinds; docs/operations.md "Retention" their periods).
import type { Config } from '../platform/config.js';
import type { Pool } from '../platform/db.js';
import { IDEMPOTENCY_TTL } from '../http/idempotency-repository.js';
import type { PurgeBatchResult, PurgeKind } from '../../shared/maintenance/definitions.js';

/** The table of each kind and the condition that makes its row deletable; `$1` is the retention in ms. */
const TARGETS: Record<
  PurgeKind,
  {
    table: string;
    expired: string;
    retentionMs?: (
      config: Pick<Config, 'quoteRetentionMs' | 'fleetReceiptRetentionMs' | 'webhookRetentionMs'>,
    ) => number;
  }
> = {
  idempotency_keys: { table: 'idempotency_keys', expired: `created_at < now() - ${IDEMPOTENCY_TTL}` },
  quotes: {
    table: 'quotes',
    // Only quotes no delivery took: a used one stays as long as its delivery (deliveries.quote_id references it).
    expired: `used_at IS NULL AND valid_until < now() - $1 * interval '1 millisecond'
              AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.quote_id = quotes.id)`,
    retentionMs: (config) => config.quoteRetentionMs,
  },
  fleet_receipts: {
    table: 'fleet_webhook_receipts',
    expired: `received_at < now() - $1 * interval '1 millisecond'`,
    retentionMs: (config) => config.fleetReceiptRetentionMs,
  },
  webhook_attempts: {
    table: 'webhook_attempts',
    expired: `attempted_at < now() - $1 * interval '1 millisecond'`,
    retentionMs: (config) => config.webhookRetentionMs,
  },
  webhook_messages: {
    table: 'webhook_messages',
    expired: `created_at < now() - $1 * interval '1 millisecond'`,
    retentionMs: (config) => config.webhookRetentionMs,
  },
  workflow_pings: { table: 'workflow_pings', expired: `written_at < now() - interval '24 hours'` },
};

/** Deletes at most PURGE_BATCH_SIZE expired rows of `kind` in one short statement (rows picked by ctid through
 *  the kind's index; the condition is checked again on delete, so a row changed meanwhile is left alone). */
export async function purgeBatch(
  pool: Pool,
  config: Pick<Config, 'purgeBatchSize' | 'quoteRetentionMs' | 'fleetReceiptRetentionMs' | 'webhookRetentionMs'>,
  kind: PurgeKind,
): Promise<PurgeBatchResult> {
  const target = TARGETS[kind];
  if (!target) throw new Error(`unknown purge kind "${kind}"`);
  const limit = config.purgeBatchSize;
  const retention = target.retentionMs?.(config);
  const params = retention === undefined ? [limit] : [retention, limit];
  const limitParam = `$${params.length}`;
  const { rowCount } = await pool.query(
    `DELETE FROM ${target.table}
      WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${target.table} WHERE ${target.expired} LIMIT ${limitParam}))
        AND ${target.expired}`,
    params,
  );
  const deleted = rowCount ?? 0;
  return { deleted, more: deleted === limit };
}
