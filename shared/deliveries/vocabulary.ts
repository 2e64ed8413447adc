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
  'attempt_failed',
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
  'delivery.attempt_failed',
  'delivery.return_started',
  'delivery.returned',
  // The recipient's answers on the tracking page (docs/recipients.md): no status change.
  'delivery.recipient_updated',
  // Cash on delivery (docs/cash-on-delivery.md): recorded beside the lifecycle, never a status change.
  'cod.collected',
  'cod.discrepancy',
  'cod.remitted',
  'cod.overdue',
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

/** Why a courier's delivery attempt failed (fleet `attempt_failed` payload.reason; design.md "Attempts, returns"). */
export const ATTEMPT_FAILURE_REASONS = [
  'recipient_unavailable',
  'address_not_found',
  'recipient_refused',
  'cod_refused',
  'access_denied',
  'other',
] as const;
export type AttemptFailureReason = (typeof ATTEMPT_FAILURE_REASONS)[number];
/** Reasons that end the attempts at once: the delivery fails (with that reason) and the parcel returns to the sender. */
export const REFUSAL_REASONS: readonly AttemptFailureReason[] = ['recipient_refused', 'cod_refused'];
/** The tenant's dispatch setting `max_delivery_attempts`: its default and its largest value (1 is the smallest). */
export const DEFAULT_MAX_DELIVERY_ATTEMPTS = 2;
export const MAX_DELIVERY_ATTEMPTS_LIMIT = 5;
/** `delivery.failed` payload.reason when the last attempt failed. */
export const ATTEMPTS_EXHAUSTED_REASON = 'delivery_attempts_exhausted';

/**
 * Every `payload.reason` code an event may carry (docs/deliveries.md): the stall reasons, the attempt reasons, and why
 * a delivery failed, was cancelled, moved to another company or had an event ignored. The dashboard words each one
 * (web/dashboard/src/i18n/vocabulary.ts, typed by this list); a merchant's own `mark_failed` reason is free text.
 * `not_allowed_from_<status>` (an ignored fleet event) is read apart.
 */
export type EventReason =
  | StallReason
  | AttemptFailureReason
  | typeof ATTEMPTS_EXHAUSTED_REASON
  | 'courier_failed'
  | 'merchant_request'
  | 'payment_timeout'
  | 'assign_timeout'
  | 'operator'
  | 'courier_refused'
  | 'courier_unavailable'
  | 'superseded_booking'
  | 'pin_mismatch';

/**
 * After a failed attempt (the `attempt`-th, 1-based): null when the courier tries again, else the reason the delivery
 * fails with (a refusal at once, else after the last attempt).
 */
export function attemptOutcome(attempt: number, reason: AttemptFailureReason, maxAttempts: number): string | null {
  if (REFUSAL_REASONS.includes(reason)) return reason;
  return attempt >= maxAttempts ? ATTEMPTS_EXHAUSTED_REASON : null;
}

/** The recipient's delivery instructions (tracking page, `delivery.recipient_updated`): at most this many characters. */
export const MAX_RECIPIENT_INSTRUCTIONS = 280;
/** A preferred window for the next attempt: a date within this many days from today (Luanda time). */
export const PREFERRED_WINDOW_DAYS = 7;
/** The time windows a recipient may choose (local time, Africa/Luanda), as `from`-`to` pairs. */
export const PREFERRED_WINDOW_SLOTS = [
  { from: '08:00', to: '12:00' },
  { from: '12:00', to: '16:00' },
  { from: '16:00', to: '20:00' },
] as const;

/** What a recipient answered on the tracking page; at least one field. */
export interface RecipientUpdate {
  instructions?: string;
  destination_coordinates?: { lat: number; lng: number };
  /** The next attempt: a date (YYYY-MM-DD, Luanda) and a window of PREFERRED_WINDOW_SLOTS. */
  preferred_window?: { date: string; from: string; to: string };
}
