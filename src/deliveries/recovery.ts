// Deliveries whose workflow was closed by hand (Terminate, or a failure) while they were not final: without a
// workflow nothing moves them on, no cancellation can reach them, and an operator's `recover` has nothing to signal.
// The worker's reconciler finds such workflows through Temporal visibility and starts a new one from the delivery's
// state in Postgres; `delivery recover` does the same before it signals (docs/operations.md "Temporal UI actions").
// A cancellation requested in the Temporal UI is handled by the workflow itself and ends nothing abruptly.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import type { Pool } from '../platform/db.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import { countWorkflowRestart, restartableDelivery } from './start-repository.js';
import { startDeliveryWorkflow } from './start.js';

/** After this many restarts of one delivery's workflow the reconciler stops and says so: something closes it again. */
const MAX_RESTARTS = 3;

/**
 * Starts the delivery's workflow again when it is closed but the delivery is not final; returns whether it did. A
 * running workflow, a final delivery, or one never started (the reconciler's other pass) is left alone.
 */
export async function restartIfClosed(
  client: Client,
  pool: Pool,
  config: Config,
  deliveryId: string,
  limit = Infinity,
): Promise<boolean> {
  try {
    const { status } = await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).describe();
    if (status.name === 'RUNNING') return false;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
  const d = await restartableDelivery(pool, deliveryId);
  if (!d) return false;
  if (d.workflow_restarts >= limit)
    throw new Error(
      `its workflow was restarted ${d.workflow_restarts} times already and closed again; look at it in the Temporal UI`,
    );
  const booked = d.courier_tracking_ref !== null;
  await startDeliveryWorkflow(client, pool, config, d, {
    status: d.status,
    previousStatus: d.previous_status,
    companyId: d.company_id,
    trackingRef: d.courier_tracking_ref,
    enteredAt: d.changed_at.getTime(),
    slaStalled: false,
    // In pending without a courier job, book one (as after a resume).
    needsDispatch: d.status === 'pending' && !booked,
    pinAttempts: 0,
    inbox: [],
    seenWebhookIds: [],
    // Automatic failover goes on where it was: the moves made count towards max_redispatches (and their companies are
    // not tried again), and a booking the courier took as pending keeps its assign timeout from when it was made.
    redispatchedFrom: d.redispatched_from,
    bookedAt: d.booked_at ? d.booked_at.getTime() : null,
  });
  await countWorkflowRestart(pool, deliveryId);
  return true;
}

/** Visibility's delivery workflows closed by hand (not completed) since `since`, on this task queue. */
export async function* closedByHand(client: Client, config: Config, since: Date): AsyncGenerator<string> {
  const query =
    `WorkflowType = 'deliveryWorkflow' AND TaskQueue = '${config.taskQueue}' AND CloseTime > '${since.toISOString()}' AND ` +
    `(ExecutionStatus = 'Terminated' OR ExecutionStatus = 'Canceled' OR ExecutionStatus = 'Failed' OR ExecutionStatus = 'TimedOut')`;
  for await (const wf of client.workflow.list({ query })) yield wf.workflowId.replace(/^delivery-/, '');
}

/** One reconciler pass over workflows closed by hand since `since`: restarts those whose delivery is not final. */
export async function restartClosedSince(
  client: Client,
  pool: Pool,
  config: Config,
  since: Date,
  onError: (deliveryId: string, err: Error) => void = (id, err) =>
    console.error(`Reconciler could not restart the workflow of delivery ${id}:`, err.message),
): Promise<number> {
  let restarted = 0;
  for await (const deliveryId of closedByHand(client, config, since)) {
    try {
      if (await restartIfClosed(client, pool, config, deliveryId, MAX_RESTARTS)) restarted++;
    } catch (err) {
      onError(deliveryId, err as Error);
    }
  }
  return restarted;
}
