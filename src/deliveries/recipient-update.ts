// The recipient's answers from the tracking page (docs/recipients.md "The recipient page"): the delivery workflow's
// recipientUpdate update records `delivery.recipient_updated` (source `recipient`) and tells the booked courier.
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { AppDeps } from '../platform/deps.js';
import { ensureDeliveryWorkflow } from './start.js';
import { deliveryWorkflowId, recipientUpdate } from '../../shared/deliveries/definitions.js';
import { RECIPIENT_UPDATE_STATUSES } from '../../shared/deliveries/state-table.js';
import type { RecipientUpdate, Status } from '../../shared/deliveries/vocabulary.js';

/** How long the page waits for the workflow to take the answer. */
const UPDATE_WAIT_MS = 10_000;

/** `recorded`; `over`: the delivery reached a final status (nothing recorded); `unavailable`: try again later. */
export type RecipientUpdateOutcome = 'recorded' | 'over' | 'unavailable';

/** Whether the recipient's forms are open for a delivery in `status`. */
export const recipientFormsOpen = (status: Status): boolean => RECIPIENT_UPDATE_STATUSES.includes(status);

export async function recordRecipientUpdate(
  { temporal, pool, config }: AppDeps,
  delivery: { id: string; status: Status; workflow_started_at: Date | null },
  update: RecipientUpdate,
): Promise<RecipientUpdateOutcome> {
  if (!recipientFormsOpen(delivery.status)) return 'over';
  try {
    await temporal.withDeadline(Date.now() + UPDATE_WAIT_MS, async () => {
      await ensureDeliveryWorkflow(temporal, pool, config, delivery);
      await temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).executeUpdate(recipientUpdate, {
        args: [update],
      });
    });
    return 'recorded';
  } catch (err) {
    // Refused by the workflow (a final status meanwhile) or the workflow is over.
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return 'over';
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || err instanceof ServiceError) return 'unavailable';
    throw err;
  }
}
