// Temporal UI actions in the fast tier (fake activities): Request Cancellation on a delivery's workflow follows the
// usual cancellation rules and never ends the workflow abruptly (docs/operations.md "Temporal UI actions").
import { describe, it } from 'vitest';
import { courier } from '../helpers/fake-activities.js';
import { env, startDelivery, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

describe.concurrent('Request Cancellation in the Temporal UI', () => {
  it('a cancellable delivery is cancelled as by the API (source operator), and the booking released', async ({
    expect,
  }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted') });
    await d.waitFor('delivery.assigned');
    await d.handle.cancel();
    await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
    const last = env.fakes.eventsOf(d.id).at(-1)!;
    expect(last).toMatchObject({
      eventType: 'delivery.cancelled',
      toStatus: 'cancelled',
      source: 'operator',
      payload: { reason: 'operator', previous_status: 'assigned' },
    });
    expect(env.fakes.callsOf(d.id, 'cancelBooking').length).toBeGreaterThanOrEqual(1);
  });

  it('a stalled delivery is cancelled like an operator cancel', async ({ expect }) => {
    const d = await startDelivery({ dispatch: courier.rejects() });
    await d.waitFor('delivery.stalled');
    await d.handle.cancel();
    await expect(d.handle.result()).resolves.toEqual({ status: 'cancelled' });
    expect(env.fakes.eventsOf(d.id).at(-1)).toMatchObject({
      eventType: 'delivery.cancelled',
      source: 'operator',
      payload: { reason: 'operator' },
    });
  });

  it('after pickup it is recorded as an ignored operator action, and the delivery goes on to the end', async ({
    expect,
  }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted') });
    await d.waitFor('delivery.assigned');
    await d.fleet('in_transit');
    await d.waitFor('delivery.in_transit');
    await d.handle.cancel();
    const events = await d.waitFor('delivery.operator_action');
    expect(events.at(-1)).toMatchObject({
      source: 'operator',
      toStatus: null,
      payload: { action: 'cancel', ignored: true, reason: 'not_cancellable_in_transit' },
    });
    await d.fleet('delivered');
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
  });
});
