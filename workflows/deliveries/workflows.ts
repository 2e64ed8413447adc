// One workflow per delivery (`delivery-<uuid>`): it owns the delivery's state and is the only writer
// of status changes. It reads like design.md's lifecycle table:
//
//   awaiting_payment --payment confirmed--> pending          (window elapses -> cancelled, payment_timeout)
//   pending --dispatch books the courier--> pending          (delivery.dispatched; `accepted` -> assigned)
//   pending --fleet assigned--> assigned --pickup_ready--> pickup_ready --in_transit--> in_transit
//   in_transit --out_for_delivery--> out_for_delivery --delivered (PIN when required)--> delivered
//   any non-final --fleet failed--> failed
//   awaiting_payment|pending|assigned --cancel update--> cancelled
//   pending..out_for_delivery --dispatch exhausted | courier rejected | state budget | SLA--> stalled
//   stalled --operator: redispatch | resume | mark_failed | cancel--> per action
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/deliveries/activities.js';
import { CourierSlugKey, DeliveryStatusKey } from '../search-attributes.js';
import {
  cancelUpdate,
  confirmPaymentUpdate,
  fleetEventSignal,
  operatorActionSignal,
  stateQuery,
  type CancelRequest,
  type DeliveryWorkflowInput,
  type FleetEvent,
  type OperatorAction,
} from './definitions.js';
import { CANCELLABLE_STATUSES, FLEET_TRANSITIONS, STALLABLE_STATUSES, isFinal, type Status } from './states.js';
import { webhookFanoutWorkflowId } from '../webhooks/definitions.js';
import { webhookFanoutWorkflow } from '../webhooks/workflows.js';

// Short activities: a worker that dies holding one delays the delivery by its timeout, so keep it tight.
const { recordEvent, cancelBooking, findRedispatchCompany } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

type Inbox = { kind: 'fleet'; event: FleetEvent } | { kind: 'operator'; action: OperatorAction };

/** Merchant webhooks (when input.webhooks is set): one fan-out child per event, abandoned; only its start is awaited. */
async function startWebhookFanout(input: DeliveryWorkflowInput, eventId: string, status: Status): Promise<void> {
  if (!input.webhooks) return;
  await startChild(webhookFanoutWorkflow, {
    workflowId: webhookFanoutWorkflowId(eventId),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [{ tenantId: input.tenantId, deliveryId: input.deliveryId, eventId, schedule: input.webhooks.schedule, status }],
  }).catch(() => undefined); // already started (same event id): nothing to do
}

