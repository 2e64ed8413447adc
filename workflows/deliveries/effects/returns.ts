// Returns to sender (design.md "Attempts, returns and proof of delivery"). A return is a delivery of its own, with its
// own workflow:
// - effect `startReturn` (the original, after its last failed attempt or a refusal): creates and books the return
//   (the startReturn activity, idempotent: one return per original however often it runs);
// - the return's first run records `delivery.return_started` on the original (announceReturn), so a return the
//   merchant starts by hand (POST /v1/deliveries/{id}/return, the original's workflow long closed) says so too;
// - effect `reportReturned` (the return, on `delivered`): `delivery.returned` on the original.
// The events on the original are written by the return's workflow with its own (deterministic) event ids.
import { ActivityFailure, log, uuid4 } from '@temporalio/workflow';
import type { Delivery } from '../delivery.js';
import { local, startReturnActivity } from '../proxies.js';

export async function startReturn(d: Delivery): Promise<void> {
  if (d.input.returnOf) return; // a return is never returned itself
  const { deliveryId, tenantId } = d.input;
  try {
    await startReturnActivity({ deliveryId, tenantId });
  } catch (err) {
    // Refused for good (the delivery is itself a return, or gone): the delivery stays failed, with no return.
    if (!(err instanceof ActivityFailure)) throw err;
    log.warn('no return to sender', { deliveryId, error: err.cause?.message ?? err.message });
  }
}

/** Records an event of the return on the delivery it brings back (no status change there). */
async function recordOnOriginal(d: Delivery, eventType: string): Promise<void> {
  const { deliveryId, tenantId, reference, returnOf, webhooks } = d.input;
  if (!returnOf) return;
  await local.recordEvent({
    deliveryId: returnOf,
    tenantId,
    eventId: uuid4(),
    eventType,
    occurredAt: new Date().toISOString(),
    source: 'system',
    payload: { return_delivery_id: deliveryId, return_reference: reference },
    toStatus: null,
    webhooks: webhooks ?? null,
  });
}

/** The return's first run: `delivery.return_started` on the original. */
export const announceReturn = (d: Delivery) => recordOnOriginal(d, 'delivery.return_started');

export const reportReturned = (d: Delivery) => recordOnOriginal(d, 'delivery.returned');
