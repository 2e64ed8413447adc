// The delivery workflow's messages, as constants that the API, the worker and the admin CLI share.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { FleetEventType, OperatorActionName, RecipientUpdate, Status, StallReason } from './vocabulary.js';

export const deliveryWorkflowId = (deliveryId: string) => `delivery-${deliveryId}`;

/** Per-state time budgets and retry settings, passed in so tests can use seconds. */
export interface DeliveryTimeouts {
  /** How long `awaiting_payment` waits before cancelling (reason `payment_timeout`). */
  paymentWindowMs: number;
  /** Time a state may last without progress before the delivery goes to `stalled` (reason `state_timeout`). */
  stateBudgetsMs: Partial<Record<Status, number>>;
  dispatch: { maximumAttempts: number; initialIntervalMs: number; maximumIntervalMs: number };
  /** How long a courier booking that could not be released at once is retried in the background (absent: 1 h). */
  bookingReleaseRetryMs?: number;
}

export interface DeliveryWorkflowInput {
  deliveryId: string;
  tenantId: string;
  reference: string;
  companyId: string;
  courierSlug: string;
  initialStatus: Status;
  /** Id of the `delivery.created` event, inserted by the API with the delivery. */
  createdEventId: string;
  requireDeliveryPin: boolean;
  slaDeadlineAt: string | null;
  timeouts: DeliveryTimeouts;
  /** Whether merchant webhooks are sent (the webhook fan-out workflow). */
  webhooks?: { schedule?: number[] } | null;
  /**
   * Continue-as-new once the run's history has this many events (absent: DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS), or
   * earlier when Temporal suggests it. Tests lower it.
   */
  continueAsNewAfterEvents?: number;
  /** Set on a run that continues an earlier one (continue-as-new): the state it carries over. */
  continued?: DeliveryContinuedState;
  /**
   * The tenant's dispatch policy when it asks for automatic failover (`auto_redispatch`), as it stood when the delivery
   * was created; absent: a failure before pickup stalls the delivery, as design.md says.
   */
  redispatch?: RedispatchPolicy | null;
  /** The tenant's `max_delivery_attempts` when the delivery was created (absent: DEFAULT_MAX_DELIVERY_ATTEMPTS). */
  maxDeliveryAttempts?: number;
  /** A return to sender: the delivery it brings back (it records `delivery.return_started` and `delivery.returned` there). */
  returnOf?: string | null;
  /**
   * Whether the delivery is cash on delivery: its `delivered` event books the cash collected (the `collectCash`
   * effect). Absent (an older start): the effect asks the activity, which books nothing for other methods.
   */
  cashOnDelivery?: boolean;
}

/** Automatic failover before pickup (docs/deliveries.md "Automatic failover"). */
export interface RedispatchPolicy {
  /** The most a new company may cost over the locked fee (centavos). */
  maxFeeIncreaseAoa: number;
  /** How many times a delivery may move to another company. */
  maxRedispatches: number;
  /** How long `pending` waits for `assigned` after a booking the courier took as `pending`. */
  assignTimeoutMs: number;
  /** Companies to prefer, in order; the others by fee. */
  preferredCompanyIds: string[];
}

/** What planRedispatch found: the company to book instead, or why none. */
export type RedispatchPlan =
  | { companyId: string; slug: string; name: string; feeAoa: number; oldFeeAoa: number; quoteId: string }
  | {
      companyId: null;
      oldFeeAoa: number;
      candidates: { company_id?: string; company_slug?: string; outcome: string; fee_aoa?: number }[];
    };

export const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 10_000;

/** A message waiting for the workflow's main loop. */
export type DeliveryInboxItem =
  | { kind: 'fleet'; event: FleetEvent }
  | { kind: 'operator'; action: OperatorAction }
  /** Request Cancellation in the Temporal UI (a cancellation of the workflow), taken as a message, never an abrupt end. */
  | { kind: 'cancel_requested' };

