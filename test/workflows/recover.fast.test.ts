// The `recover` Update (POST /v1/deliveries/{id}/recover) in the fast tier (fake activities): each action from a
// stalled delivery, recorded with source `api`, and each refusal as the update's failure with its code, leaving no
// event. The API's checks, the fee ceiling and the answers are covered end to end in
// test/deliveries/merchant-recovery.test.ts. RECORD_HISTORIES=1 records these paths for the replay gate.
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import {
  CourierRejected,
  RecoveryRejected,
  recoverUpdate,
  type RecoverRequest,
  type RedispatchPlan,
} from '../../shared/deliveries/definitions.js';
import { courier, type DispatchScript } from '../helpers/fake-activities.js';
import { env, startDelivery, stalledEvent, stateWhen, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

/** The first booking is refused (the delivery stalls with courier_rejected); later ones book as `then`. */
const rejectsFirst =
  (then: DispatchScript = courier.books()): DispatchScript =>
  async (attempt, id) => {
    if (attempt === 1)
      throw ApplicationFailure.nonRetryable('fake courier: rejected (422)', CourierRejected, { status: 422 });
    return then(attempt, id);
  };

const plan = (fee = 140_000): RedispatchPlan => ({
  companyId: randomUUID(),
  slug: 'next-co',
  name: 'Next Co',
  feeAoa: fee,
  oldFeeAoa: 150_000,
  quoteId: randomUUID(),
});

/** A delivery stalled with courier_rejected (from pending). */
async function stalledBeforePickup(plans: RedispatchPlan[] = []) {
  const d = await startDelivery({ dispatch: rejectsFirst(), plans });
  await d.waitFor('delivery.stalled');
  await stateWhen(d.handle, 'stalled');
  const recover = (request: RecoverRequest) => d.handle.executeUpdate(recoverUpdate, { args: [request] });
  return { d, recover };
}

/** The code of a refused recover update. */
async function refusal(update: Promise<unknown>): Promise<string | undefined> {
  try {
    await update;
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type === RecoveryRejected)
      return (cause.details?.[0] as { code?: string })?.code;
    return 'validator';
  }
  return undefined;
}

describe.concurrent('recover update (fast tier)', () => {
  it('redispatch without company_id: the planned company, at its fee, excluding the current one', async ({
    expect,
  }) => {
    const next = plan(140_000);
    const { d, recover } = await stalledBeforePickup([next]);
    await expect(recover({ action: 'redispatch', maxFeeIncreaseAoa: 5_000, preferredCompanyIds: [] })).resolves.toEqual(
      {
        status: 'pending',
      },
    );
    const events = await d.waitFor('delivery.assigned');
    expect(events.map((e) => e.eventType)).toEqual([
      'delivery.stalled',
      'delivery.redispatched',
      'delivery.dispatched',
      'delivery.assigned',
    ]);
    expect(events[1]).toMatchObject({
      toStatus: 'pending',
      source: 'api',
      companyId: next.companyId,
      payload: {
        action: 'redispatch',
        company_id: next.companyId,
        from_company_id: d.input.companyId,
        old_fee_aoa: 150_000,
        new_fee_aoa: 140_000,
      },
    });
    const recorded = env.fakes.callsOf(d.id, 'recordEvent').map((c) => c.input);
    expect(recorded.find((r) => r.eventType === 'delivery.redispatched')).toMatchObject({ quotedFeeAoa: 140_000 });
    expect(env.fakes.callsOf(d.id, 'planRedispatch')[0].input).toMatchObject({
      excludeCompanyIds: [d.input.companyId],
      maxFeeIncreaseAoa: 5_000,
    });
  });

  it('redispatch without company_id, none qualifies: refused no_company_available, still stalled', async ({
    expect,
  }) => {
    const { d, recover } = await stalledBeforePickup();
    expect(await refusal(recover({ action: 'redispatch' }))).toBe('no_company_available');
    expect(d.types()).toEqual(['delivery.stalled']);
    expect((await stateWhen(d.handle, 'stalled')).status).toBe('stalled');
  });

  it('redispatch to an unknown company_id: refused company_not_linked', async ({ expect }) => {
    const { d, recover } = await stalledBeforePickup();
    expect(await refusal(recover({ action: 'redispatch', company_id: randomUUID() }))).toBe('company_not_linked');
    expect(d.types()).toEqual(['delivery.stalled']);
  });

  it('resume, mark_failed and cancel, recorded with source api', async ({ expect }) => {
    const resumed = await stalledBeforePickup();
    await expect(resumed.recover({ action: 'resume' })).resolves.toEqual({ status: 'pending' });
    expect((await resumed.d.waitFor('delivery.resumed'))[1]).toMatchObject({
      source: 'api',
      payload: { action: 'resume', status: 'pending' },
    });

    const failed = await stalledBeforePickup();
    await expect(failed.recover({ action: 'mark_failed', reason: 'customer_moved' })).resolves.toEqual({
      status: 'failed',
    });
    await expect(failed.d.handle.result()).resolves.toEqual({ status: 'failed' });
    expect(env.fakes.eventsOf(failed.d.id)[1]).toMatchObject({
      eventType: 'delivery.failed',
      source: 'api',
      payload: { action: 'mark_failed', reason: 'customer_moved' },
    });

    const cancelled = await stalledBeforePickup();
    await expect(cancelled.recover({ action: 'cancel' })).resolves.toEqual({ status: 'cancelled' });
    await expect(cancelled.d.handle.result()).resolves.toEqual({ status: 'cancelled' });
    expect(env.fakes.eventsOf(cancelled.d.id)[1]).toMatchObject({
      eventType: 'delivery.cancelled',
      source: 'api',
      payload: { action: 'cancel', reason: 'merchant_request' },
    });
  });

  it('not stalled: refused by the validator, nothing recorded; stalled after pickup: no cancel', async ({ expect }) => {
    const d = await startDelivery({
      dispatch: courier.books('accepted'),
      timeouts: { stateBudgetsMs: { in_transit: 300 } },
    });
    await d.waitFor('delivery.assigned');
    const recover = (request: RecoverRequest) => d.handle.executeUpdate(recoverUpdate, { args: [request] });
    expect(await refusal(recover({ action: 'resume' }))).toBe('validator');
    expect(d.types()).toEqual(['delivery.dispatched', 'delivery.assigned']);
    await d.fleet('in_transit');
    const events = await d.waitFor('delivery.stalled');
    expect(events.at(-1)).toMatchObject(stalledEvent('state_timeout', 'in_transit'));
    await stateWhen(d.handle, 'stalled');
    expect(await refusal(recover({ action: 'cancel' }))).toBe('validator');
    await expect(recover({ action: 'resume' })).resolves.toEqual({ status: 'in_transit' });
  });
});
