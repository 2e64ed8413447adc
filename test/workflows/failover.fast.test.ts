// Automatic failover in the fast tier (fake activities): each trigger before pickup rebooks with the company the plan
// names, within the policy's limits; without the policy, or after pickup, the delivery behaves as design.md says.
// The plan itself (re-quote, fee ceiling, preferred order) is covered end to end in test/deliveries/failover.test.ts.
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import {
  CourierRejected,
  cancelUpdate,
  type RedispatchPlan,
  type RedispatchPolicy,
} from '../../shared/deliveries/definitions.js';
import { courier, gatedDispatch, type DispatchScript } from '../helpers/fake-activities.js';
import { env, startDelivery, stateWhen, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

const policy = (overrides: Partial<RedispatchPolicy> = {}): RedispatchPolicy => ({
  maxFeeIncreaseAoa: 0,
  maxRedispatches: 2,
  assignTimeoutMs: 60_000,
  preferredCompanyIds: [],
  ...overrides,
});
const next = (fee = 150_000): RedispatchPlan => ({
  companyId: randomUUID(),
  slug: 'next-co',
  name: 'Next Co',
  feeAoa: fee,
  oldFeeAoa: 150_000,
  quoteId: randomUUID(),
});
const rejected = () =>
  ApplicationFailure.nonRetryable('fake courier: rejected (422)', CourierRejected, { status: 422 });
/** The first `n` bookings are refused; later ones (another company) book as `then`. */
const rejectsFirst =
  (n: number, then: DispatchScript = courier.books()): DispatchScript =>
  async (attempt, id) => {
    if (attempt <= n) throw rejected();
    return then(attempt, id);
  };

describe.concurrent('automatic failover (fast tier)', () => {
  it('courier_rejected: the next company is booked; the event says from, to, why and the fees', async ({ expect }) => {
    const plan = next(160_000);
    const d = await startDelivery({
      redispatch: policy({ maxFeeIncreaseAoa: 20_000 }),
      dispatch: rejectsFirst(1),
      plans: [plan],
    });
    const events = await d.waitFor('delivery.assigned');
    expect(events.map((e) => e.eventType)).toEqual([
      'delivery.redispatched',
      'delivery.dispatched',
      'delivery.assigned',
    ]);
    expect(events[0]).toMatchObject({
      toStatus: 'pending',
      source: 'system',
      companyId: plan.companyId,
      payload: {
        reason: 'courier_rejected',
        automatic: true,
        from_company_id: d.input.companyId,
        to_company_id: plan.companyId,
        old_fee_aoa: 150_000,
        new_fee_aoa: 160_000,
      },
    });
    const call = env.fakes.callsOf(d.id, 'planRedispatch')[0].input;
    expect(call).toMatchObject({ excludeCompanyIds: [d.input.companyId], maxFeeIncreaseAoa: 20_000 });
    expect((await stateWhen(d.handle, 'assigned')).companyId).toBe(plan.companyId);
  });

  it('dispatch_failed (retries exhausted) moves on the same way', async ({ expect }) => {
    let calls = 0;
    const failsThenBooks: DispatchScript = async (attempt, id) => {
      if (++calls <= 3) throw new Error('fake courier: unavailable');
      return courier.books()(attempt, id);
    };
    const d = await startDelivery({ redispatch: policy(), dispatch: failsThenBooks, plans: [next()] });
    const events = await d.waitFor('delivery.assigned');
    expect(events[0]).toMatchObject({ eventType: 'delivery.redispatched', payload: { reason: 'dispatch_failed' } });
  });

  it('assign timeout: a booking the courier took as pending and never assigned moves on', async ({ expect }) => {
    let bookings = 0;
    const pendingThenAccepted: DispatchScript = async (attempt, id) =>
      courier.books(++bookings === 1 ? 'pending' : 'accepted')(attempt, id);
    const d = await startDelivery({
      redispatch: policy({ assignTimeoutMs: 300 }),
      dispatch: pendingThenAccepted,
      plans: [next()],
    });
    const events = await d.waitFor('delivery.assigned');
    expect(events.map((e) => e.eventType)).toEqual([
      'delivery.dispatched',
      'delivery.redispatched',
      'delivery.dispatched',
      'delivery.assigned',
    ]);
    expect(events[1].payload).toMatchObject({ reason: 'assign_timeout' });
    // The first job is released in the background.
    await expect.poll(() => env.fakes.callsOf(d.id, 'cancelBooking').length).toBeGreaterThanOrEqual(1);
  });

  it('the courier fails the job before pickup: rebooked; after pickup a failure is final', async ({ expect }) => {
    const d = await startDelivery({ redispatch: policy(), plans: [next()] });
    await d.waitFor('delivery.assigned');
    await d.fleet('failed');
    const events = await d.waitFor('delivery.redispatched');
    expect(events.at(-1)!.payload).toMatchObject({ reason: 'courier_failed' });
    await d.waitForCount(5); // dispatched and assigned again, with the new company
    await d.fleet('pickup_ready');
    await d.waitFor('delivery.pickup_ready');
    await d.fleet('failed');
    await expect(d.handle.result()).resolves.toEqual({ status: 'failed' });
  });

  it("the first company's events already on their way when it moved on are ignored (superseded_booking); the new company's count", async ({
    expect,
  }) => {
    const plan = next();
    const d = await startDelivery({ redispatch: policy(), plans: [plan] });
    await d.waitFor('delivery.assigned');
    const first = d.input.companyId;
    // Both passed by the API before the failover moved the delivery: its `failed`, then a `pickup_ready` of the old job.
    await d.fleet('failed', { companyId: first, webhookId: 'wh-failed' });
    await d.fleet('pickup_ready', { companyId: first, webhookId: 'wh-late' });
    const events = await d.waitFor('delivery.pickup_ready');
    expect(events.map((e) => e.eventType)).toEqual([
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.redispatched',
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
    ]);
    expect(events.at(-1)).toMatchObject({
      toStatus: null,
      payload: { ignored: true, reason: 'superseded_booking', status: 'assigned', webhook_id: 'wh-late' },
    });
    expect((await stateWhen(d.handle, 'assigned')).status).toBe('assigned');
    // The same event from the company it moved to is taken.
    await d.fleet('pickup_ready', { companyId: plan.companyId!, webhookId: 'wh-new' });
    await d.waitFor('delivery.pickup_ready', { webhook_id: 'wh-new' });
    expect(await stateWhen(d.handle, 'pickup_ready')).toMatchObject({
      status: 'pickup_ready',
      companyId: plan.companyId,
    });
  });

  it('the failover a courier `failed` causes keeps its webhook-id (the test helper finds it)', async ({ expect }) => {
    const d = await startDelivery({ redispatch: policy(), plans: [next()] });
    await d.waitFor('delivery.assigned');
    await d.fleet('failed', { webhookId: 'test_helper_1' });
    const events = await d.waitFor('delivery.redispatched');
    expect(events.at(-1)!.payload).toMatchObject({ reason: 'courier_failed', webhook_id: 'test_helper_1' });
  });

  it('no company qualifies: stalled as today, with what was tried', async ({ expect }) => {
    const candidates = [{ company_id: randomUUID(), outcome: 'over_fee_ceiling', fee_aoa: 400_000 }];
    const d = await startDelivery({
      redispatch: policy(),
      dispatch: courier.rejects(),
      plans: [{ companyId: null, oldFeeAoa: 150_000, candidates }],
    });
    const events = await d.waitFor('delivery.stalled');
    expect(events.at(-1)!.payload).toMatchObject({
      reason: 'courier_rejected',
      previous_status: 'pending',
      redispatch: { outcome: 'no_company_qualifies', tried_company_ids: [d.input.companyId], candidates },
    });
  });

  it('max_redispatches: after that many moves the delivery stalls instead', async ({ expect }) => {
    const d = await startDelivery({
      redispatch: policy({ maxRedispatches: 1 }),
      dispatch: courier.rejects(),
      plans: [next(), next()],
    });
    const events = await d.waitFor('delivery.stalled');
    expect(events.map((e) => e.eventType)).toEqual(['delivery.redispatched', 'delivery.stalled']);
    expect(events[1].payload).toMatchObject({
      reason: 'courier_rejected',
      redispatch: { outcome: 'max_redispatches_reached' },
    });
    expect((events[1].payload.redispatch as { tried_company_ids: string[] }).tried_company_ids).toHaveLength(2);
  });

  it('without the policy a rejection stalls exactly as before: no plan is asked for', async ({ expect }) => {
    const d = await startDelivery({ dispatch: courier.rejects() });
    const events = await d.waitFor('delivery.stalled');
    expect(events.map((e) => e.eventType)).toEqual(['delivery.stalled']);
    expect(events[0].payload).toEqual({
      reason: 'courier_rejected',
      previous_status: 'pending',
      courier_answer: { status: 422, message: 'fake courier: rejected (422)' },
    });
    expect(env.fakes.callsOf(d.id, 'planRedispatch')).toHaveLength(0);
  });

  it('a cancel racing a redispatch: cancelled, and the new booking is released', async ({ expect }) => {
    const gate = gatedDispatch();
    let bookings = 0;
    const rejectThenGated: DispatchScript = async (attempt, id) => {
      if (++bookings === 1) throw rejected();
      return gate.dispatch(attempt, id);
    };
    const d = await startDelivery({ redispatch: policy(), dispatch: rejectThenGated, plans: [next()] });
    await gate.started; // the new company's booking is in flight
    await expect(
      d.handle.executeUpdate(cancelUpdate, { args: [{ reason: 'merchant_request', source: 'api' }] }),
    ).resolves.toEqual({ status: 'cancelled' });
    gate.open();
    await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
    await expect.poll(() => env.fakes.callsOf(d.id, 'cancelBooking').length).toBeGreaterThanOrEqual(1);
  });
});