/**
 * What a delivery workflow run hands to the next one when it continues as new: the fields of the workflow's
 * DeliveryState (delivery-state.ts), which holds them live (the webhook-ids as a Set, the failover fields always set).
 */
export interface DeliveryContinuedState {
  /** The current status (changed through `enter`). */
  status: Status;
  /** The status the delivery stalled from: where the operator's `resume` returns it. */
  previousStatus: Status | null;
  /** The courier company booked, or to book. */
  companyId: string;
  /** The courier's job, once booked. */
  trackingRef: string | null;
  /** When the current status was entered (epoch ms): state budgets keep counting across runs. */
  enteredAt: number;
  /** The SLA deadline has stalled the delivery already (it does so once). */
  slaStalled: boolean;
  /** The courier is to be booked (entering `pending`, or after a redispatch). */
  needsDispatch: boolean;
  /** Wrong PINs since the last (re)entry into a deliverable state. */
  pinAttempts: number;
  /** Messages (fleet events, operator actions) waiting for the main loop, oldest first. */
  inbox: DeliveryInboxItem[];
  /** The most recent fleet webhook-ids (bounded), so a courier's retry still counts once after the hand-over. */
  seenWebhookIds: string[];
  /** Automatic failover: the companies the delivery moved away from, oldest first (absent before failover). */
  redispatchedFrom?: string[];
  /** When the current booking was made (epoch ms), for the assign timeout of automatic failover; null before one (absent before failover). */
  bookedAt?: number | null;
  /**
   * The courier booking's number: 1, then one more for each redispatch (automatic or an operator's/merchant's). With
   * the delivery id it is the booking's `Idempotency-Key`, the same on every retry of one booking (absent: 1).
   */
  bookingNumber?: number;
  /** Delivery attempts that failed so far (fleet `attempt_failed`; absent: 0). */
  failedAttempts?: number;
}

export interface FleetEvent {
  eventType: FleetEventType;
  occurredAt: string;
  /** The courier's payload: only the allow-listed fields (courier-payload.ts), never the PIN. */
  payload: Record<string, unknown>;
  /** Set by the API: whether the event carried the delivery's PIN. */
  pinVerified: boolean;
  /** The fleet webhook's `webhook-id`, kept in the event payload. */
  webhookId?: string;
  /**
   * The courier company that sent it (the API, the test helpers and the simulated couriers set it). When it is not the
   * delivery's company any more (automatic failover or an operator moved it on while the event was on its way), the
   * workflow records it as ignored, `superseded_booking`, and changes nothing. Absent (older senders): not checked.
   */
  companyId?: string;
}

export interface OperatorAction {
  action: OperatorActionName;
  /** With `redispatch`: book another company (must be linked to the tenant). */
  company_id?: string;
  note?: string;
}

export interface CancelRequest {
  reason?: string;
  source?: string;
}

/** A courier job to release in the background (cancel that the courier did not confirm, redispatch, operator cancel). */
export interface BookingReleaseInput {
  deliveryId: string;
  tenantId: string;
  companyId: string;
  trackingRef: string;
  /** How long to keep asking the courier before recording `delivery.booking_release_failed`. */
  retryForMs: number;
  webhooks?: { schedule?: number[] } | null;
}
export const bookingReleaseWorkflowId = (deliveryId: string, trackingRef: string) =>
  `booking-release-${deliveryId}-${trackingRef}`;
/** Default of DeliveryTimeouts.bookingReleaseRetryMs. */
export const DEFAULT_BOOKING_RELEASE_RETRY_MS = 60 * 60 * 1000;

/** What the `state` query answers (the workflow's DeliveryState, delivery-state.ts, in part). */
export interface DeliveryStateView {
  status: Status;
  previousStatus: Status | null;
  trackingRef: string | null;
  companyId: string;
}

