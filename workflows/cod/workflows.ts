// The cash-on-delivery overdue sweep, started every COD_OVERDUE_INTERVAL_MS by the Temporal Schedule `cod-overdue`
// (src/cod/schedule.ts): cod.overdue once per collection past its remittance terms, in bounded batches.
import { proxyActivities } from '@temporalio/workflow';
import type { CodActivities } from '../../activities/cod/activities.js';
import { COD_OVERDUE_MAX_BATCHES, type CodOverdueResult } from '../../shared/cod/definitions.js';

const { raiseOverdueBatch } = proxyActivities<CodActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '5s' },
});

export async function codOverdueWorkflow(): Promise<CodOverdueResult> {
  let raised = 0;
  for (let batch = 0; batch < COD_OVERDUE_MAX_BATCHES; batch++) {
    const result = await raiseOverdueBatch();
    raised += result.raised;
    if (!result.more) break;
  }
  return { raised };
}
