// Temporal UI actions that used to strand a delivery (docs/operations.md "Temporal UI actions"): a workflow closed by
// hand while its delivery was not final is started again by the reconciler, from the delivery's state in Postgres,
// and `delivery recover` does the same before it signals. (Request Cancellation is handled inside the workflow:
// test/workflows/ui-actions.fast.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import { buildProgram } from '../../src/cli/index.js';
import { restartClosedSince, restartIfClosed } from '../../src/deliveries/recovery.js';
import { deliveryWorkflowId, stateQuery } from '../../shared/deliveries/definitions.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
const key = (m: Merchant) => m.tenant.secret_key;

beforeAll(async () => {
  stack = await startStack();
  sim = await startSimulator();
});
afterAll(async () => {
  await sim?.close();
  await stack?.close();
});

const handleOf = (id: string) => stack.temporal.workflow.getHandle(deliveryWorkflowId(id));

/** Waits until the delivery's workflow runs again, and answers its state query. */
async function runningAgain(id: string) {
  await expect.poll(async () => (await handleOf(id).describe()).status.name, { timeout: 15_000 }).toBe('RUNNING');
  return handleOf(id).query(stateQuery);
}

describe('a workflow closed by hand', () => {
  it('terminated while stalled: the reconciler starts it again, stalled, and the operator can recover it', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ reject_bookings: 422 })]);
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, key(m), d.id, 'stalled');
    const since = new Date();
    await handleOf(d.id).terminate('pressed Terminate in the Temporal UI');
    // Visibility lists the closed run a moment after the terminate: pass again until it is found.
    let restarted = 0;
    await expect
      .poll(async () => (restarted += await restartClosedSince(stack.temporal, stack.pool, stack.config, since)), {
        timeout: 15_000,
      })
      .toBe(1);
    expect(await runningAgain(d.id)).toMatchObject({ status: 'stalled', previousStatus: 'pending' });
    // A second pass finds it running: nothing to do.
    expect(await restartClosedSince(stack.temporal, stack.pool, stack.config, since)).toBe(0);
    await handleOf(d.id).signal('operatorAction', { action: 'cancel', note: 'customer gave up' });
    await waitForStatus(stack, key(m), d.id, 'cancelled');
  });

  it('terminated while assigned: started again with its booking; DELETE cancels it as usual', async () => {
    const m = await merchantWith(stack, sim, [simCompany()]);
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    await handleOf(d.id).terminate('pressed Terminate in the Temporal UI');
    expect(await restartIfClosed(stack.temporal, stack.pool, stack.config, d.id)).toBe(true);
    expect(await runningAgain(d.id)).toMatchObject({ status: 'assigned', trackingRef: assigned.courier.tracking_ref });
    const cancelled = await stack.request('DELETE', `/v1/deliveries/${d.id}`, { key: key(m) });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
  });

  it('terminated while pending without a booking: started again, it books the courier', async () => {
    const company = simCompany({ latency_ms: 1500, faults_on: ['bookings'] }); // the booking is still on its way
    const m = await merchantWith(stack, sim, [company]);
    const d = await createDeliveryFor(stack, m);
    await handleOf(d.id).terminate('pressed Terminate in the Temporal UI');
    sim.control.configure(company.slug, { latency_ms: 0 });
    expect(await restartIfClosed(stack.temporal, stack.pool, stack.config, d.id)).toBe(true);
    await waitForStatus(stack, key(m), d.id, 'assigned');
  });

  it('delivery recover starts a terminated workflow again before it signals', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ reject_bookings: 422 })]);
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, key(m), d.id, 'stalled');
    await handleOf(d.id).terminate('pressed Terminate in the Temporal UI');
    let out = '';
    await buildProgram(
      () => stack.pool,
      (t) => void (out += t),
      async () => stack.temporal,
      () => stack.config,
    ).parseAsync(['delivery', 'recover', d.id, '--action', 'mark_failed', '--json'], { from: 'user' });
    expect(JSON.parse(out)).toMatchObject({ delivery_id: d.id, action: 'mark_failed', status: 'failed' });
  });

  it('a final delivery is left alone', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ auto_progress: { delay_ms: 50 } })]);
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, key(m), d.id, 'delivered', 20_000);
    expect(await restartIfClosed(stack.temporal, stack.pool, stack.config, d.id)).toBe(false);
  });
});
