// Booking the courier (dispatchDelivery), outside the lock: the booking's outcome is the table's `booked` (then
// `booking_accepted` when the courier assigns at once), or `courier_rejected` / `dispatch_failed`.
import type { ApplicationFailure } from '@temporalio/workflow';
import { CourierRejected } from '../../../shared/deliveries/definitions.js';
import { allows } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import { releaseBooking } from '../effects/release-booking.js';
import { stallPayload } from '../effects/stall.js';
import { fire } from '../fire.js';
import { apply } from '../transitions.js';

export async function book(d: Delivery): Promise<void> {
  const { state } = d;
  state.needsDispatch = false;
  let booking: Awaited<ReturnType<Delivery['dispatchDelivery']>>;
  try {
    booking = await d.dispatchDelivery({ deliveryId: d.input.deliveryId, bookingNumber: state.bookingNumber });
  } catch (err) {
    const failure = err instanceof Error ? (err.cause as ApplicationFailure | undefined) : undefined;
    const reason = failure?.type === CourierRejected ? 'courier_rejected' : 'dispatch_failed';
    // What the courier answered (the HTTP status of a refusal, the last error), for the operator and the merchant.
    const status = (failure?.details?.[0] as { status?: number } | undefined)?.status;
    const answer = { courier_answer: { message: failure?.message ?? String(err), ...(status ? { status } : {}) } };
    await d.lock.runExclusive(() => fire(d, reason, { payload: stallPayload(d, reason, answer) }));
    return;
  }
  await d.lock.runExclusive(async () => {
    const trackingRef = booking.tracking_ref;
    state.trackingRef = trackingRef;
    // Cancelled while the booking was under way: the job is released.
    if (!allows('booked', state.status)) return releaseBooking(d, null, { payload: {} });
    await apply(d, 'booked', {
      payload: { tracking_ref: trackingRef, courier: booking.courierName, booking_status: booking.status },
      extra: { trackingRef },
    });
    if (booking.status === 'accepted') await apply(d, 'booking_accepted', { payload: { tracking_ref: trackingRef } });
  });
}
