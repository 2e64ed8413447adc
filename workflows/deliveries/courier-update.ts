// Passing a recipient's answers to the booked courier in the background (`courier-update-<delivery id>-<id>`, started
// by the delivery workflow's `tellCourier` effect as an abandoned child): POST {endpoint}/bookings/{ref}/updates,
// retried with backoff like a booking release for `retryForMs` (default 1 h); a courier that refuses (4xx) or never
// answers in that time is given up on. The answers are recorded on the delivery already (`delivery.recipient_updated`).
import { proxyActivities } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/deliveries/activities.js';
import { DEFAULT_BOOKING_RELEASE_RETRY_MS, type CourierUpdateInput } from '../../shared/deliveries/definitions.js';
import { RELEASE_ATTEMPT_MS, RELEASE_INITIAL_INTERVAL_MS, RELEASE_MAX_INTERVAL_MS } from '../../shared/timeouts.js';

export async function courierUpdateWorkflow(input: CourierUpdateInput): Promise<{ sent: boolean }> {
  const { sendCourierUpdate } = proxyActivities<DeliveryActivities>({
    startToCloseTimeout: RELEASE_ATTEMPT_MS,
    scheduleToCloseTimeout: Math.max(input.retryForMs ?? DEFAULT_BOOKING_RELEASE_RETRY_MS, 1000),
    retry: {
      initialInterval: RELEASE_INITIAL_INTERVAL_MS,
      backoffCoefficient: 2,
      maximumInterval: RELEASE_MAX_INTERVAL_MS,
    },
  });
  try {
    const outcome = await sendCourierUpdate({
      companyId: input.companyId,
      trackingRef: input.trackingRef,
      update: input.update,
    });
    return { sent: outcome === 'sent' };
  } catch {
    return { sent: false };
  }
}
