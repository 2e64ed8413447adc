// Cash on delivery's names the worker, the schedule and the tests share (docs/cash-on-delivery.md "Overdue").
// Pure data: safe inside the workflow sandbox.

/** The Temporal Schedule the worker creates (or updates) at start-up: the overdue sweep. */
export const COD_OVERDUE_SCHEDULE_ID = 'cod-overdue';

/** Collections one activity raises cod.overdue for; a run takes batches until none is left (at most MAX_BATCHES). */
export const COD_OVERDUE_BATCH = 200;
export const COD_OVERDUE_MAX_BATCHES = 50;

export interface CodOverdueResult {
  raised: number;
}
