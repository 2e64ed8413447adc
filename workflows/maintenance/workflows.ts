// The maintenance purge, started every PURGE_INTERVAL_MS by the Temporal Schedule `maintenance-purge`
// (src/maintenance/schedule.ts): deletes what has outlived its retention, kind by kind, in bounded batches.
import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../../activities/maintenance/activities.js';
import {
  DEFAULT_PURGE_MAX_BATCHES,
  PURGE_KINDS,
  type PurgeInput,
  type PurgeResult,
} from '../../shared/maintenance/definitions.js';

// A failing batch is retried a few times, then the run fails; the next scheduled run starts over.
const { purgeBatch } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '5s' },
});

export async function maintenancePurgeWorkflow(input: PurgeInput = {}): Promise<PurgeResult> {
  const maxBatches = input.maxBatches ?? DEFAULT_PURGE_MAX_BATCHES;
  const result = Object.fromEntries(PURGE_KINDS.map((kind) => [kind, 0])) as PurgeResult;
  for (const kind of PURGE_KINDS) {
    for (let batch = 0; batch < maxBatches; batch++) {
      const { deleted, more } = await purgeBatch(kind);
      result[kind] += deleted;
      if (!more) break;
    }
  }
  return result;
}
