// The paths of the state table (shared/deliveries/state-table.ts) the other fast tests do not take: every fleet path
// to each final status, cancel in each cancellable status, the test helpers, a flooded run. With the other fast tests
// they are the release's replay baseline (RECORD_HISTORIES=1, docs/workflow-versioning.md).
import { describe, it } from 'vitest';
import { cancelUpdate, testHelperUpdate } from '../../shared/deliveries/definitions.js';
import { FLEET_TRANSITIONS } from '../../shared/deliveries/state-table.js';
import type { FleetEventType, Status } from '../../shared/deliveries/vocabulary.js';
import { courier } from '../helpers/fake-activities.js';
import { startDelivery, stateWhen, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

/** The fleet events that take a `pending` delivery (booked, not yet assigned) to `status`. */
const PATH: Partial<Record<Status, FleetEventType[]>> = {
  pending: [],
  assigned: ['assigned'],
  pickup_ready: ['assigned', 'pickup_ready'],
  in_transit: ['assigned', 'in_transit'],
  out_for_delivery: ['assigned', 'pickup_ready', 'in_transit', 'out_for_delivery'],
};

async function deliveryIn(status: Status) {
  const d = await startDelivery({ dispatch: courier.books('pending') });
  await d.waitFor('delivery.dispatched');
  for (const step of PATH[status]!) {
    await d.fleet(step);
    await d.waitFor(FLEET_TRANSITIONS[step].eventType);
  }
  await stateWhen(d.handle, status);
  return d;
}

describe.concurrent('every path of the state table (fake activities)', () => {
  it('delivered straight from in_transit', async ({ expect }) => {
    const d = await deliveryIn('in_transit');
    await d.fleet('delivered');
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
  });

  for (const status of Object.keys(PATH) as Status[]) {
    it(`fleet failed from ${status}`, async ({ expect }) => {
      const d = await deliveryIn(status);
      await d.fleet('failed');
      await expect(d.handle.result()).resolves.toEqual({ status: 'failed' });
      expect(d.types().at(-1)).toBe('delivery.failed');
    });
  }

  it('fleet failed from awaiting_payment', async ({ expect }) => {
    const d = await startDelivery({ initialStatus: 'awaiting_payment' });
    await d.fleet('failed');
    await expect(d.handle.result()).resolves.toEqual({ status: 'failed' });
  });

  it('fleet payment.confirmed from awaiting_payment, then dispatched', async ({ expect }) => {
    const d = await startDelivery({ initialStatus: 'awaiting_payment', dispatch: courier.books('accepted') });
    await d.fleet('payment.confirmed');
    await d.waitFor('delivery.assigned');
    expect(d.types()).toEqual(['delivery.payment_confirmed', 'delivery.dispatched', 'delivery.assigned']);
  });

  for (const status of ['awaiting_payment', 'pending', 'assigned'] as const) {
    it(`cancel in ${status}`, async ({ expect }) => {
      const d =
        status === 'awaiting_payment'
          ? await startDelivery({ initialStatus: 'awaiting_payment', cancel: ['cancelled'] })
          : await deliveryIn(status);
      await expect(d.handle.executeUpdate(cancelUpdate, { args: [{}] })).resolves.toEqual({ status: 'cancelled' });
      await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
    });
  }

  it('test helper stall (sla_deadline_passed), then fleet failed from stalled', async ({ expect }) => {
    const d = await deliveryIn('assigned');
    const request = { action: 'stall', reason: 'sla_deadline_passed' } as const;
    await expect(d.handle.executeUpdate(testHelperUpdate, { args: [request] })).resolves.toEqual({
      status: 'stalled',
    });
    expect((await d.waitFor('delivery.stalled')).at(-1)).toMatchObject({
      source: 'test_helper',
      payload: { reason: 'sla_deadline_passed', previous_status: 'assigned' },
    });
    await d.fleet('failed');
    await expect(d.handle.result()).resolves.toEqual({ status: 'failed' });
  });

  it('test helper expire_payment_window', async ({ expect }) => {
    const d = await startDelivery({ initialStatus: 'awaiting_payment' });
    const request = { action: 'expire_payment_window' } as const;
    await expect(d.handle.executeUpdate(testHelperUpdate, { args: [request] })).resolves.toEqual({
      status: 'cancelled',
    });
    await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
    expect((await d.waitFor('delivery.cancelled')).at(-1)).toMatchObject({
      source: 'test_helper',
      payload: { reason: 'payment_timeout', previous_status: 'awaiting_payment' },
    });
  });

  it('a flooded run: 60 ignored fleet events one by one, then a queued burst, then delivered', async ({ expect }) => {
    const d = await deliveryIn('assigned');
    for (let i = 0; i < 60; i++) {
      await d.fleet('assigned');
      await d.waitForCount(3 + i);
    }
    await Promise.all(Array.from({ length: 20 }, () => d.fleet('out_for_delivery')));
    for (const step of ['pickup_ready', 'in_transit', 'delivered'] as const) await d.fleet(step);
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
    expect(d.types().filter((t) => t === 'delivery.out_for_delivery')).toHaveLength(20);
  });
});
