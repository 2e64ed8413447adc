// The Temporal Schedule that runs the maintenance purge (workflows/maintenance) every PURGE_INTERVAL_MS.
// Every worker replica calls this at start-up: the first creates the schedule, the others (and later starts,
// perhaps with another interval or task queue) update it to the current settings, so it always exists once.
import type { Client, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import { upsertSchedule } from '../platform/temporal.js';
import { PURGE_SCHEDULE_ID } from '../../shared/maintenance/definitions.js';
import type { maintenancePurgeWorkflow } from '../../workflows/maintenance/workflows.js';

export async function ensurePurgeSchedule(
  client: Client,
  config: Config,
  scheduleId = PURGE_SCHEDULE_ID,
): Promise<void> {
  const action: ScheduleOptionsStartWorkflowAction<typeof maintenancePurgeWorkflow> = {
    type: 'startWorkflow',
    workflowType: 'maintenancePurgeWorkflow',
    workflowId: scheduleId,
    taskQueue: config.taskQueue,
    args: [{}],
    // A run that cannot finish within an interval gives way to the next one.
    workflowExecutionTimeout: config.purgeIntervalMs,
  };
  await upsertSchedule(client, scheduleId, config.purgeIntervalMs, action);
}
