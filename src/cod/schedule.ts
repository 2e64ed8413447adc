// The Temporal Schedule that runs the cash-on-delivery overdue sweep (workflows/cod) every COD_OVERDUE_INTERVAL_MS.
// Like the maintenance purge's: every worker replica ensures it at start-up (create, or update to the settings).
import type { Client, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import { upsertSchedule } from '../platform/temporal.js';
import { COD_OVERDUE_SCHEDULE_ID } from '../../shared/cod/definitions.js';
import type { codOverdueWorkflow } from '../../workflows/cod/workflows.js';

export async function ensureCodOverdueSchedule(
  client: Client,
  config: Pick<Config, 'codOverdueIntervalMs' | 'taskQueue'>,
  scheduleId = COD_OVERDUE_SCHEDULE_ID,
): Promise<void> {
  const action: ScheduleOptionsStartWorkflowAction<typeof codOverdueWorkflow> = {
    type: 'startWorkflow',
    workflowType: 'codOverdueWorkflow',
    workflowId: scheduleId,
    taskQueue: config.taskQueue,
    args: [],
    workflowExecutionTimeout: config.codOverdueIntervalMs,
  };
  await upsertSchedule(client, scheduleId, config.codOverdueIntervalMs, action);
}
