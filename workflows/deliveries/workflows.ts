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
//   test deliveries only: testHelper update stall | expire_payment_window (docs/test-mode.md), as the clock would
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
  CancellationScope,
} from '@temporalio/workflow';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/deliveries/activities.js';
import { CourierSlugKey, DeliveryStatusKey } from '../../shared/search-attributes.js';
import { ignoreAlreadyStarted } from '../lib/children.js';
import { Alarm } from '../lib/alarm.js';
import { Mutex } from '../lib/mutex.js';
import {
  DEFAULT_BOOKING_RELEASE_RETRY_MS,
  bookingReleaseWorkflowId,
  DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS,
  CancellationRejected,
  CourierNotFound,
  CourierRejected,
  DeliveryNotFound,
  PaymentConfirmationRejected,
  cancelUpdate,
  confirmPaymentUpdate,
  fleetEventSignal,
  operatorActionSignal,
  stateQuery,
  type CancelRequest,
  type DeliveryInboxItem,
  type DeliveryWorkflowInput,
  type FleetEvent,
  type OperatorAction,
  type RedispatchPlan,
} from '../../shared/deliveries/definitions.js';
import {
  CANCELLABLE_STATUSES,
  FLEET_TRANSITIONS,
  STALLABLE_STATUSES,
  isFinal,
  type Status,
} from '../../shared/deliveries/vocabulary.js';
import { pickCourierPayload } from '../../shared/deliveries/courier-payload.js';
import { webhookFanoutWorkflowId } from '../../shared/webhooks/definitions.js';
import { webhookFanoutWorkflow } from '../webhooks/workflows.js';
import { bookingReleaseWorkflow } from './booking-release.js';
import { DeliveryState } from './delivery-state.js';
import { TestHelperRejected, testHelperUpdate, type TestHelperRequest } from '../../shared/deliveries/definitions.js';
import { testHelperRefusal } from '../../shared/deliveries/vocabulary.js';
import {
  CANCEL_ATTEMPT_MS,
  CANCEL_CALL_MAX_MS,
  CANCEL_MAX_ATTEMPTS,
  CANCEL_TOTAL_MS,
  DISPATCH_ATTEMPT_MS,
  RECORD_ATTEMPT_MS,
  RECORD_MAX_INTERVAL_MS,
} from '../../shared/timeouts.js';

// Short activities: a worker that dies holding one delays the delivery by its timeout, so keep it tight.
const { recordEvent, cancelBooking, findRedispatchCompany } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});
// In the lean shape (patch `lean-lifecycle`), events are written by local activities: they run inside the
// workflow task that decided them, so a fleet event costs one workflow task, and their webhooks leave from the worker
// (src/webhooks/dispatcher.ts) instead of one child workflow per event reporting back here.
const local = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});

// Automatic failover re-quotes the tenant's companies (each call bounded by the company's timeout) a few times at
// most: a failure to plan stalls the delivery for an operator rather than holding it.
const { planRedispatch } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});

// A cancellation the merchant waits on asks the courier a bounded number of times, never under the workflow's lock:
// each call at most 3 s, 3 tries, 10 s in all (then the delivery is cancelled and the release goes on in the
// background, see bookingReleaseWorkflow). DELETE /v1/deliveries/{id} waits at most 15 s for the workflow.
const { cancelBooking: askCourierToCancel } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: CANCEL_ATTEMPT_MS,
  scheduleToCloseTimeout: CANCEL_TOTAL_MS,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumAttempts: CANCEL_MAX_ATTEMPTS },
});

type Inbox = DeliveryInboxItem;

/** Wrong PINs on `delivered` before the delivery goes to `stalled` (reason `pin_attempts_exceeded`). */
const MAX_PIN_ATTEMPTS = 5;
/** Fleet events a run records with local activities; past them (a flood), regular activities (see `flooded`). */
const LOCAL_RECORDS_MAX = 50;
/** Continue-as-new waits while more messages than this are queued (the new run's input stays small). */
const MAX_CARRIED_INBOX = 100;
/** Queued fleet events the state machine ignores are recorded this many at a time (one activity per batch). */
const IGNORED_BATCH_MAX = 200;
const { recordIgnoredEvents } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});

