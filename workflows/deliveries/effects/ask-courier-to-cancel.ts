// Effect `askCourierToCancel`: the courier is asked to cancel the booked job, a bounded number of times. The cancel
// update asks outside the workflow's lock (handlers/cancel.ts) and passes the answer on; a refusal rejects the
// cancellation, no answer cancels the delivery and leaves the release to the background (effect releaseBooking).
import { ApplicationFailure } from '@temporalio/workflow';
import { CancellationRejected } from '../../../shared/deliveries/definitions.js';
import { CANCEL_CALL_MAX_MS } from '../../../shared/timeouts.js';
import type { Delivery } from '../delivery.js';
import { askCourier } from '../proxies.js';
import type { Message } from './message.js';

export type CancelAnswer = 'cancelled' | 'refused' | 'no_answer';

export const cancellationRejected = (message: string) => ApplicationFailure.nonRetryable(message, CancellationRejected);

/** Asks the courier to cancel `booking`; an activity that gives up counts as no answer. */
export async function courierAnswer(booking: { companyId: string; trackingRef: string }): Promise<CancelAnswer> {
  try {
    return await askCourier({ ...booking, maxTimeoutMs: CANCEL_CALL_MAX_MS });
  } catch {
    return 'no_answer';
  }
}

export async function askCourierToCancel(d: Delivery, _t: unknown, msg: Message): Promise<void> {
  const { trackingRef, companyId } = d.state;
  if (!trackingRef) return;
  msg.courierAnswer ??= await courierAnswer({ companyId, trackingRef });
  if (msg.courierAnswer === 'refused') throw cancellationRejected('The courier refused to cancel the job.');
  msg.keepBooking = msg.courierAnswer === 'cancelled';
}
