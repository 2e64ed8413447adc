// The simulated test couriers' own movement (src/couriers/adapters/simulated.ts): ids and input of the workflow that
// drives a booked test job. Pure data: safe inside the workflow sandbox.
import type { FleetEventType } from '../deliveries/vocabulary.js';

export const simulatedCourierWorkflowId = (deliveryId: string, trackingRef: string) =>
  `simulated-courier-${deliveryId}-${trackingRef}`;

export interface SimulatedCourierInput {
  deliveryId: string;
  /** The job the simulated courier was booked for (names its fleet events' webhook-ids). */
  trackingRef: string;
  /** The fleet events it sends, in order. */
  moves: FleetEventType[];
  /** The pause before each of them (SIMULATED_COURIER_STEP_MS). */
  stepMs: number;
  /** The company the job was booked with: each fleet event names it, so the delivery ignores it once moved on. */
  companyId?: string;
  /** A cash-on-delivery job: the cash it collects at the door (the expected amount), sent with `delivered`. */
  cashCollectAoa?: number | null;
}

export interface SimulatedCourierResult {
  /** How many fleet events reached the delivery. */
  sent: number;
  /** Why it stopped early: the delivery's workflow is closed (the delivery ended, e.g. cancelled). */
  stopped?: 'delivery_closed';
}