// ApplicationFailure types of the delivery workflow and its activities (non-retryable: retrying cannot help).
/** The cancel update: the state machine does not allow it, the courier refused, or the delivery moved on meanwhile. */
export const CancellationRejected = 'CancellationRejected';
/** The confirmPayment update: the delivery is not awaiting payment. */
export const PaymentConfirmationRejected = 'PaymentConfirmationRejected';
/** dispatchDelivery: the courier refused the booking (409/422); the delivery stalls with `courier_rejected`. */
export const CourierRejected = 'CourierRejected';
/** dispatchDelivery: the delivery row is gone. */
export const DeliveryNotFound = 'DeliveryNotFound';
/** dispatchDelivery: the delivery's courier company is gone. */
export const CourierNotFound = 'CourierNotFound';

/** Fleet events from the courier (POST /v1/fleet/{slug}/events). */
export const fleetEventSignal = defineSignal<[FleetEvent]>('fleetEvent');
/** Operator recovery of a stalled delivery; sendable from the Temporal UI's signal form. */
export const operatorActionSignal = defineSignal<[OperatorAction]>('operatorAction');
/** DELETE /v1/deliveries/{id}: rejected (422) when the state machine does not allow it. */
export const cancelUpdate = defineUpdate<{ status: 'cancelled' }, [CancelRequest]>('cancel');
/** POST /v1/deliveries/{id}/payment_confirmation. */
export const confirmPaymentUpdate = defineUpdate<{ status: Status }, [{ source?: string }]>('confirmPayment');
export const stateQuery = defineQuery<DeliveryStateView>('state');

// --- Test mode (docs/test-mode.md) ----------------------------------------------------------------

/** POST /v1/test_helpers/deliveries/{id}/stall and .../expire_payment_window: what a test delivery's clock would do. */
export type TestHelperRequest = { action: 'stall'; reason: StallReason } | { action: 'expire_payment_window' };
/** The testHelper update: the delivery's status does not allow it (the API answers 409 with the current status). */
export const TestHelperRejected = 'TestHelperRejected';
/** Test helpers: rejected when the current state does not allow the request (testHelperRefusal). */
export const testHelperUpdate = defineUpdate<{ status: Status }, [TestHelperRequest]>('testHelper');

// --- Merchant recovery (POST /v1/deliveries/{id}/recover, shared/deliveries/recovery.ts) ---------------------------

/** A merchant's recovery of a stalled delivery: an operator action, recorded with source `api`. */
export interface RecoverRequest extends OperatorAction {
  /** With `mark_failed`: the `delivery.failed` payload.reason (default `merchant_request`). */
  reason?: string;
  /** With `redispatch` and no company_id: the fee ceiling and preferences of the tenant's dispatch policy (failover's rule). */
  maxFeeIncreaseAoa?: number;
  preferredCompanyIds?: string[];
}
/** The recover update: refused (details[0] `{ code }`: a RecoveryRefusal, `no_company_available` or `company_not_linked`). */
export const RecoveryRejected = 'RecoveryRejected';
export const recoverUpdate = defineUpdate<{ status: Status }, [RecoverRequest]>('recover');

// --- The recipient's answers (the tracking page with the recipient's token, docs/recipients.md) ---------------------

/** The recipientUpdate update: the delivery is over (a final status); nothing is recorded. */
export const RecipientUpdateRejected = 'RecipientUpdateRejected';
/** Records `delivery.recipient_updated` (source `recipient`) and tells the booked courier; refused in a final status. */
export const recipientUpdate = defineUpdate<{ status: Status }, [RecipientUpdate]>('recipientUpdate');

/** A recipient's answers to pass on to the booked courier, in the background (`POST {endpoint}/bookings/{ref}/updates`). */
export interface CourierUpdateInput {
  deliveryId: string;
  companyId: string;
  trackingRef: string;
  update: RecipientUpdate;
  /** How long to keep trying the courier before giving up (absent: DEFAULT_BOOKING_RELEASE_RETRY_MS). */
  retryForMs?: number;
}
export const courierUpdateWorkflowId = (deliveryId: string, eventId: string) =>
  `courier-update-${deliveryId}-${eventId}`;
