// Effect `releaseBooking`: tells the courier a booked job is off (after a cancel that raced a dispatch, an operator's
// cancel or redispatch, a cancellation the courier did not confirm), in the background: bookingReleaseWorkflow, an
// abandoned child; only its start is awaited.
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import { DEFAULT_BOOKING_RELEASE_RETRY_MS, bookingReleaseWorkflowId } from '../../../shared/deliveries/definitions.js';
import { ignoreAlreadyStarted } from '../../lib/children.js';
import { bookingReleaseWorkflow } from '../booking-release.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

export async function releaseBooking(d: Delivery, _t: unknown, msg: Message): Promise<void> {
  if (!d.state.trackingRef || msg.keepBooking) return;
  await startBookingRelease(d, d.state.companyId, d.state.trackingRef);
}

export async function startBookingRelease(d: Delivery, companyId: string, trackingRef: string): Promise<void> {
  const { deliveryId, tenantId, timeouts, webhooks } = d.input;
  await startChild(bookingReleaseWorkflow, {
    workflowId: bookingReleaseWorkflowId(deliveryId, trackingRef),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        deliveryId,
        tenantId,
        companyId,
        trackingRef,
        retryForMs: timeouts.bookingReleaseRetryMs ?? DEFAULT_BOOKING_RELEASE_RETRY_MS,
        webhooks,
      },
    ],
  }).catch(ignoreAlreadyStarted); // already started for this job: nothing to do
}
