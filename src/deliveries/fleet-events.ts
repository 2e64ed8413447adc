// A fleet event on its way to its delivery's workflow: the core of POST /v1/fleet/{slug}/events, once the route has
// checked the signature and the body and found the delivery, and of the test helper
// POST /v1/test_helpers/deliveries/{id}/advance, which plays the courier of a test delivery. Both end in the same
// `fleetEventSignal`, so the workflow records the same event, makes the same status change and the merchant gets the
// same webhooks whoever sent it.
import type { Client } from '@temporalio/client';
import { deliveryWorkflowId, fleetEventSignal } from '../../shared/deliveries/definitions.js';
import { pickCourierPayload } from '../../shared/deliveries/courier-payload.js';
import type { FleetEventType } from '../../shared/deliveries/vocabulary.js';

export interface IncomingFleetEvent {
  eventType: FleetEventType;
  occurredAt: string;
  /** The courier's payload as sent: only its allow-listed fields go on; its `pin` is checked here, never passed on. */
  payload: Record<string, unknown> | null | undefined;
  /** The courier's webhook-id: the workflow takes an event once per id. */
  webhookId: string;
  /** The company whose job the event is about: the workflow ignores it (superseded_booking) when the delivery moved on. */
  companyId: string;
}

/**
 * Signals the event to the delivery's workflow, with whether it carried the delivery's PIN. Throws the client's
 * WorkflowNotFoundError when the workflow has closed (the delivery is final): the caller records the event as ignored
 * or refuses it.
 */
export async function passFleetEvent(
  temporal: Client,
  delivery: { id: string; delivery_pin: string | null },
  event: IncomingFleetEvent,
): Promise<void> {
  const pin = event.payload?.pin;
  await temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).signal(fleetEventSignal, {
    eventType: event.eventType,
    occurredAt: event.occurredAt,
    payload: pickCourierPayload(event.payload),
    pinVerified: delivery.delivery_pin === null || String(pin ?? '') === delivery.delivery_pin,
    webhookId: event.webhookId,
    companyId: event.companyId,
  });
}
