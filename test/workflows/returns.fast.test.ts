// Failed attempts and returns to sender in the delivery workflow, fast tier (fake activities): the attempt count, the
// tenant's max_delivery_attempts, a refusal, the startReturn activity, and a return's events on the delivery it brings
// back. The real stack: test/deliveries/returns.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { courier } from '../helpers/fake-activities.js';
import { env, startDelivery, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

const failedAttempt = (reason: string) => ({ payload: { reason } });

describe.concurrent('failed attempts and returns, fast tier (fake activities)', () => {
  it('a failed attempt goes back to in_transit; delivered at the second attempt', async ({ expect }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted') });
    await d.waitFor('delivery.assigned');
    await d.fleet('in_transit');
    await d.fleet('out_for_delivery');
    await d.fleet('attempt_failed', failedAttempt('recipient_unavailable'));
    await d.fleet('out_for_delivery');
    await d.fleet('delivered');
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
    const events = env.fakes.eventsOf(d.id);
    expect(events.map((e) => [e.eventType, e.toStatus])).toEqual([
      ['delivery.dispatched', null],
      ['delivery.assigned', 'assigned'],
      ['delivery.in_transit', 'in_transit'],
      ['delivery.out_for_delivery', 'out_for_delivery'],
      ['delivery.attempt_failed', 'in_transit'],
      ['delivery.out_for_delivery', 'out_for_delivery'],
      ['delivery.delivered', 'delivered'],
    ]);
    expect(events[4].payload).toMatchObject({ attempt: 1, reason: 'recipient_unavailable', attempts_left: 1 });
    expect(env.fakes.callsOf(d.id, 'startReturn')).toHaveLength(0);
  });

  it('the last attempt fails the delivery (delivery_attempts_exhausted) and starts its return', async ({ expect }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted'), maxDeliveryAttempts: 2 });
    await d.waitFor('delivery.assigned');
    await d.fleet('in_transit');
    for (const reason of ['address_not_found', 'access_denied']) {
      await d.fleet('out_for_delivery');
      await d.fleet('attempt_failed', failedAttempt(reason));
    }
    await expect(d.handle.result()).resolves.toEqual({ status: 'failed' });
    const events = env.fakes.eventsOf(d.id);
    expect(events.at(-1)).toMatchObject({
      eventType: 'delivery.failed',
      toStatus: 'failed',
      source: 'fleet_webhook',
      payload: { reason: 'delivery_attempts_exhausted', attempts: 2 },
    });
    expect(events.at(-2)!.payload).toMatchObject({ attempt: 2, reason: 'access_denied', attempts_left: 0 });
    expect(env.fakes.callsOf(d.id, 'startReturn')).toHaveLength(1);
  });

  it('a refusal fails the delivery at once; an unknown reason counts as other', async ({ expect }) => {
    const refused = await startDelivery({ dispatch: courier.books('accepted'), maxDeliveryAttempts: 5 });
    await refused.waitFor('delivery.assigned');
    await refused.fleet('in_transit');
    await refused.fleet('attempt_failed', failedAttempt('cod_refused'));
    await expect(refused.handle.result()).resolves.toEqual({ status: 'failed' });
    expect(env.fakes.eventsOf(refused.id).at(-1)!.payload).toEqual({ reason: 'cod_refused', attempts: 1 });

    const odd = await startDelivery({ dispatch: courier.books('accepted') });
    await odd.waitFor('delivery.assigned');
    await odd.fleet('in_transit');
    await odd.fleet('attempt_failed', failedAttempt('aliens'));
    const [attempt] = await odd.waitFor('delivery.attempt_failed').then((e) => e.slice(-1));
    expect(attempt.payload).toMatchObject({ attempt: 1, reason: 'other' });
    await odd.handle.terminate('test over');
  });

  it('a return tells the delivery it brings back: return_started at its start, returned once delivered', async ({
    expect,
  }) => {
    const originalId = randomUUID();
    const r = await startDelivery({ dispatch: courier.books('accepted'), returnOf: originalId });
    await r.waitFor('delivery.assigned');
    await env.fakes.waitForEvent(originalId, 'delivery.return_started');
    await r.fleet('in_transit');
    await r.fleet('attempt_failed', failedAttempt('recipient_refused'));
    await expect(r.handle.result()).resolves.toEqual({ status: 'failed' });
    // A return is never returned itself.
    expect(env.fakes.callsOf(r.id, 'startReturn')).toHaveLength(0);

    const original2 = randomUUID();
    const back = await startDelivery({ dispatch: courier.books('accepted'), returnOf: original2 });
    await back.waitFor('delivery.assigned');
    await back.fleet('in_transit');
    await back.fleet('delivered');
    await expect(back.handle.result()).resolves.toEqual({ status: 'delivered' });
    const onOriginal = await env.fakes.waitForEvent(original2, 'delivery.returned');
    expect(onOriginal.map((e) => [e.eventType, e.toStatus, e.payload.return_delivery_id])).toEqual([
      ['delivery.return_started', null, back.id],
      ['delivery.returned', null, back.id],
    ]);
  });
});
