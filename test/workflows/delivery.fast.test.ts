// The fast workflow tier: the delivery workflow's timing rules (payment window, state budgets, SLA, dispatch
// retries, operator actions, cancel/dispatch races, PIN attempts, continue-as-new) on the run's real Temporal dev
// server, with the activities replaced by in-memory fakes (test/helpers/fake-activities.ts) and budgets of
// milliseconds. Every test asserts the exact events recorded and the status reached, never a duration.
// The end-to-end tests (test/deliveries/lifecycle.test.ts) cover the same rules through the API, Postgres and the simulator.
import { WorkflowContinuedAsNewError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { temporal as proto } from '@temporalio/proto';
import { describe, it } from 'vitest';
import {
  bookingReleaseWorkflowId,
  cancelUpdate,
  confirmPaymentUpdate,
  operatorActionSignal,
  stateQuery,
} from '../../shared/deliveries/definitions.js';
import { bookingReleaseWorkflow } from '../../workflows/deliveries/booking-release.js';
import { courier, gatedDispatch, trackingRefOf } from '../helpers/fake-activities.js';
import { env, startDelivery, stateWhen, stalledEvent, types, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

describe.concurrent('delivery workflow, fast tier (fake activities)', () => {
  it('a booking accepted at once is dispatched and assigned; fleet events take it to delivered', async ({ expect }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted') });
    await d.waitFor('delivery.assigned');
    for (const step of ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered'] as const) await d.fleet(step);
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
    const events = env.fakes.eventsOf(d.id);
    expect(types(events)).toEqual([
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
      'delivery.in_transit',
      'delivery.out_for_delivery',
      'delivery.delivered',
    ]);
    expect(events[0]).toMatchObject({
      toStatus: null,
      trackingRef: trackingRefOf(d.id),
      payload: { tracking_ref: trackingRefOf(d.id), booking_status: 'accepted', courier: 'Fake Courier' },
    });
    expect(events.slice(2).every((e) => e.source === 'fleet_webhook')).toBe(true);
  });

  describe('payment window', () => {
    it('awaiting_payment is cancelled with payment_timeout when the window elapses', async ({ expect }) => {
      const d = await startDelivery({ initialStatus: 'awaiting_payment', timeouts: { paymentWindowMs: 300 } });
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
      expect(env.fakes.eventsOf(d.id)).toMatchObject([
        {
          eventType: 'delivery.cancelled',
          toStatus: 'cancelled',
          source: 'system',
          payload: { reason: 'payment_timeout', previous_status: 'awaiting_payment' },
        },
      ]);
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery')).toHaveLength(0);
    });

    it('a payment confirmed within the window makes it pending and dispatches; a second confirmation is rejected', async ({
      expect,
    }) => {
      const d = await startDelivery({ initialStatus: 'awaiting_payment' });
      await expect(d.handle.executeUpdate(confirmPaymentUpdate, { args: [{ source: 'api' }] })).resolves.toEqual({
        status: 'pending',
      });
      await d.waitFor('delivery.assigned');
      await expect(d.handle.executeUpdate(confirmPaymentUpdate, { args: [{}] })).rejects.toBeInstanceOf(
        WorkflowUpdateFailedError,
      );
      expect(d.types()).toEqual(['delivery.payment_confirmed', 'delivery.dispatched', 'delivery.assigned']);
      expect(env.fakes.eventsOf(d.id)[0]).toMatchObject({ toStatus: 'pending', source: 'api' });
    });
  });

  describe('state budgets and SLA', () => {
    it('pending past its budget (booking not accepted yet) stalls with state_timeout', async ({ expect }) => {
      const d = await startDelivery({
        dispatch: courier.books('pending'),
        timeouts: { stateBudgetsMs: { pending: 300 } },
      });
      const events = await d.waitFor('delivery.stalled');
      expect(events).toMatchObject([
        { eventType: 'delivery.dispatched', payload: { booking_status: 'pending' } },
        stalledEvent('state_timeout', 'pending'),
      ]);
      expect(await stateWhen(d.handle, 'stalled')).toEqual({
        status: 'stalled',
        previousStatus: 'pending',
        trackingRef: trackingRefOf(d.id),
        companyId: d.input.companyId,
      });
    });

    it('resume goes back to the previous state, whose budget counts again from the resume', async ({ expect }) => {
      const d = await startDelivery({ timeouts: { stateBudgetsMs: { assigned: 300 } } });
      await d.waitFor('delivery.stalled');
      await d.handle.signal(operatorActionSignal, { action: 'resume', note: 'driver found' });
      const events = await d.waitForCount(5);
      expect(events).toMatchObject([
        { eventType: 'delivery.dispatched' },
        { eventType: 'delivery.assigned', toStatus: 'assigned' },
        stalledEvent('state_timeout', 'assigned'),
        {
          eventType: 'delivery.resumed',
          toStatus: 'assigned',
          source: 'operator',
          payload: { action: 'resume', note: 'driver found', status: 'assigned' },
        },
        stalledEvent('state_timeout', 'assigned'),
      ]);
    });

    it('the SLA deadline stalls with sla_deadline_passed once; after a resume only the state budget applies', async ({
      expect,
    }) => {
      const d = await startDelivery({
        slaDeadlineAt: new Date(Date.now() + 300).toISOString(),
        // Later than the SLA whatever the timing: the budget starts when `assigned` is entered, after the start.
        timeouts: { stateBudgetsMs: { assigned: 600 } },
      });
      await d.waitFor('delivery.stalled');
      await d.handle.signal(operatorActionSignal, { action: 'resume' });
      const events = await d.waitForCount(5);
      expect(events).toMatchObject([
        { eventType: 'delivery.dispatched' },
        { eventType: 'delivery.assigned' },
        stalledEvent('sla_deadline_passed', 'assigned'),
        { eventType: 'delivery.resumed', toStatus: 'assigned' },
        stalledEvent('state_timeout', 'assigned'),
      ]);
    });
  });

  describe('dispatch', () => {
    /** The booking's regular activities in the delivery's history (its first attempt is a local activity: none). */
    const bookingActivities = async (d: { handle: WorkflowHandle }) =>
      ((await d.handle.fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dispatchDelivery',
      );

    it('a courier that answers at once: booked by the first attempt, in the workflow task, its call capped at 3 s', async ({
      expect,
    }) => {
      const d = await startDelivery({ dispatch: courier.books() });
      await d.waitFor('delivery.assigned');
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery').map((c) => c.input)).toEqual([
        { deliveryId: d.id, bookingNumber: 1, maxTimeoutMs: 3000 },
      ]);
      expect(await bookingActivities(d)).toHaveLength(0);
    });

    it('transient failures are retried: booked on the third attempt', async ({ expect }) => {
      const d = await startDelivery({ dispatch: courier.failsThen(2, courier.books()) });
      const events = await d.waitFor('delivery.assigned');
      expect(types(events)).toEqual(['delivery.dispatched', 'delivery.assigned']);
      expect(events[0].payload.tracking_ref).toBe(trackingRefOf(d.id, 3));
      // The first attempt in the workflow task; the other two one regular activity, retried, without the cap.
      const calls = env.fakes.callsOf(d.id, 'dispatchDelivery').map((c) => c.input);
      expect(calls).toEqual([
        { deliveryId: d.id, bookingNumber: 1, maxTimeoutMs: 3000 },
        { deliveryId: d.id, bookingNumber: 1 },
        { deliveryId: d.id, bookingNumber: 1 },
      ]);
      expect(await bookingActivities(d)).toHaveLength(1);
    });

    it('retries exhausted: stalled with dispatch_failed; an operator redispatch books it again', async ({ expect }) => {
      const d = await startDelivery({ dispatch: courier.fails() });
      const stalled = await d.waitFor('delivery.stalled');
      expect(stalled).toMatchObject([stalledEvent('dispatch_failed', 'pending')]);
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery')).toHaveLength(3);

      env.fakes.script(d.id, { dispatch: courier.books() });
      await d.handle.signal(operatorActionSignal, { action: 'redispatch' });
      const events = await d.waitFor('delivery.assigned');
      expect(events).toMatchObject([
        { eventType: 'delivery.stalled' },
        {
          eventType: 'delivery.redispatched',
          toStatus: 'pending',
          source: 'operator',
          trackingRef: null,
          companyId: d.input.companyId,
          payload: { action: 'redispatch', company_id: d.input.companyId },
        },
        { eventType: 'delivery.dispatched', payload: { tracking_ref: trackingRefOf(d.id, 4) } },
        { eventType: 'delivery.assigned', toStatus: 'assigned' },
      ]);
      // The courier's Idempotency-Key is `<delivery id>.<booking number>`: the same on every retry of the first booking
      // (its first attempt, then one activity, retried), the next number for the redispatch.
      expect(
        env.fakes.callsOf(d.id, 'dispatchDelivery').map((c) => (c.input as { bookingNumber: number }).bookingNumber),
      ).toEqual([1, 1, 1, 2]);
    });

    it('retries exhausted: stalled with dispatch_failed; an operator resume books it again', async ({ expect }) => {
      const d = await startDelivery({ dispatch: courier.fails() });
      await d.waitFor('delivery.stalled');
      env.fakes.script(d.id, { dispatch: courier.books() });
      await d.handle.signal(operatorActionSignal, { action: 'resume' });
      const events = await d.waitFor('delivery.assigned');
      expect(events).toMatchObject([
        stalledEvent('dispatch_failed', 'pending'),
        {
          eventType: 'delivery.resumed',
          toStatus: 'pending',
          source: 'operator',
          payload: { action: 'resume', status: 'pending' },
        },
        { eventType: 'delivery.dispatched', payload: { tracking_ref: trackingRefOf(d.id, 4) } },
        { eventType: 'delivery.assigned', toStatus: 'assigned' },
      ]);
    });

    it('a courier rejection resumed by an operator: booked again', async ({ expect }) => {
      const d = await startDelivery({ dispatch: courier.rejects() });
      await d.waitFor('delivery.stalled');
      env.fakes.script(d.id, { dispatch: courier.books() });
      await d.handle.signal(operatorActionSignal, { action: 'resume' });
      const events = await d.waitFor('delivery.assigned');
      expect(types(events)).toEqual([
        'delivery.stalled',
        'delivery.resumed',
        'delivery.dispatched',
        'delivery.assigned',
      ]);
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery')).toHaveLength(2);
    });

    it('pending past its budget with a job booked: a resume waits for the courier again, without booking twice', async ({
      expect,
    }) => {
      const d = await startDelivery({
        dispatch: courier.books('pending'),
        timeouts: { stateBudgetsMs: { pending: 300 } },
      });
      await d.waitFor('delivery.stalled');
      await d.handle.signal(operatorActionSignal, { action: 'resume' });
      const events = await d.waitForCount(4);
      expect(events).toMatchObject([
        { eventType: 'delivery.dispatched' },
        stalledEvent('state_timeout', 'pending'),
        { eventType: 'delivery.resumed', toStatus: 'pending' },
        stalledEvent('state_timeout', 'pending'),
      ]);
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery')).toHaveLength(1);
    });

    it('a refusal of the first attempt is acted on once it is in the history: the stall is written in a later task', async ({
      expect,
    }) => {
      // A local activity's answer is durable only when its task completes; a stall written in the same task would stay
      // written if that task were lost, while a retry may book (handlers/book.ts). So a task completes in between.
      const d = await startDelivery({ dispatch: courier.rejects() });
      await d.waitFor('delivery.stalled');
      const E = proto.api.enums.v1.EventType;
      // The fake records the stall as its task runs; ending the delivery puts that task in the history for sure.
      await d.handle.signal(operatorActionSignal, { action: 'mark_failed' });
      await d.handle.result();
      const history = (await d.handle.fetchHistory()).events ?? [];
      const indexes = (type: number) => history.flatMap((e, i) => (e.eventType === type ? [i] : []));
      const [attempt, stall] = indexes(E.EVENT_TYPE_MARKER_RECORDED); // the first attempt, then the stall's write
      const [fired] = indexes(E.EVENT_TYPE_TIMER_FIRED);
      expect(attempt).toBeLessThan(fired);
      expect(stall).toBeGreaterThan(fired);
      expect(await bookingActivities(d)).toHaveLength(0);
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery')).toHaveLength(1);
    });

    it('a courier rejection is final: one attempt, stalled with courier_rejected; mark_failed ends it', async ({
      expect,
    }) => {
      const d = await startDelivery({ dispatch: courier.rejects() });
      await d.waitFor('delivery.stalled');
      expect(env.fakes.callsOf(d.id, 'dispatchDelivery')).toHaveLength(1);
      await d.handle.signal(operatorActionSignal, { action: 'mark_failed', note: 'no courier' });
      await expect(d.handle.result()).resolves.toEqual({ status: 'failed' });
      expect(env.fakes.eventsOf(d.id)).toMatchObject([
        stalledEvent('courier_rejected', 'pending'),
        {
          eventType: 'delivery.failed',
          toStatus: 'failed',
          source: 'operator',
          payload: { action: 'mark_failed', reason: 'operator', note: 'no courier' },
        },
      ]);
    });
  });

  describe('operator actions', () => {
    it('an action on a delivery that is not stalled is recorded as ignored and changes nothing', async ({ expect }) => {
      const d = await startDelivery();
      await d.waitFor('delivery.assigned');
      await d.handle.signal(operatorActionSignal, { action: 'mark_failed' });
      await d.fleet('in_transit');
      const events = await d.waitFor('delivery.in_transit');
      expect(events).toMatchObject([
        { eventType: 'delivery.dispatched' },
        { eventType: 'delivery.assigned' },
        {
          eventType: 'delivery.operator_action',
          toStatus: null,
          source: 'operator',
          payload: { action: 'mark_failed', ignored: true, reason: 'not_stalled_assigned' },
        },
        { eventType: 'delivery.in_transit', toStatus: 'in_transit' },
      ]);
      expect(await stateWhen(d.handle, 'in_transit')).toMatchObject({
        status: 'in_transit',
        trackingRef: trackingRefOf(d.id),
      });
    });

    it('cancel on a stalled delivery cancels it and releases the booking in the background', async ({ expect }) => {
      const d = await startDelivery({ timeouts: { stateBudgetsMs: { assigned: 300 } } });
      await d.waitFor('delivery.stalled');
      await d.handle.signal(operatorActionSignal, { action: 'cancel' });
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
      const release = env.client.workflow.getHandle<typeof bookingReleaseWorkflow>(
        bookingReleaseWorkflowId(d.id, trackingRefOf(d.id)),
      );
      await expect(release.result()).resolves.toEqual({ released: true });
      expect(env.fakes.eventsOf(d.id).slice(2)).toMatchObject([
        stalledEvent('state_timeout', 'assigned'),
        {
          eventType: 'delivery.cancelled',
          toStatus: 'cancelled',
          source: 'operator',
          payload: { action: 'cancel', reason: 'operator' },
        },
      ]);
      expect(env.fakes.callsOf(d.id, 'cancelBooking').map((c) => c.input)).toEqual([
        { companyId: d.input.companyId, trackingRef: trackingRefOf(d.id) },
      ]);
    });

    it('redispatch to an unknown company is ignored; to a linked one it releases the old booking and books the new company', async ({
      expect,
    }) => {
      const d = await startDelivery({
        dispatch: courier.books('pending'),
        timeouts: { stateBudgetsMs: { pending: 300 } },
      });
      await d.waitFor('delivery.stalled');
      const other = randomUUID();
      env.fakes.companies.set(other, 'other-courier');
      env.fakes.script(d.id, { dispatch: courier.books('accepted') });
      await d.handle.signal(operatorActionSignal, { action: 'redispatch', company_id: randomUUID() });
      await d.handle.signal(operatorActionSignal, { action: 'redispatch', company_id: other });
      const events = await d.waitFor('delivery.assigned');
      expect(events).toMatchObject([
        { eventType: 'delivery.dispatched' },
        stalledEvent('state_timeout', 'pending'),
        {
          eventType: 'delivery.operator_action',
          toStatus: null,
          payload: { action: 'redispatch', ignored: true, reason: 'unknown_company' },
        },
        {
          eventType: 'delivery.redispatched',
          toStatus: 'pending',
          companyId: other,
          trackingRef: null,
          payload: { company_id: other },
        },
        { eventType: 'delivery.dispatched', payload: { tracking_ref: trackingRefOf(d.id, 2) } },
        { eventType: 'delivery.assigned', toStatus: 'assigned' },
      ]);
      expect(await stateWhen(d.handle, 'assigned')).toEqual({
        status: 'assigned',
        previousStatus: 'pending',
        trackingRef: trackingRefOf(d.id, 2),
        companyId: other,
      });
      const release = env.client.workflow.getHandle<typeof bookingReleaseWorkflow>(
        bookingReleaseWorkflowId(d.id, trackingRefOf(d.id, 1)),
      );
      await expect(release.result()).resolves.toEqual({ released: true });
      expect(env.fakes.callsOf(d.id, 'cancelBooking').map((c) => c.input)).toEqual([
        { companyId: d.input.companyId, trackingRef: trackingRefOf(d.id, 1) },
      ]);
    });
  });

  describe('cancellation (the cancel update)', () => {
    const cancel = (h: WorkflowHandle) =>
      h.executeUpdate(cancelUpdate, { args: [{ reason: 'merchant_request', source: 'api' }] });
    /** The type of the ApplicationFailure an update was rejected with. */
    const rejectionOf = (err: unknown) =>
      ((err as WorkflowUpdateFailedError).cause as { type?: string } | undefined)?.type;

    it('with no courier job yet the delivery is cancelled at once, without asking a courier', async ({ expect }) => {
      const d = await startDelivery({ initialStatus: 'awaiting_payment' });
      await expect(cancel(d.handle)).resolves.toEqual({ status: 'cancelled' });
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
      expect(env.fakes.eventsOf(d.id)).toMatchObject([
        {
          eventType: 'delivery.cancelled',
          toStatus: 'cancelled',
          source: 'api',
          payload: { reason: 'merchant_request', previous_status: 'awaiting_payment' },
        },
      ]);
      expect(env.fakes.callsOf(d.id, 'cancelBooking')).toHaveLength(0);
    });

    it('a booked job the courier cancels: cancelled, release confirmed, the call capped at 3 s', async ({ expect }) => {
      const d = await startDelivery();
      await d.waitFor('delivery.assigned');
      await expect(cancel(d.handle)).resolves.toEqual({ status: 'cancelled' });
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
      expect(env.fakes.eventsOf(d.id).at(-1)).toMatchObject({
        eventType: 'delivery.cancelled',
        payload: { previous_status: 'assigned', booking_release: 'confirmed' },
      });
      expect(env.fakes.callsOf(d.id, 'cancelBooking').map((c) => c.input)).toEqual([
        { companyId: d.input.companyId, trackingRef: trackingRefOf(d.id), maxTimeoutMs: 3000 },
      ]);
    });

    it('the courier refuses: the update is rejected and the delivery goes on; once picked up it is no longer cancellable', async ({
      expect,
    }) => {
      const d = await startDelivery({ cancel: ['refused'] });
      await d.waitFor('delivery.assigned');
      const refused = await cancel(d.handle).catch((err) => err);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(rejectionOf(refused)).toBe('CancellationRejected');
      await d.fleet('pickup_ready');
      await d.waitFor('delivery.pickup_ready');
      await expect(cancel(d.handle)).rejects.toBeInstanceOf(WorkflowUpdateFailedError); // not cancellable from pickup_ready
      expect(d.types()).toEqual(['delivery.dispatched', 'delivery.assigned', 'delivery.pickup_ready']);
      await expect(d.handle.query(stateQuery)).resolves.toMatchObject({ status: 'pickup_ready' });
    });

    it('the courier does not answer: cancelled at once, the release goes on in the background and reports a refusal', async ({
      expect,
    }) => {
      const d = await startDelivery({ cancel: ['no_answer', 'refused'] });
      await d.waitFor('delivery.assigned');
      await expect(cancel(d.handle)).resolves.toEqual({ status: 'cancelled' });
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
      const release = env.client.workflow.getHandle<typeof bookingReleaseWorkflow>(
        bookingReleaseWorkflowId(d.id, trackingRefOf(d.id)),
      );
      await expect(release.result()).resolves.toEqual({ released: false });
      expect(env.fakes.eventsOf(d.id).slice(2)).toMatchObject([
        { eventType: 'delivery.cancelled', toStatus: 'cancelled', payload: { booking_release: 'retrying' } },
        {
          eventType: 'delivery.booking_release_failed',
          toStatus: null,
          source: 'system',
          payload: { reason: 'courier_refused', tracking_ref: trackingRefOf(d.id) },
        },
      ]);
      expect(env.fakes.callsOf(d.id, 'cancelBooking')).toHaveLength(2);
    });

    it('a cancel while the dispatch is in flight: cancelled, and the booking that comes back is released', async ({
      expect,
    }) => {
      // The courier keeps one job per Idempotency-Key: a retry after the first attempt's timeout gets the same one.
      const gate = gatedDispatch((_attempt, id) => courier.books('accepted')(1, id));
      const d = await startDelivery({ dispatch: gate.dispatch });
      await gate.started;
      await expect(cancel(d.handle)).resolves.toEqual({ status: 'cancelled' });
      gate.open();
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
      const release = env.client.workflow.getHandle<typeof bookingReleaseWorkflow>(
        bookingReleaseWorkflowId(d.id, trackingRefOf(d.id)),
      );
      await expect(release.result()).resolves.toEqual({ released: true });
      // Nothing about the late booking is recorded on the delivery: only the cancellation.
      expect(env.fakes.eventsOf(d.id)).toMatchObject([
        { eventType: 'delivery.cancelled', payload: { previous_status: 'pending' } },
      ]);
      expect(env.fakes.eventsOf(d.id)).toHaveLength(1);
      expect(env.fakes.callsOf(d.id, 'cancelBooking').map((c) => c.input)).toEqual([
        { companyId: d.input.companyId, trackingRef: trackingRefOf(d.id) },
      ]);
    });
  });

  it('5 wrong PINs stall the delivery (pin_attempts_exceeded); after a resume the right PIN delivers it', async ({
    expect,
  }) => {
    const d = await startDelivery({ requireDeliveryPin: true });
    await d.waitFor('delivery.assigned');
    await d.fleet('in_transit');
    for (let i = 0; i < 5; i++) await d.fleet('delivered', { pinVerified: false });
    await d.waitFor('delivery.stalled');
    await d.handle.signal(operatorActionSignal, { action: 'resume' });
    await d.fleet('delivered', { pinVerified: true });
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
    const events = env.fakes.eventsOf(d.id);
    const wrong = {
      eventType: 'delivery.delivered',
      toStatus: null,
      payload: { ignored: true, reason: 'pin_mismatch', pin_verified: false, status: 'in_transit' },
    };
    expect(events).toMatchObject([
      { eventType: 'delivery.dispatched' },
      { eventType: 'delivery.assigned' },
      { eventType: 'delivery.in_transit' },
      wrong,
      wrong,
      wrong,
      wrong,
      wrong,
      stalledEvent('pin_attempts_exceeded', 'in_transit'),
      { eventType: 'delivery.resumed', toStatus: 'in_transit' },
      { eventType: 'delivery.delivered', toStatus: 'delivered', payload: { pin_verified: true } },
    ]);
    expect(events).toHaveLength(11);
  });

  it('continue-as-new carries the state over: status, booking, seen webhook-ids', async ({ expect }) => {
    const d = await startDelivery({ continueAsNewAfterEvents: 20 });
    await d.waitFor('delivery.assigned');
    await d.fleet('pickup_ready', { webhookId: 'wh-1' });
    await d.waitFor('delivery.pickup_ready');
    // The run that has seen wh-1 (itself or carried over): fleet events the state does not allow, recorded as
    // ignored one at a time, make its history long enough (each adds more than 5 events).
    const { runId } = await d.handle.describe();
    for (let i = 0; i < 6; i++) {
      await d.fleet('assigned', { webhookId: `wh-ignored-${i}` });
      await d.waitForCount(4 + i);
    }
    // That run ends by continuing as new (same workflow id).
    const seenRun = env.client.workflow.getHandle(d.handle.workflowId, runId, { followRuns: false });
    await expect(seenRun.result()).rejects.toBeInstanceOf(WorkflowContinuedAsNewError);
    expect(await stateWhen(d.handle, 'pickup_ready')).toEqual({
      status: 'pickup_ready',
      previousStatus: null,
      trackingRef: trackingRefOf(d.id),
      companyId: d.input.companyId,
    });
    // A courier's retry of an event the first run saw counts once; the next event goes through.
    await d.fleet('pickup_ready', { webhookId: 'wh-1' });
    await d.fleet('in_transit', { webhookId: 'wh-2' });
    await d.fleet('delivered', { webhookId: 'wh-3' });
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
    expect(d.types()).toEqual([
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
      ...Array(6).fill('delivery.assigned'),
      'delivery.in_transit',
      'delivery.delivered',
    ]);
    expect(
      env.fakes
        .eventsOf(d.id)
        .slice(3, 9)
        .every((e) => e.payload.ignored === true && e.payload.reason === 'not_allowed_from_pickup_ready'),
    ).toBe(true);
  });
});