/** Merchant webhooks (when input.webhooks is set): one fan-out child per event, abandoned; only its start is awaited. */
async function startWebhookFanout(input: DeliveryWorkflowInput, eventId: string, status: Status): Promise<void> {
  if (!input.webhooks) return;
  await startChild(webhookFanoutWorkflow, {
    workflowId: webhookFanoutWorkflowId(eventId),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      { tenantId: input.tenantId, deliveryId: input.deliveryId, eventId, schedule: input.webhooks.schedule, status },
    ],
  }).catch(ignoreAlreadyStarted); // already started (same event id): nothing to do
}

export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<{ status: Status }> {
  const { deliveryId, tenantId, timeouts } = input;
  const { dispatchDelivery } = proxyActivities<DeliveryActivities>({
    startToCloseTimeout: DISPATCH_ATTEMPT_MS,
    retry: {
      maximumAttempts: timeouts.dispatch.maximumAttempts,
      initialInterval: timeouts.dispatch.initialIntervalMs,
      maximumInterval: timeouts.dispatch.maximumIntervalMs,
      nonRetryableErrorTypes: [CourierRejected, DeliveryNotFound, CourierNotFound],
    },
  });

  // The delivery's state (delivery-state.ts; a continued run starts from what the previous run handed over) and its
  // lock: one status change at a time, updates, signals and the main loop all go through `lock.runExclusive`.
  const state = new DeliveryState(input);
  const { inbox } = state;
  const lock = new Mutex();
  /**
   * The lean shape (cost per delivery, docs/architecture.md): events written by local activities, webhooks through
   * the worker's outbox, one alarm for the deadlines. Runs recorded before it keep their shape: an activity and a
   * webhook child per event, a timer per wait.
   */
  const lean = patched('lean-lifecycle');
  /**
   * A run flooded with fleet events (more than LOCAL_RECORDS_MAX signals) records with regular activities from then
   * on. A local activity's result can reach the workflow in a later workflow task than the one that ran it, and then
   * `workflowInfo().historyLength`, which decides the continue-as-new of a long run, is not the same at that point on
   * replay; with regular activities it is. A normal lifecycle has a handful of fleet events and never gets here.
   *
   * Not behind a patch: it shipped without one (999f7b0), and the runs of that version (bbac359, flooded ones included:
   * test/fixtures/histories/bbac359/flooded.history.bin) must keep replaying. A pre-failover run flooded past
   * LOCAL_RECORDS_MAX in one run stopped replaying with that version already; no patch added now could serve both.
   */
  let fleetSignalsThisRun = 0;
  const flooded = () => fleetSignalsThisRun > LOCAL_RECORDS_MAX;
  const alarm = new Alarm();

  /** Records an event (and the status change, when `to` is given) in Postgres, then updates the workflow's state. */
  async function record(
    to: Status | null,
    eventType: string,
    payload: Record<string, unknown>,
    source: string,
    extra: { trackingRef?: string | null; companyId?: string; quotedFeeAoa?: number } = {},
  ) {
    const eventId = uuid4();
    const event = {
      deliveryId,
      tenantId,
      eventId,
      eventType,
      occurredAt: new Date().toISOString(),
      source,
      payload,
      toStatus: to,
      ...extra,
    };
    if (!lean) await recordEvent(event);
    else await (flooded() ? recordEvent : local.recordEvent)({ ...event, webhooks: input.webhooks ?? null });
    if (to && to !== state.status) {
      state.enter(to);
      upsertSearchAttributes([{ key: DeliveryStatusKey, value: state.status }]);
    }
    if (!lean && !payload.ignored) await startWebhookFanout(input, eventId, state.status);
  }

  const stall = (reason: string, extra: Record<string, unknown> = {}) => {
    state.previousStatus = state.status;
    return record('stalled', 'delivery.stalled', { reason, previous_status: state.status, ...extra }, 'system');
  };

  /**
   * Automatic failover (docs/deliveries.md), when the tenant's policy asks for it (`input.redispatch`): a failure before
   * pickup rebooks with the next company within the fee ceiling instead of stalling; when none qualifies, or the
   * delivery has moved `maxRedispatches` times, it stalls with what was tried. Call under the lock. Returns false, doing
   * nothing, without the policy or after pickup: the caller goes on as design.md says.
   */
  async function failover(reason: string, extra: Record<string, unknown> = {}): Promise<boolean> {
    const policy = input.redispatch;
    if (!policy || (state.status !== 'pending' && state.status !== 'assigned')) return false;
    const tried = [...state.redispatchedFrom, state.companyId];
    if (state.redispatchedFrom.length >= policy.maxRedispatches) {
      await stall(reason, { ...extra, redispatch: { outcome: 'max_redispatches_reached', tried_company_ids: tried } });
      return true;
    }
    let plan: RedispatchPlan;
    try {
      plan = await planRedispatch({
        deliveryId,
        tenantId,
        excludeCompanyIds: tried,
        maxFeeIncreaseAoa: policy.maxFeeIncreaseAoa,
        preferredCompanyIds: policy.preferredCompanyIds,
      });
    } catch {
      await stall(reason, { ...extra, redispatch: { outcome: 'planning_failed', tried_company_ids: tried } });
      return true;
    }
    if (plan.companyId === null) {
      await stall(reason, {
        ...extra,
        redispatch: { outcome: 'no_company_qualifies', tried_company_ids: tried, candidates: plan.candidates },
      });
      return true;
    }
    await releaseBooking(); // the first booking, in the background (bounded retries)
    const from = state.companyId;
    state.redispatchedFrom.push(from);
    state.companyId = plan.companyId;
    state.nextBooking();
    upsertSearchAttributes([{ key: CourierSlugKey, value: plan.slug }]);
    await record(
      'pending',
      'delivery.redispatched',
      {
        ...extra,
        reason,
        automatic: true,
        from_company_id: from,
        to_company_id: plan.companyId,
        old_fee_aoa: plan.oldFeeAoa,
        new_fee_aoa: plan.feeAoa,
      },
      'system',
      { companyId: plan.companyId, trackingRef: null, quotedFeeAoa: plan.feeAoa },
    );
    return true;
  }

  /** Releases a courier job in the background (bookingReleaseWorkflow, an abandoned child); only its start is awaited. */
  async function startBookingRelease(company: string, ref: string) {
    await startChild(bookingReleaseWorkflow, {
      workflowId: bookingReleaseWorkflowId(deliveryId, ref),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          deliveryId,
          tenantId,
          companyId: company,
          trackingRef: ref,
          retryForMs: timeouts.bookingReleaseRetryMs ?? DEFAULT_BOOKING_RELEASE_RETRY_MS,
          webhooks: input.webhooks,
        },
      ],
    }).catch(ignoreAlreadyStarted); // already started for this job: nothing to do
  }

  /** Tells the courier a booked job is off (after a cancel that raced a dispatch, an operator's cancel or redispatch), without waiting on it. */
  async function releaseBooking() {
    if (!state.trackingRef) return;
    if (patched('cancel-release-in-background')) return startBookingRelease(state.companyId, state.trackingRef);
    // Histories recorded before the release moved to the background replay this way.
    await cancelBooking({ companyId: state.companyId, trackingRef: state.trackingRef }).catch(() => 'refused');
  }

  /**
   * DELETE /v1/deliveries/{id} (docs/deliveries.md#cancellation). The courier is asked outside the lock, so fleet
   * events and the main loop never wait on it, and for a bounded time: a refusal rejects the cancellation; no answer
   * cancels the delivery and leaves the release to the background.
   */
  async function cancel(request: CancelRequest): Promise<{ status: 'cancelled' }> {
    const rejected = (message: string) => ApplicationFailure.nonRetryable(message, CancellationRejected);
    const recordCancelled = async (extra: Record<string, unknown> = {}) => {
      await record(
        'cancelled',
        'delivery.cancelled',
        { reason: request.reason ?? 'merchant_request', previous_status: state.status, ...extra },
        request.source ?? 'api',
      );
      return { status: 'cancelled' as const };
    };
    if (!patched('cancel-courier-outside-lock')) {
      // Histories recorded before the courier was asked outside the lock replay this way.
      return lock.runExclusive(async () => {
        if (!CANCELLABLE_STATUSES.includes(state.status))
          throw rejected(`A delivery in status ${state.status} cannot be cancelled.`);
        if (
          state.trackingRef &&
          (await cancelBooking({ companyId: state.companyId, trackingRef: state.trackingRef })) === 'refused'
        )
          throw rejected('The courier refused to cancel the job.');
        return recordCancelled();
      });
    }
    // 1. Under the lock: with no courier job booked yet, the delivery is cancelled at once.
    const booked = await lock.runExclusive(async () => {
      if (!CANCELLABLE_STATUSES.includes(state.status))
        throw rejected(`A delivery in status ${state.status} cannot be cancelled.`);
      if (!state.trackingRef) return recordCancelled().then(() => null);
      return { companyId: state.companyId, trackingRef: state.trackingRef };
    });
    if (!booked) return { status: 'cancelled' };
    // 2. Outside the lock: ask the courier, a bounded number of times.
    let answer: 'cancelled' | 'refused' | 'no_answer';
    try {
      answer = await askCourierToCancel({ ...booked, maxTimeoutMs: CANCEL_CALL_MAX_MS });
    } catch {
      answer = 'no_answer';
    }
    if (answer === 'refused') throw rejected('The courier refused to cancel the job.');
    // 3. Under the lock again: a fleet event or a deadline may have moved the delivery on meanwhile.
    return lock.runExclusive(async () => {
      if (
        !CANCELLABLE_STATUSES.includes(state.status) ||
        state.trackingRef !== booked.trackingRef ||
        state.companyId !== booked.companyId
      ) {
        throw rejected(`The delivery moved on (now ${state.status}) while the courier was being asked to cancel.`);
      }
      const result = await recordCancelled({ booking_release: answer === 'cancelled' ? 'confirmed' : 'retrying' });
      if (answer === 'no_answer') await startBookingRelease(booked.companyId, booked.trackingRef);
      return result;
    });
  }

  // --- Messages -------------------------------------------------------------------------------

  setHandler(stateQuery, () => state.view());
  // A courier retrying an event after a lost answer sends the same webhook-id: it counts once.
  setHandler(fleetEventSignal, (event) => {
    fleetSignalsThisRun++;
    if (event.webhookId && state.seenWebhookIds.has(event.webhookId)) return;
    if (event.webhookId) state.seenWebhookIds.add(event.webhookId);
    inbox.push({ kind: 'fleet', event });
  });
  setHandler(operatorActionSignal, (action) => void inbox.push({ kind: 'operator', action }));

  setHandler(cancelUpdate, (request: CancelRequest) => cancel(request), {
    validator: (_request: CancelRequest) => {
      if (!CANCELLABLE_STATUSES.includes(state.status))
        throw new Error(`A delivery in status ${state.status} cannot be cancelled.`);
    },
  });

  setHandler(
    confirmPaymentUpdate,
    (request) =>
      lock.runExclusive(async () => {
        if (state.status !== 'awaiting_payment')
          throw ApplicationFailure.nonRetryable(
            `The delivery is ${state.status}, not awaiting payment.`,
            PaymentConfirmationRejected,
          );
        await record('pending', 'delivery.payment_confirmed', {}, request.source ?? 'api');
        state.needsDispatch = true;
        return { status: state.status };
      }),
    {
      validator: (_request: { source?: string }) => {
        if (state.status !== 'awaiting_payment')
          throw new Error(`The delivery is ${state.status}, not awaiting payment.`);
      },
    },
  );

  // --- Test mode ------------------------------------------------------------------------------
  // The test helpers stall and expire_payment_window (docs/test-mode.md): at once, what a state budget or the payment
  // window does when it runs out (the events a merchant's integration must handle), recorded with source
  // `test_helper`. The API offers them for test deliveries only. A handler adds no command to recorded histories.
  setHandler(
    testHelperUpdate,
    (request) =>
      lock.runExclusive(async () => {
        const refusal = testHelperRefusal(state.status, request.action);
        if (refusal) throw ApplicationFailure.nonRetryable(refusal, TestHelperRejected, { status: state.status });
        const previous = state.status;
        if (request.action === 'expire_payment_window') {
          await record(
            'cancelled',
            'delivery.cancelled',
            { reason: 'payment_timeout', previous_status: previous },
            'test_helper',
          );
        } else {
          if (request.reason === 'sla_deadline_passed') state.slaStalled = true;
          state.previousStatus = previous;
          await record(
            'stalled',
            'delivery.stalled',
            { reason: request.reason, previous_status: previous },
            'test_helper',
          );
        }
        return { status: state.status };
      }),
    {
      validator: (request: TestHelperRequest) => {
        const refusal = testHelperRefusal(state.status, request.action);
        if (refusal) throw new Error(refusal);
      },
    },
  );

  // --- Transitions ----------------------------------------------------------------------------

  async function dispatch() {
    state.needsDispatch = false;
    let booking: Awaited<ReturnType<typeof dispatchDelivery>>;
    try {
      booking = await dispatchDelivery({ deliveryId, bookingNumber: state.bookingNumber });
    } catch (err) {
      const failure = err instanceof Error ? (err.cause as ApplicationFailure | undefined) : undefined;
      const reason = failure?.type === CourierRejected ? 'courier_rejected' : 'dispatch_failed';
      // What the courier answered (the HTTP status of a refusal, the last error), for the operator and the merchant.
      const status = (failure?.details?.[0] as { status?: number } | undefined)?.status;
      const answer = { courier_answer: { message: failure?.message ?? String(err), ...(status ? { status } : {}) } };
      await lock.runExclusive(async () => {
        if (state.status === 'pending' && !(await failover(reason, answer))) await stall(reason, answer);
      });
      return;
    }
    await lock.runExclusive(async () => {
      state.trackingRef = booking.tracking_ref;
      if (state.status !== 'pending') return releaseBooking(); // cancelled while the booking was under way
      if (input.redispatch) state.bookedAt = Date.now(); // the assign timeout counts from here
      await record(
        null,
        'delivery.dispatched',
        { tracking_ref: booking.tracking_ref, courier: booking.courierName, booking_status: booking.status },
        'system',
        {
          trackingRef: booking.tracking_ref,
        },
      );
      if (booking.status === 'accepted')
        await record('assigned', 'delivery.assigned', { tracking_ref: booking.tracking_ref }, 'system');
    });
  }

  /**
   * A fleet event's recorded payload. The courier's fields go under `courier` (allow-listed again here: a signal may
   * come from an older API); the top-level fields are the service's own, set after copying, so a courier cannot
   * forge `ignored` & co.
   */
  const fleetPayload = (event: FleetEvent): Record<string, unknown> => ({
    courier: pickCourierPayload(event.payload),
    courier_occurred_at: event.occurredAt,
    ...(event.webhookId ? { webhook_id: event.webhookId } : {}),
  });

  /**
   * An event from a company the delivery has moved away from (automatic failover, an operator's redispatch) while it was
   * on its way: the API passed it before the move, or a simulated courier signalled it. It is about the old job, never
   * the new booking. Events that name no company (older senders) are not checked.
   */
  const superseded = (event: FleetEvent) => event.companyId !== undefined && event.companyId !== state.companyId;

  /** Why a fleet event changes nothing now, or null when the state machine takes it. */
  const ignoredBecause = (event: FleetEvent): string | null => {
    if (superseded(event)) return 'superseded_booking';
    return FLEET_TRANSITIONS[event.eventType].from.includes(state.status) ? null : `not_allowed_from_${state.status}`;
  };

  async function onFleetEvent(event: FleetEvent) {
    const rule = FLEET_TRANSITIONS[event.eventType];
    const payload = fleetPayload(event);
    const ignore = (reason: string, extra: Record<string, unknown> = {}) =>
      record(
        null,
        rule.eventType,
        { ...payload, ...extra, ignored: true, reason, status: state.status },
        'fleet_webhook',
      );
    const refused = ignoredBecause(event);
    if (refused) return ignore(refused);
    // A courier that fails the job before pickup: with automatic failover, the next company takes it. The outcome
    // (delivery.redispatched, or delivery.stalled when no company qualifies) keeps the fleet webhook-id, as any
    // recorded fleet event does, so the test helper that sent it (and an operator) finds what it became.
    if (event.eventType === 'failed') {
      const extra = { courier_payload: payload.courier, ...(event.webhookId ? { webhook_id: event.webhookId } : {}) };
      if (await failover('courier_failed', extra)) return;
    }
    const pinChecked = event.eventType === 'delivered' && input.requireDeliveryPin;
    if (pinChecked && !event.pinVerified) {
      await ignore('pin_mismatch', { pin_verified: false });
      // Guessing the 4-digit PIN stops after MAX_PIN_ATTEMPTS wrong ones: the delivery stalls for an operator.
      if (patched('fleet-pin-attempts') && ++state.pinAttempts >= MAX_PIN_ATTEMPTS)
        await stall('pin_attempts_exceeded');
      return;
    }
    await record(rule.to, rule.eventType, pinChecked ? { ...payload, pin_verified: true } : payload, 'fleet_webhook');
    if (rule.to === 'pending') state.needsDispatch = true;
  }

  /** How many messages at the head of the inbox are fleet events the current state does not allow (at most a batch). */
  function ignorableAtHead(): number {
    let n = 0;
    while (n < inbox.length && n < IGNORED_BATCH_MAX) {
      const item = inbox[n];
      if (item.kind !== 'fleet' || ignoredBecause(item.event) === null) break;
      n++;
    }
    return n;
  }

  /** A flood (several such events queued): whether to record them together, one activity for the batch. */
  const floodAtHead = () => ignorableAtHead() >= 2 && patched('fleet-batch-ignored');

  /** Records the ignorable head of the inbox (ignorableAtHead) as ignored events, in one activity. Call under the lock. */
  async function ignoreQueuedFleetEvents(): Promise<void> {
    const n = ignorableAtHead();
    if (n === 0) return; // the state changed while waiting for the lock: the main loop takes them one by one
    const occurredAt = new Date().toISOString();
    const events = inbox.splice(0, n).map((item) => {
      const event = (item as Extract<Inbox, { kind: 'fleet' }>).event;
      return {
        eventId: uuid4(),
        eventType: FLEET_TRANSITIONS[event.eventType].eventType,
        occurredAt,
        source: 'fleet_webhook',
        payload: { ...fleetPayload(event), ignored: true, reason: ignoredBecause(event), status: state.status },
      };
    });
    await (lean && !flooded() ? local.recordIgnoredEvents : recordIgnoredEvents)({ deliveryId, tenantId, events });
  }

  async function onOperatorAction(action: OperatorAction) {
    const payload = { action: action.action, note: action.note ?? null };
    if (state.status !== 'stalled') {
      return record(
        null,
        'delivery.operator_action',
        { ...payload, ignored: true, reason: `not_stalled_${state.status}` },
        'operator',
      );
    }
    switch (action.action) {
      case 'redispatch': {
        if (action.company_id && action.company_id !== state.companyId) {
          const company = await findRedispatchCompany({ tenantId, companyId: action.company_id });
          if (!company)
            return record(
              null,
              'delivery.operator_action',
              { ...payload, ignored: true, reason: 'unknown_company' },
              'operator',
            );
          await releaseBooking();
          state.companyId = company.companyId;
          upsertSearchAttributes([{ key: CourierSlugKey, value: company.slug }]);
        }
        state.nextBooking();
        state.pinAttempts = 0;
        return record('pending', 'delivery.redispatched', { ...payload, company_id: state.companyId }, 'operator', {
          companyId: state.companyId,
          trackingRef: null,
        });
      }
      case 'resume': {
        state.pinAttempts = 0; // the operator gives the driver new attempts
        const to = state.previousStatus ?? 'pending';
        await record(to, 'delivery.resumed', { ...payload, status: state.previousStatus }, 'operator');
        // Back in `pending` with no courier job (the dispatch failed or was rejected, or the budget ran out before
        // a booking): book again, as a redispatch to the same company would. With a job booked, it waits for the
        // courier's answer again. Histories recorded before this replay without the new dispatch.
        if (to === 'pending' && !state.trackingRef && patched('resume-redispatches')) state.needsDispatch = true;
        return;
      }
      case 'mark_failed':
        return record('failed', 'delivery.failed', { ...payload, reason: 'operator' }, 'operator');
      case 'cancel':
        await releaseBooking();
        return record('cancelled', 'delivery.cancelled', { ...payload, reason: 'operator' }, 'operator');
    }
  }

  /** The state's budget or the SLA ran out while in `seen`: the payment window cancels, anything else stalls. */
  async function onDeadline(deadline: { reason: string }, seen: Status) {
    await lock.runExclusive(async () => {
      if (state.status !== seen) return;
      if (deadline.reason === 'payment_timeout')
        await record(
          'cancelled',
          'delivery.cancelled',
          { reason: 'payment_timeout', previous_status: state.status },
          'system',
        );
      else if (deadline.reason === 'assign_timeout') {
        if (!(await failover('assign_timeout'))) await stall('assign_timeout');
      } else {
        if (deadline.reason === 'sla_deadline_passed') state.slaStalled = true;
        await stall(deadline.reason);
      }
    });
  }

  /** Milliseconds until the current state's budget (or the SLA) runs out, and what happens then. */
  function nextDeadline(): { ms: number; reason: string } | null {
    if (state.status === 'awaiting_payment')
      return { ms: state.enteredAt + timeouts.paymentWindowMs - Date.now(), reason: 'payment_timeout' };
    if (!STALLABLE_STATUSES.includes(state.status)) return null;
    let deadline: { ms: number; reason: string } | null = null;
    const budget = timeouts.stateBudgetsMs[state.status];
    if (budget !== undefined) deadline = { ms: state.enteredAt + budget - Date.now(), reason: 'state_timeout' };
    if (input.slaDeadlineAt && !state.slaStalled) {
      const ms = Date.parse(input.slaDeadlineAt) - Date.now();
      if (!deadline || ms < deadline.ms) deadline = { ms, reason: 'sla_deadline_passed' };
    }
    // Automatic failover: a booking the courier took as `pending` must be assigned within the policy's time.
    if (input.redispatch && state.status === 'pending' && state.trackingRef && state.bookedAt !== null) {
      const ms = state.bookedAt + input.redispatch.assignTimeoutMs - Date.now();
      if (!deadline || ms < deadline.ms) deadline = { ms, reason: 'assign_timeout' };
    }
    return deadline;
  }

  // The first run announces the creation (recorded by the API); a continued run must not announce it again.
  if (!input.continued) {
    if (!lean) await startWebhookFanout(input, input.createdEventId, input.initialStatus);
    else if (input.webhooks)
      await local.announceEvent({ deliveryId, tenantId, eventId: input.createdEventId, webhooks: input.webhooks });
  }

  /** Whether this run's history is long enough to hand over to a new run: Temporal suggests it, or the input's limit. */
  function historyIsLong(): boolean {
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength >= (input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS)
    );
  }

  /**
   * Request Cancellation in the Temporal UI (docs/operations.md "Temporal UI actions"): the usual cancellation rules.
   * Cancellable (awaiting_payment, pending, assigned): cancelled as by DELETE /v1/deliveries/{id}, the courier asked
   * the same way; stalled: an operator's cancel; otherwise, or when the courier refuses: recorded as an ignored operator
   * action, and the delivery goes on.
   */
  async function onCancelRequested() {
    const payload = { action: 'cancel', note: 'Request Cancellation in the Temporal UI' };
    const ignore = (reason: string) =>
      lock.runExclusive(() =>
        record(null, 'delivery.operator_action', { ...payload, ignored: true, reason }, 'operator'),
      );
    if (state.status === 'stalled')
      return lock.runExclusive(() => onOperatorAction({ action: 'cancel', note: payload.note }));
    if (!CANCELLABLE_STATUSES.includes(state.status)) return ignore(`not_cancellable_${state.status}`);
    try {
      await cancel({ reason: 'operator', source: 'operator' });
    } catch (err) {
      await ignore(
        (err as Error).message === '' ? 'cancellation_rejected' : `cancellation_rejected: ${(err as Error).message}`,
      );
    }
  }

  /** The next message of the inbox, taken under the lock (a cancellation request takes it itself). */
  async function take(next: Inbox) {
    if (next.kind === 'cancel_requested') return onCancelRequested();
    return lock.runExclusive(() => (next.kind === 'fleet' ? onFleetEvent(next.event) : onOperatorAction(next.action)));
  }

  // A cancellation of the workflow is queued as a message; the delivery's own steps are never interrupted by it.
  CancellationScope.current().cancelRequested.catch(() => void inbox.push({ kind: 'cancel_requested' }));
  return CancellationScope.nonCancellable(runToTheEnd);

  // --- Main loop ------------------------------------------------------------------------------

  async function runToTheEnd(): Promise<{ status: Status }> {
    while (!isFinal(state.status)) {
      // A long-lived delivery (a courier flooding it with events, say) continues as new before its history grows too
      // long: same workflow id, so the API and the worker keep finding it (signals, queries and updates go to the
      // latest run); the state travels in the input. Only between steps, with every handler done and a small inbox.
      if (inbox.length <= MAX_CARRIED_INBOX && historyIsLong() && patched('fleet-continue-as-new')) {
        await condition(allHandlersFinished);
        if (!isFinal(state.status) && !lock.isLocked() && inbox.length <= MAX_CARRIED_INBOX) {
          const continueAsNew = makeContinueAsNewFunc<typeof deliveryWorkflow>({
            typedSearchAttributes: workflowInfo().typedSearchAttributes,
          });
          await continueAsNew({
            ...input,
            continued: state.handOver(),
          });
        }
        continue;
      }
      if (state.needsDispatch && state.status === 'pending') {
        await dispatch();
        continue;
      }
      const deadline = nextDeadline();
      const seen = state.status;
      const ready = () =>
        inbox.length > 0 || state.status !== seen || (state.needsDispatch && state.status === 'pending');
      if (lean) {
        // One alarm for the state budgets and the SLA (workflows/lib/alarm.ts): a status change arms no new timer.
        if (deadline) alarm.set(Date.now() + Math.max(deadline.ms, 1));
        await condition(() => ready() || alarm.ringing);
        if (alarm.take()) {
          const due = nextDeadline();
          if (due && due.ms <= 0 && state.status === seen) await onDeadline(due, seen);
          continue; // a deadline that moved later: armed again at the top
        }
      } else if (!(await condition(ready, deadline ? Math.max(deadline.ms, 1) : undefined)) && deadline) {
        await onDeadline(deadline, seen); // runs recorded before the alarm: one timer per wait
        continue;
      }
      if (floodAtHead()) {
        await lock.runExclusive(ignoreQueuedFleetEvents);
        continue;
      }
      const next = inbox.shift();
      if (next) await take(next);
    }

    // Fleet events that arrived with the final transition are recorded as ignored.
    while (inbox.length > 0) {
      if (floodAtHead()) {
        await lock.runExclusive(ignoreQueuedFleetEvents);
        continue;
      }
      const next = inbox.shift()!;
      if (next.kind !== 'cancel_requested') await take(next); // a cancellation asked for after the end changes nothing
    }
    await condition(allHandlersFinished);
    return { status: state.status };
  }
}
