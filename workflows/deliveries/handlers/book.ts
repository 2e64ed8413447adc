// Booking the courier (dispatchDelivery), outside the lock: the booking's outcome is the table's `booked` (then
// `booking_accepted` when the courier assigns at once), or `courier_rejected` / `dispatch_failed`. The first attempt
// runs in the workflow task that decided it; the others, when it failed in a way a retry may mend, as a regular
// activity (proxies.ts).
import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { CourierRejected } from '../../../shared/deliveries/definitions.js';
import { BOOKING_FIRST_CALL_MAX_MS } from '../../../shared/timeouts.js';
import { allows } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import { releaseBooking } from '../effects/release-booking.js';
import { stallPayload } from '../effects/stall.js';
import { fire } from '../fire.js';
import { apply } from '../transitions.js';
import { FINAL_BOOKING_ERRORS, bookHere } from '../proxies.js';

export async function book(d: Delivery): Promise<void> {
  const { state } = d;
  state.needsDispatch = false;
  let booking: Awaited<ReturnType<Delivery['dispatchDelivery']>>;
  try {
    booking = await bookWithCourier(d);
  } catch (err) {
    const failure = courierFailureOf(err);
    const refusal = failure instanceof ApplicationFailure ? failure : undefined;
    const reason = refusal?.type === CourierRejected ? 'courier_rejected' : 'dispatch_failed';
    // What the courier answered (the HTTP status of a refusal, the last error), for the operator and the merchant.
    const status = (refusal?.details?.[0] as { status?: number } | undefined)?.status;
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

/**
 * The courier's booking. The one a delivery created `pending` starts with makes one short attempt here, then, unless
 * it was final, the other attempts as a regular activity after the first backoff. They go on when the delivery was
 * cancelled meanwhile: the first call may have booked a job before it timed out, and a booking that comes back for a
 * cancelled delivery is released (book, above). Every attempt sends the same Idempotency-Key (the booking number), so
 * the courier keeps one job. Any later booking is a regular activity from its first attempt
 * (Delivery.firstAttemptHere).
 *
 * What the delivery does with the first attempt's answer must be what it would do again. A local activity's answer is
 * in the history only once the task that ran it completes; should the worker or Temporal die before that, the task
 * runs again and asks the courier again, while the events it wrote stay written (a retry with the same event id
 * changes nothing). A booking asks again under the same Idempotency-Key and gets the same job back, so a delivery
 * booked here goes on in the same task. A refusal may not come back the same (the courier has a driver now): it is
 * acted on only after a task has completed with it in the history (`sleep(1)`, as `accepted()` for an update), so a
 * stall is never written for a refusal that a second try turns into a booking (the crash test's stalled delivery whose
 * recovery never took effect: stalled in Postgres, assigned in its workflow).
 */
async function bookWithCourier(d: Delivery): Promise<Awaited<ReturnType<Delivery['dispatchDelivery']>>> {
  const input = { deliveryId: d.input.deliveryId, bookingNumber: d.state.bookingNumber };
  const { maximumAttempts, initialIntervalMs } = d.input.timeouts.dispatch;
  if (!d.firstAttemptHere) return d.dispatchDelivery(input);
  d.firstAttemptHere = false;
  try {
    return await bookHere({ ...input, maxTimeoutMs: BOOKING_FIRST_CALL_MAX_MS });
  } catch (err) {
    const failure = courierFailureOf(err);
    const final =
      failure instanceof ApplicationFailure && (FINAL_BOOKING_ERRORS as readonly string[]).includes(failure.type ?? '');
    if (final || maximumAttempts <= 1) {
      await sleep(1); // the refusal in the history before anything acts on it (above)
      throw err;
    }
  }
  await sleep(initialIntervalMs);
  return d.dispatchAfterFirstAttempt(input);
}

/**
 * The booking's last failure. The first attempt's (a local activity's) reaches the workflow as the activity threw it
 * (an ApplicationFailure: a refusal, the courier's error); one the SDK wraps (the regular activity's, a timeout) as the
 * wrapper's cause.
 */
function courierFailureOf(err: unknown): Error | undefined {
  if (!(err instanceof Error)) return undefined;
  if (err instanceof ApplicationFailure) return err;
  return err.cause instanceof Error ? err.cause : err;
}
