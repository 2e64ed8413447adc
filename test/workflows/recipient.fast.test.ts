// The recipient's answers in the delivery workflow, fast tier (fake activities): the recipientUpdate update records
// `delivery.recipient_updated` (source `recipient`, no status change) and the booked courier hears of it through
// courierUpdateWorkflow (the sendCourierUpdate activity); nothing to tell before a booking; refused once final.
// The real stack: test/pages/recipient-page.test.ts.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, it } from 'vitest';
import { recipientUpdate } from '../../shared/deliveries/definitions.js';
import { courier } from '../helpers/fake-activities.js';
import { env, startDelivery, useFakeWorker } from '../helpers/fast-delivery.js';

useFakeWorker();

const until = async (check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe.concurrent('the recipient answers, fast tier (fake activities)', () => {
  it('recorded as delivery.recipient_updated, no status change; the courier is told in the background', async ({
    expect,
  }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted') });
    await d.waitFor('delivery.assigned');
    await d.fleet('in_transit');
    await d.waitFor('delivery.in_transit');
    const update = { instructions: 'Portão azul', destination_coordinates: { lat: -8.85, lng: 13.26 } };
    await expect(d.handle.executeUpdate(recipientUpdate, { args: [update] })).resolves.toEqual({
      status: 'in_transit',
    });
    const events = await d.waitFor('delivery.recipient_updated');
    expect(events.at(-1)).toMatchObject({ source: 'recipient', toStatus: null, payload: update });
    await until(() => env.fakes.callsOf(d.id, 'sendCourierUpdate').length === 1);
    expect(env.fakes.callsOf(d.id, 'sendCourierUpdate')[0].input).toMatchObject({ update });
    await d.fleet('out_for_delivery');
    await d.fleet('delivered');
    await expect(d.handle.result()).resolves.toEqual({ status: 'delivered' });
  });

  it('refused once the delivery is over: nothing recorded, nothing sent', async ({ expect }) => {
    const d = await startDelivery({ dispatch: courier.books('accepted') });
    await d.waitFor('delivery.assigned');
    await d.fleet('in_transit');
    await d.fleet('delivered');
    await d.waitFor('delivery.delivered');
    const refused = d.handle.executeUpdate(recipientUpdate, { args: [{ instructions: 'tarde' }] });
    // The run has ended with its final status (WorkflowNotFoundError), or its validator refused (a status of the moment).
    const err = await refused.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError, String(err)).toBe(true);
    expect(env.fakes.eventTypesOf(d.id)).not.toContain('delivery.recipient_updated');
    expect(env.fakes.callsOf(d.id, 'sendCourierUpdate')).toEqual([]);
  });
});
