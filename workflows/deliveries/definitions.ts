// The delivery workflow's messages, as constants that the API, the worker and the admin CLI share.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { FleetEventType, OperatorActionName, Status } from './states.js';

export const TASK_QUEUE = 'deliveries';
export const deliveryWorkflowId = (deliveryId: string) => `delivery-${deliveryId}`;

/** Per-state time budgets and retry settings, passed in so tests can use seconds. */
export interface DeliveryTimeouts {
  /** How long `awaiting_payment` waits before cancelling (reason `payment_timeout`). */
  paymentWindowMs: number;
  /** Time a state may last without progress before the delivery goes to `stalled` (reason `state_timeout`). */
  stateBudgetsMs: Partial<Record<Status, number>>;
  dispatch: { maximumAttempts: number; initialIntervalMs: number; maximumIntervalMs: number };
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
}

export interface FleetEvent {
  eventType: FleetEventType;
  occurredAt: string;
  /** The courier's payload, without the PIN. */
  payload: Record<string, unknown>;
  /** Set by the API: whether the event carried the delivery's PIN. */
  pinVerified: boolean;
  /** The fleet webhook's `webhook-id`, kept in the event payload. */
  webhookId?: string;
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

export interface DeliveryState {
  status: Status;
  previousStatus: Status | null;
  trackingRef: string | null;
  companyId: string;
}

/** Fleet events from the courier (POST /v1/fleet/{slug}/events). */
export const fleetEventSignal = defineSignal<[FleetEvent]>('fleetEvent');
/** Operator recovery of a stalled delivery; sendable from the Temporal UI's signal form. */
export const operatorActionSignal = defineSignal<[OperatorAction]>('operatorAction');
/** DELETE /v1/deliveries/{id}: rejected (422) when the state machine does not allow it. */
export const cancelUpdate = defineUpdate<{ status: 'cancelled' }, [CancelRequest]>('cancel');
/** POST /v1/deliveries/{id}/payment_confirmation. */
export const confirmPaymentUpdate = defineUpdate<{ status: Status }, [{ source?: string }]>('confirmPayment');
export const stateQuery = defineQuery<DeliveryState>('state');
