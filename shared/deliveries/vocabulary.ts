// The delivery state machine's vocabulary (design.md "Delivery lifecycle"). Pure data: the workflow,
// the API and the activities all import it. The transitions themselves are in state-table.ts.

export const STATUSES = [
  'awaiting_payment',
  'pending',
  'assigned',
  'pickup_ready',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'cancelled',
  'failed',
  'stalled',
] as const;
export type Status = (typeof STATUSES)[number];

export const FINAL_STATUSES: readonly Status[] = ['delivered', 'cancelled', 'failed'];

export const isFinal = (status: Status) => FINAL_STATUSES.includes(status);

export type PaymentMethod = 'prepaid' | 'bank_transfer' | 'cod';
export const PAYMENT_METHODS: readonly PaymentMethod[] = ['prepaid', 'bank_transfer', 'cod'];

/** `bank_transfer` waits for payment; `prepaid` and `cod` go straight to dispatch. */
export const initialStatusFor = (method: PaymentMethod): Status =>
  method === 'bank_transfer' ? 'awaiting_payment' : 'pending';

/** Fleet event types a courier sends to POST /v1/fleet/{courier_slug}/events. */
export const FLEET_EVENT_TYPES = [
  'assigned',
  'pickup_ready',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'failed',
  'payment.confirmed',
] as const;
export type FleetEventType = (typeof FLEET_EVENT_TYPES)[number];

/** Every event_type the service records (and sends as webhook `type`). */
export const EVENT_TYPES = [
  'delivery.created',
  'delivery.payment_confirmed',
  'delivery.dispatched',
  'delivery.assigned',
  'delivery.pickup_ready',
  'delivery.in_transit',
  'delivery.out_for_delivery',
  'delivery.delivered',
  'delivery.failed',
  'delivery.cancelled',
  'delivery.stalled',
  'delivery.redispatched',
  'delivery.resumed',
  'delivery.operator_action',
  'delivery.booking_release_failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type OperatorActionName = 'redispatch' | 'resume' | 'mark_failed' | 'cancel';
export const OPERATOR_ACTIONS: readonly OperatorActionName[] = ['redispatch', 'resume', 'mark_failed', 'cancel'];

/** Why a delivery stalls (`delivery.stalled` payload.reason); a test helper may stall a test delivery with any of them. */
export const STALL_REASONS = [
  'state_timeout',
  'sla_deadline_passed',
  'dispatch_failed',
  'courier_rejected',
  'pin_attempts_exceeded',
] as const;
export type StallReason = (typeof STALL_REASONS)[number];
