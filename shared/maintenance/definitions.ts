// The maintenance purge (docs/operations.md "Retention"): what it deletes and the names the worker, the
// schedule and the tests share. Pure data: safe inside the workflow sandbox.

/**
 * What the purge deletes, in this order. Each kind is deleted in batches of PURGE_BATCH_SIZE rows:
 * - idempotency_keys: Idempotency-Key records past their 24 h window;
 * - quotes: quotes never used, QUOTE_RETENTION_MS after their valid_until (a used quote stays with its delivery);
 * - fleet_receipts: fleet webhook-ids seen, FLEET_RECEIPT_RETENTION_MS after receipt;
 * - webhook_attempts, webhook_messages: merchant webhook log and messages, WEBHOOK_RETENTION_MS old;
 * - workflow_pings: rows of the diagnostic round trip, after 24 h.
 */
export const PURGE_KINDS = [
  'idempotency_keys',
  'quotes',
  'fleet_receipts',
  'webhook_attempts',
  'webhook_messages',
  'workflow_pings',
] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];

/** The Temporal Schedule the worker creates (or updates) at start-up. */
export const PURGE_SCHEDULE_ID = 'maintenance-purge';

/** Batches per kind and run: bounds one run's history; whatever is left waits for the next run. */
export const DEFAULT_PURGE_MAX_BATCHES = 200;

export interface PurgeInput {
  maxBatches?: number;
}

export interface PurgeBatchResult {
  deleted: number;
  /** The batch was full: more rows may be waiting. */
  more: boolean;
}

/** Rows deleted per kind by one run. */
export type PurgeResult = Record<PurgeKind, number>;
