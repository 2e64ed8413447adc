// Releasing a courier booking in the background (`booking-release-<delivery id>-<tracking ref>`, started by the
// delivery workflow as an abandoned child): after a cancellation the courier did not confirm in time, after an
// operator's cancel or redispatch, and after a cancel that raced the booking. It keeps asking the courier
// (DELETE {endpoint}/bookings/{ref}) with backoff for `retryForMs`; when the courier refuses, or never answers in
// that time, it records `delivery.booking_release_failed` (no status change) for an operator to follow up.
import { ParentClosePolicy, proxyActivities, startChild, uuid4 } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/deliveries/activities.js';
import { ignoreAlreadyStarted } from '../lib/children.js';
import { webhookFanoutWorkflowId } from '../../shared/webhooks/definitions.js';
import { webhookFanoutWorkflow } from '../webhooks/workflows.js';
import {
  RECORD_ATTEMPT_MS,
  RECORD_MAX_INTERVAL_MS,
  RELEASE_ATTEMPT_MS,
  RELEASE_INITIAL_INTERVAL_MS,
  RELEASE_MAX_INTERVAL_MS,
} from '../../shared/timeouts.js';
import type { BookingReleaseInput } from '../../shared/deliveries/definitions.js';

const { recordEvent } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});

export async function bookingReleaseWorkflow(input: BookingReleaseInput): Promise<{ released: boolean }> {
  const { cancelBooking } = proxyActivities<DeliveryActivities>({
    startToCloseTimeout: RELEASE_ATTEMPT_MS,
    // Every attempt and wait together: after this the courier is given up on.
    scheduleToCloseTimeout: Math.max(input.retryForMs, 1000),
    retry: {
      initialInterval: RELEASE_INITIAL_INTERVAL_MS,
      backoffCoefficient: 2,
      maximumInterval: RELEASE_MAX_INTERVAL_MS,
    },
  });
  let outcome: 'cancelled' | 'refused' | 'no_answer';
  try {
    outcome = await cancelBooking({ companyId: input.companyId, trackingRef: input.trackingRef });
  } catch {
    outcome = 'no_answer';
  }
  if (outcome === 'cancelled') return { released: true };

  const eventId = uuid4();
  await recordEvent({
    deliveryId: input.deliveryId,
    tenantId: input.tenantId,
    eventId,
    eventType: 'delivery.booking_release_failed',
    occurredAt: new Date().toISOString(),
    source: 'system',
    payload: {
      reason: outcome === 'refused' ? 'courier_refused' : 'courier_unavailable',
      tracking_ref: input.trackingRef,
    },
    toStatus: null,
  });
  if (input.webhooks) {
    await startChild(webhookFanoutWorkflow, {
      workflowId: webhookFanoutWorkflowId(eventId),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [{ tenantId: input.tenantId, deliveryId: input.deliveryId, eventId, schedule: input.webhooks.schedule }],
    }).catch(ignoreAlreadyStarted); // already started (same event id): nothing to do
  }
  return { released: false };
}
