// System workflows: the foundation's round trip (API -> Temporal -> worker -> activity -> Postgres).
import { proxyActivities } from '@temporalio/workflow';
import type { SystemActivities } from '../../activities/system/activities.js';

const { writePing } = proxyActivities<SystemActivities>({ startToCloseTimeout: '10s' });

export async function pingWorkflow(input: {
  id: string;
  message: string;
}): Promise<{ id: string; written_at: string }> {
  return writePing(input);
}
