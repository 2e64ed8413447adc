// A simulated test courier moving its job by itself (test-auto, src/couriers/adapters/simulated.ts): one small
// workflow per booking, started by the dispatch service once the booking is made. It sleeps, then sends the delivery
// workflow the fleetEventSignal a real courier's POST /v1/fleet/{slug}/events would (same event, a webhook-id of its
// own so a repeat counts once), so the delivery's events, status changes and merchant webhooks are exactly a
// courier's. It stops once the delivery's workflow is closed (delivered, cancelled, failed).
import { getExternalWorkflowHandle, sleep } from '@temporalio/workflow';
import { deliveryWorkflowId, fleetEventSignal } from '../../shared/deliveries/definitions.js';
import type { SimulatedCourierInput, SimulatedCourierResult } from '../../shared/simulated-couriers/definitions.js';

export async function simulatedCourierWorkflow(input: SimulatedCourierInput): Promise<SimulatedCourierResult> {
  const delivery = getExternalWorkflowHandle(deliveryWorkflowId(input.deliveryId));
  let sent = 0;
  for (const eventType of input.moves) {
    await sleep(input.stepMs);
    try {
      await delivery.signal(fleetEventSignal, {
        eventType,
        occurredAt: new Date().toISOString(),
        payload: payloadOf(eventType, input.trackingRef, input.cashCollectAoa),
        pinVerified: true,
        webhookId: `sim_${input.trackingRef}_${sent}`,
        ...(input.companyId ? { companyId: input.companyId } : {}),
      });
    } catch {
      return { sent, stopped: 'delivery_closed' };
    }
    sent++;
  }
  return { sent };
}

/** A fleet event's payload: `delivered` carries a proof of delivery, as a real courier's may (docs/test-mode.md). */
function payloadOf(eventType: string, trackingRef: string, cashCollectAoa?: number | null): Record<string, unknown> {
  if (eventType !== 'delivered') return { note: 'simulated test courier' };
  const base = `https://pod.test-courier.invalid/${encodeURIComponent(trackingRef)}`;
  return {
    note: 'simulated test courier',
    ...(typeof cashCollectAoa === 'number' ? { cash_collected_aoa: cashCollectAoa } : {}),
    proof: { recipient_name: 'Test Recipient', photo_url: `${base}/photo.jpg`, signature_url: `${base}/signature.png` },
  };
}
