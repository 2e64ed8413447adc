// Effect `tellCourier` (the recipient's answers, `recipient.update`): the booked courier hears of them through
// courierUpdateWorkflow, an abandoned child (only its start is awaited), so a slow courier never holds the delivery.
// Before a booking there is no job to tell.
import { ParentClosePolicy, startChild, uuid4 } from '@temporalio/workflow';
import { courierUpdateWorkflowId } from '../../../shared/deliveries/definitions.js';
import type { RecipientUpdate } from '../../../shared/deliveries/vocabulary.js';
import { ignoreAlreadyStarted } from '../../lib/children.js';
import { courierUpdateWorkflow } from '../courier-update.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

export async function tellCourier(d: Delivery, _t: unknown, msg: Message): Promise<void> {
  const { trackingRef, companyId } = d.state;
  if (!trackingRef) return;
  const { deliveryId, timeouts } = d.input;
  await startChild(courierUpdateWorkflow, {
    workflowId: courierUpdateWorkflowId(deliveryId, uuid4()),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        deliveryId,
        companyId,
        trackingRef,
        update: msg.payload as RecipientUpdate,
        ...(timeouts.bookingReleaseRetryMs ? { retryForMs: timeouts.bookingReleaseRetryMs } : {}),
      },
    ],
  }).catch(ignoreAlreadyStarted);
}