export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<{ status: Status }> {
  const { deliveryId, tenantId, timeouts } = input;
  const { dispatchDelivery } = proxyActivities<DeliveryActivities>({
    startToCloseTimeout: '15s',
    retry: {
      maximumAttempts: timeouts.dispatch.maximumAttempts,
      initialInterval: timeouts.dispatch.initialIntervalMs,
      maximumInterval: timeouts.dispatch.maximumIntervalMs,
      nonRetryableErrorTypes: ['CourierRejected', 'DeliveryNotFound', 'CourierNotFound'],
    },
  });

  let status: Status = input.initialStatus;
  let previousStatus: Status | null = null;
  let companyId = input.companyId;
  let trackingRef: string | null = null;
  let enteredAt = Date.now();
  let slaStalled = false;
  let needsDispatch = status === 'pending';
  const inbox: Inbox[] = [];

  // One status change at a time: updates, signals and the main loop all go through `exclusive`.
  let busy = false;
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await condition(() => !busy);
    busy = true;
    try {
      return await fn();
    } finally {
      busy = false;
    }
  }

  /** Records an event (and the status change, when `to` is given) in Postgres, then updates the workflow's state. */
  async function record(to: Status | null, eventType: string, payload: Record<string, unknown>, source: string, extra: { trackingRef?: string | null; companyId?: string } = {}) {
    const eventId = uuid4();
    await recordEvent({
      deliveryId,
      tenantId,
      eventId,
      eventType,
      occurredAt: new Date().toISOString(),
      source,
      payload,
      toStatus: to,
      ...extra,
    });
    if (to && to !== status) {
      status = to;
      enteredAt = Date.now();
      upsertSearchAttributes([{ key: DeliveryStatusKey, value: status }]);
    }
    if (!payload.ignored) await startWebhookFanout(input, eventId, status);
  }

  const stall = (reason: string) => {
    previousStatus = status;
    return record('stalled', 'delivery.stalled', { reason, previous_status: status }, 'system');
  };

  /** Best effort: tell the courier a booked job is off (after a cancel that raced a dispatch, or an operator's cancel). */
  async function releaseBooking() {
    if (!trackingRef) return;
    await cancelBooking({ companyId, trackingRef }).catch(() => 'refused');
  }

  // --- Messages -------------------------------------------------------------------------------

  setHandler(stateQuery, () => ({ status, previousStatus, trackingRef, companyId }));
  // A courier retrying an event after a lost answer sends the same webhook-id: it counts once.
  const seenWebhookIds = new Set<string>();
  setHandler(fleetEventSignal, (event) => {
    if (event.webhookId && seenWebhookIds.has(event.webhookId)) return;
    if (event.webhookId) seenWebhookIds.add(event.webhookId);
    inbox.push({ kind: 'fleet', event });
  });
  setHandler(operatorActionSignal, (action) => void inbox.push({ kind: 'operator', action }));

  setHandler(
    cancelUpdate,
    (request: CancelRequest) =>
      exclusive(async () => {
        if (!CANCELLABLE_STATUSES.includes(status)) {
          throw ApplicationFailure.nonRetryable(`A delivery in status ${status} cannot be cancelled.`, 'CancellationRejected');
        }
        if (trackingRef && (await cancelBooking({ companyId, trackingRef })) === 'refused') {
          throw ApplicationFailure.nonRetryable('The courier refused to cancel the job.', 'CancellationRejected');
        }
        await record('cancelled', 'delivery.cancelled', { reason: request.reason ?? 'merchant_request', previous_status: status }, request.source ?? 'api');
        return { status: 'cancelled' as const };
      }),
    {
      validator: (_request: CancelRequest) => {
        if (!CANCELLABLE_STATUSES.includes(status)) throw new Error(`A delivery in status ${status} cannot be cancelled.`);
      },
    },
  );

  setHandler(
    confirmPaymentUpdate,
    (request) =>
      exclusive(async () => {
        if (status !== 'awaiting_payment') throw ApplicationFailure.nonRetryable(`The delivery is ${status}, not awaiting payment.`, 'PaymentConfirmationRejected');
        await record('pending', 'delivery.payment_confirmed', {}, request.source ?? 'api');
        needsDispatch = true;
        return { status };
      }),
    {
      validator: (_request: { source?: string }) => {
        if (status !== 'awaiting_payment') throw new Error(`The delivery is ${status}, not awaiting payment.`);
      },
    },
  );

  // --- Transitions ----------------------------------------------------------------------------

  async function dispatch() {
    needsDispatch = false;
    let booking: Awaited<ReturnType<typeof dispatchDelivery>>;
    try {
      booking = await dispatchDelivery({ deliveryId });
    } catch (err) {
      const rejected = err instanceof Error && (err.cause as ApplicationFailure | undefined)?.type === 'CourierRejected';
      await exclusive(async () => {
        if (status === 'pending') await stall(rejected ? 'courier_rejected' : 'dispatch_failed');
      });
      return;
    }
    await exclusive(async () => {
      trackingRef = booking.tracking_ref;
      if (status !== 'pending') return releaseBooking(); // cancelled while the booking was under way
      await record(null, 'delivery.dispatched', { tracking_ref: booking.tracking_ref, courier: booking.courierName, booking_status: booking.status }, 'system', {
        trackingRef: booking.tracking_ref,
      });
      if (booking.status === 'accepted') await record('assigned', 'delivery.assigned', { tracking_ref: booking.tracking_ref }, 'system');
    });
  }

  async function onFleetEvent(event: FleetEvent) {
    const rule = FLEET_TRANSITIONS[event.eventType];
    const payload = { ...event.payload, ...(event.webhookId ? { webhook_id: event.webhookId } : {}) };
    const ignore = (reason: string) => record(null, rule.eventType, { ...payload, ignored: true, reason, status }, 'fleet_webhook');
    if (!rule.from.includes(status)) return ignore(`not_allowed_from_${status}`);
    if (event.eventType === 'delivered' && input.requireDeliveryPin && !event.pinVerified) return ignore('pin_mismatch');
    await record(rule.to, rule.eventType, payload, 'fleet_webhook');
    if (rule.to === 'pending') needsDispatch = true;
  }

  async function onOperatorAction(action: OperatorAction) {
    const payload = { action: action.action, note: action.note ?? null };
    if (status !== 'stalled') {
      return record(null, 'delivery.operator_action', { ...payload, ignored: true, reason: `not_stalled_${status}` }, 'operator');
    }
    switch (action.action) {
      case 'redispatch': {
        if (action.company_id && action.company_id !== companyId) {
          const company = await findRedispatchCompany({ tenantId, companyId: action.company_id });
          if (!company) return record(null, 'delivery.operator_action', { ...payload, ignored: true, reason: 'unknown_company' }, 'operator');
          await releaseBooking();
          companyId = company.companyId;
          upsertSearchAttributes([{ key: CourierSlugKey, value: company.slug }]);
        }
        trackingRef = null;
        needsDispatch = true;
        return record('pending', 'delivery.redispatched', { ...payload, company_id: companyId }, 'operator', { companyId, trackingRef: null });
      }
      case 'resume':
        return record(previousStatus ?? 'pending', 'delivery.resumed', { ...payload, status: previousStatus }, 'operator');
      case 'mark_failed':
        return record('failed', 'delivery.failed', { ...payload, reason: 'operator' }, 'operator');
      case 'cancel':
        await releaseBooking();
        return record('cancelled', 'delivery.cancelled', { ...payload, reason: 'operator' }, 'operator');
    }
  }

  /** Milliseconds until the current state's budget (or the SLA) runs out, and what happens then. */
  function nextDeadline(): { ms: number; reason: string } | null {
    if (status === 'awaiting_payment') return { ms: enteredAt + timeouts.paymentWindowMs - Date.now(), reason: 'payment_timeout' };
    if (!STALLABLE_STATUSES.includes(status)) return null;
    let deadline: { ms: number; reason: string } | null = null;
    const budget = timeouts.stateBudgetsMs[status];
    if (budget !== undefined) deadline = { ms: enteredAt + budget - Date.now(), reason: 'state_timeout' };
    if (input.slaDeadlineAt && !slaStalled) {
      const ms = Date.parse(input.slaDeadlineAt) - Date.now();
      if (!deadline || ms < deadline.ms) deadline = { ms, reason: 'sla_deadline_passed' };
    }
    return deadline;
  }

  await startWebhookFanout(input, input.createdEventId, input.initialStatus);

  // --- Main loop ------------------------------------------------------------------------------

  while (!isFinal(status)) {
    if (needsDispatch && status === 'pending') {
      await dispatch();
      continue;
    }
    const deadline = nextDeadline();
    const seen = status;
    const woke = await condition(
      () => inbox.length > 0 || status !== seen || (needsDispatch && status === 'pending'),
      deadline ? Math.max(deadline.ms, 1) : undefined,
    );
    if (!woke && deadline) {
      await exclusive(async () => {
        if (status !== seen) return;
        if (deadline.reason === 'payment_timeout') await record('cancelled', 'delivery.cancelled', { reason: 'payment_timeout', previous_status: status }, 'system');
        else {
          if (deadline.reason === 'sla_deadline_passed') slaStalled = true;
          await stall(deadline.reason);
        }
      });
      continue;
    }
    const next = inbox.shift();
    if (next) await exclusive(() => (next.kind === 'fleet' ? onFleetEvent(next.event) : onOperatorAction(next.action)));
  }

  // Fleet events that arrived with the final transition are recorded as ignored.
  while (inbox.length > 0) {
    const next = inbox.shift()!;
    await exclusive(() => (next.kind === 'fleet' ? onFleetEvent(next.event) : onOperatorAction(next.action)));
  }
  await condition(allHandlersFinished);
  return { status };
}
