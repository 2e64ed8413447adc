// Test mode's simulated couriers and test helpers on the real stack (API, worker, Postgres, Temporal): each built-in
// test courier does what docs/test-mode.md says, no real courier is asked with a test key, and each test helper moves a
// test delivery through the same paths as a courier's fleet event or the delivery's clock (409 with the current status
// when the status does not allow it).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SLOW_QUOTE_MS, simulatedMoves } from '../../src/couriers/adapters/simulated.js';
import { loadConfig } from '../../src/platform/config.js';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { deliveryWorkflowId, stateQuery } from '../../shared/deliveries/definitions.js';
import type { deliveryWorkflow } from '../../workflows/deliveries/workflows.js';
import { simulatedCourierWorkflowId } from '../../shared/simulated-couriers/definitions.js';
import type { simulatedCourierWorkflow } from '../../workflows/simulated-couriers/workflows.js';
import { PARCEL, quoteBody } from '../helpers/fixtures.js';
import { workflowExists } from '../helpers/replay.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith, quoteFrom, types, until } from '../helpers/test-mode.js';

/** The test couriers docs/test-mode.md documents. */
const SIMULATED_SLUGS = [
  'test-auto',
  'test-manual',
  'test-pin',
  'test-never-assigns',
  'test-rejects',
  'test-slow-quotes',
];

let stack: Stack;
let fast: Stack;
beforeAll(async () => {
  // test-auto moves every 200 ms here (10 s by default).
  stack = await startStack({ simulatedCourierStepMs: 200 });
  // A pending budget of seconds, so test-never-assigns stalls while the test waits.
  fast = await startStack({ stateBudgetsMs: { pending: 2000 } });
});
afterAll(async () => {
  await stack?.close();
  await fast?.close();
});

const helper = (s: Stack, key: string, id: string, step: string, body?: unknown) =>
  s.request('POST', `/v1/test_helpers/deliveries/${id}/${step}`, { key, body: body ?? {} });

describe('the simulated test couriers', () => {
  let key: string;
  beforeAll(async () => {
    key = (await stack.tenant()).test_secret_key;
  });

  it('are the documented rows of adapter simulated, offered to test keys without linking', async () => {
    const { rows } = await stack.pool.query<{ slug: string }>(
      `SELECT slug FROM courier_companies WHERE adapter = 'simulated' ORDER BY slug`,
    );
    expect(rows.map((r) => r.slug)).toEqual([...SIMULATED_SLUGS].sort());
    const couriers = await stack.request('GET', '/v1/couriers', { key });
    expect(couriers.status).toBe(200);
    expect(couriers.body.data.map((c: { slug: string }) => c.slug).sort()).toEqual([...SIMULATED_SLUGS].sort());
    // Chosen in a quote like real ones: an entry each (test-slow-quotes only for its parcel type), cheapest first.
    const quotes = await stack.request('POST', '/v1/quotes', { key, body: quoteBody() });
    expect(quotes.status).toBe(200);
    expect(quotes.body.data.map((q: { company_slug: string }) => q.company_slug)).toEqual([
      'test-auto',
      'test-manual',
      'test-pin',
      'test-never-assigns',
      'test-rejects',
    ]);
    expect(
      quotes.body.data.every(
        (q: { livemode: boolean; fee_aoa: number }) => q.livemode === false && Number.isInteger(q.fee_aoa),
      ),
    ).toBe(true);
  });

  it('test-auto accepts and moves by itself to delivered, through the fleet-event path (within a minute by default)', async () => {
    expect(simulatedMoves('test-auto')).toEqual(['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered']);
    // The documented "within a minute": the default step times the number of steps.
    expect(loadConfig({}).simulatedCourierStepMs * simulatedMoves('test-auto').length).toBeLessThan(60_000);
    const d = await deliveryWith(stack, key, 'test-auto');
    expect(d).toMatchObject({ livemode: false, status: 'pending' });
    const done = await until(stack, key, d.id, (x) => x.status === 'delivered');
    expect(types(done)).toEqual([
      'delivery.created',
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
      'delivery.in_transit',
      'delivery.out_for_delivery',
      'delivery.delivered',
    ]);
    expect(done.events.slice(3).every((e: any) => e.source === 'fleet_webhook' && !e.ignored)).toBe(true);
    expect(done.courier.tracking_ref).toBe(`TEST-${d.reference}`);
    // Its `delivered` carries a proof of delivery, as a real courier's may.
    expect(done.proof_of_delivery).toEqual({
      recipient_name: 'Test Recipient',
      photo_url: `https://pod.test-courier.invalid/TEST-${d.reference}/photo.jpg`,
      signature_url: `https://pod.test-courier.invalid/TEST-${d.reference}/signature.png`,
    });
    await expect(stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).result()).resolves.toEqual({
      status: 'delivered',
    });
  });

  it('test-auto stops moving once its delivery is cancelled', async () => {
    const slow = await startStack({ simulatedCourierStepMs: 1500 });
    try {
      const k = (await slow.tenant()).test_secret_key;
      const d = await deliveryWith(slow, k, 'test-auto');
      const assigned = await until(slow, k, d.id, (x) => x.status === 'assigned');
      expect((await slow.request('DELETE', `/v1/deliveries/${d.id}`, { key: k })).status).toBe(200);
      // Its movement workflow ends by itself: its next fleet event finds the delivery's workflow closed.
      const movement = slow.temporal.workflow.getHandle<typeof simulatedCourierWorkflow>(
        simulatedCourierWorkflowId(d.id, assigned.courier.tracking_ref),
      );
      await expect(movement.result()).resolves.toEqual({ sent: 0, stopped: 'delivery_closed' });
      const after = (await slow.request('GET', `/v1/deliveries/${d.id}`, { key: k })).body;
      expect(after.status).toBe('cancelled');
      expect(types(after).filter((t) => t === 'delivery.pickup_ready')).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it('test-manual accepts (assigned at once) and then waits for the test helpers', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    const assigned = await until(stack, key, d.id, (x) => x.status === 'assigned');
    expect(types(assigned)).toEqual(['delivery.created', 'delivery.dispatched', 'delivery.assigned']);
    // Nothing moves it by itself: no movement workflow was started for its booking (test-auto gets one at booking).
    expect(await workflowExists(stack, simulatedCourierWorkflowId(d.id, assigned.courier.tracking_ref))).toBe(false);
    await expect(
      stack.temporal.workflow.getHandle<typeof deliveryWorkflow>(deliveryWorkflowId(d.id)).query(stateQuery),
    ).resolves.toMatchObject({
      status: 'assigned',
    });
  });

  it('test-pin requires the delivery PIN at delivery', async () => {
    const q = await quoteFrom(stack, key, 'test-pin');
    expect(q.require_delivery_pin).toBe(true);
    const d = await deliveryWith(stack, key, 'test-pin');
    expect(d.delivery_pin).toMatch(/^\d{4}$/);
    await until(stack, key, d.id, (x) => x.status === 'assigned');
    expect((await helper(stack, key, d.id, 'advance', { to: 'in_transit' })).status).toBe(200);
    const wrong = await helper(stack, key, d.id, 'advance', {
      to: 'delivered',
      pin: d.delivery_pin === '0000' ? '1111' : '0000',
    });
    stack.expectProblem(wrong, 422, 'delivery_pin_mismatch');
    expect(wrong.body.errors).toEqual([expect.objectContaining({ pointer: '/pin', code: 'delivery_pin_mismatch' })]);
    const missing = await helper(stack, key, d.id, 'advance', { to: 'delivered' });
    stack.expectProblem(missing, 422, 'delivery_pin_mismatch');
    const after = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key })).body;
    expect(after.status).toBe('in_transit');
    expect(after.events.at(-1)).toMatchObject({
      event_type: 'delivery.delivered',
      ignored: true,
      payload: { reason: 'pin_mismatch' },
    });
    const right = await helper(stack, key, d.id, 'advance', { to: 'delivered', pin: d.delivery_pin });
    expect(right.status).toBe(200);
    expect(right.body.status).toBe('delivered');
    expect(JSON.stringify(right.body.events)).not.toContain('"pin"');
  });

  it('test-never-assigns books the job and never assigns: pending until the state budget stalls it', async () => {
    const k = (await fast.tenant()).test_secret_key;
    const d = await deliveryWith(fast, k, 'test-never-assigns');
    const stalled = await until(fast, k, d.id, (x) => x.status === 'stalled');
    expect(types(stalled)).toEqual(['delivery.created', 'delivery.dispatched', 'delivery.stalled']);
    expect(stalled.events[1].payload).toMatchObject({ booking_status: 'pending' });
    expect(stalled.events.at(-1).payload).toMatchObject({ reason: 'state_timeout', previous_status: 'pending' });
  });

  it('test-rejects refuses every booking: stalled with courier_rejected', async () => {
    const d = await deliveryWith(stack, key, 'test-rejects');
    const stalled = await until(stack, key, d.id, (x) => x.status === 'stalled');
    expect(stalled.events.at(-1)).toMatchObject({
      event_type: 'delivery.stalled',
      payload: { reason: 'courier_rejected', previous_status: 'pending' },
    });
  });

  it(`test-slow-quotes answers only parcels of type slow_quote, after ${SLOW_QUOTE_MS} ms; the others at once`, async () => {
    let started = Date.now();
    const quick = await stack.request('POST', '/v1/quotes', { key, body: quoteBody() });
    expect(Date.now() - started).toBeLessThan(SLOW_QUOTE_MS);
    expect(quick.body.data.map((q: { company_slug: string }) => q.company_slug)).not.toContain('test-slow-quotes');
    started = Date.now();
    const slow = await stack.request('POST', '/v1/quotes', {
      key,
      body: { ...quoteBody(), parcel: { ...PARCEL, parcel_type: 'slow_quote' } },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_QUOTE_MS - 50);
    expect(slow.body.data.map((q: { company_slug: string }) => q.company_slug)).toContain('test-slow-quotes');
    expect(slow.body.data).toHaveLength(6);
  });

  it('no real courier is asked with a test key, even one linked to the tenant', async () => {
    let hits = 0;
    const courier = http.createServer((_req, res) => {
      hits++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ fee_aoa: 100, eta_minutes: 5, tracking_ref: 'X', status: 'accepted' }));
    });
    await new Promise<void>((resolve) => courier.listen(0, '127.0.0.1', resolve));
    try {
      const t = await stack.tenant();
      const slug = `real-${Date.now()}`;
      await createCourier(stack.pool, {
        name: 'Real',
        slug,
        adapter: 'http',
        endpoint: `http://127.0.0.1:${(courier.address() as AddressInfo).port}`,
      });
      await linkCouriers(stack.pool, t.tenant_id, slug);
      const test = await stack.request('POST', '/v1/quotes', { key: t.test_secret_key, body: quoteBody() });
      expect(test.body.data.map((q: { company_slug: string }) => q.company_slug)).not.toContain(slug);
      expect(hits).toBe(0);
      const live = await stack.request('POST', '/v1/quotes', { key: t.secret_key, body: quoteBody() });
      expect(live.body.data.map((q: { company_slug: string }) => q.company_slug)).toEqual([slug]);
      expect(hits).toBe(1);
    } finally {
      courier.close();
    }
  });
});

describe('test helpers', () => {
  let key: string;
  beforeAll(async () => {
    key = (await stack.tenant()).test_secret_key;
  });

  it('advance moves a test delivery through every step, as fleet events of the courier', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    await until(stack, key, d.id, (x) => x.status === 'assigned');
    for (const to of ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered']) {
      const res = await helper(stack, key, d.id, 'advance', { to });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ id: d.id, status: to, livemode: false });
      expect(res.body.events.at(-1)).toMatchObject({
        event_type: `delivery.${to}`,
        source: 'fleet_webhook',
        payload: { courier: { note: 'test helper' } },
      });
    }
  });

  it('advance to assigned takes a booked job out of pending; to failed ends it from any status that is not final', async () => {
    const d = await deliveryWith(stack, key, 'test-never-assigns');
    await until(stack, key, d.id, (x) => types(x).includes('delivery.dispatched'));
    const assigned = await helper(stack, key, d.id, 'advance', { to: 'assigned' });
    expect(assigned.body.status).toBe('assigned');
    const failed = await helper(stack, key, d.id, 'advance', { to: 'failed' });
    expect(failed.body.status).toBe('failed');
    await expect(stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).result()).resolves.toEqual({
      status: 'failed',
    });
  });

  it('advance to a status the current one does not allow: 409 problem+json with the current status, nothing recorded', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    await until(stack, key, d.id, (x) => x.status === 'assigned');
    const res = await helper(stack, key, d.id, 'advance', { to: 'delivered' });
    stack.expectProblem(res, 409, 'delivery_transition_not_allowed');
    expect(res.body.current_status).toBe('assigned');
    expect(res.body.detail).toMatch(/in status assigned cannot advance to delivered/);
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key })).body.events).toHaveLength(3);
    // A final delivery takes no more steps.
    await helper(stack, key, d.id, 'advance', { to: 'failed' });
    const after = await helper(stack, key, d.id, 'advance', { to: 'delivered' });
    stack.expectProblem(after, 409, 'delivery_transition_not_allowed');
    expect(after.body.current_status).toBe('failed');
    // Bad input is 422, never 500.
    stack.expectProblem(await helper(stack, key, d.id, 'advance', { to: 'teleported' }), 422, 'validation_failed');
    stack.expectProblem(await helper(stack, key, d.id, 'advance', {}), 422, 'validation_failed');
  });

  it('stall records delivery.stalled with the reason asked for; then the delivery can only fail; 409 when it cannot stall', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    await until(stack, key, d.id, (x) => x.status === 'assigned');
    const res = await helper(stack, key, d.id, 'stall', { reason: 'sla_deadline_passed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('stalled');
    expect(res.body.events.at(-1)).toMatchObject({
      event_type: 'delivery.stalled',
      source: 'test_helper',
      payload: { reason: 'sla_deadline_passed', previous_status: 'assigned' },
    });
    const again = await helper(stack, key, d.id, 'stall');
    stack.expectProblem(again, 409, 'delivery_transition_not_allowed');
    expect(again.body.current_status).toBe('stalled');
    stack.expectProblem(
      await helper(stack, key, d.id, 'advance', { to: 'in_transit' }),
      409,
      'delivery_transition_not_allowed',
    );
    expect((await helper(stack, key, d.id, 'advance', { to: 'failed' })).body.status).toBe('failed');

    // Without a body the reason is state_timeout; an unknown reason is 422.
    const other = await deliveryWith(stack, key, 'test-manual');
    await until(stack, key, other.id, (x) => x.status === 'assigned');
    stack.expectProblem(await helper(stack, key, other.id, 'stall', { reason: 'bored' }), 422, 'validation_failed');
    const bare = await stack.request('POST', `/v1/test_helpers/deliveries/${other.id}/stall`, { key });
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body.events.at(-1).payload).toMatchObject({ reason: 'state_timeout', previous_status: 'assigned' });
  });

  it('expire_payment_window cancels a bank_transfer delivery awaiting payment (payment_timeout); 409 in any other status', async () => {
    const d = await deliveryWith(stack, key, 'test-manual', { payment_method: 'bank_transfer' });
    expect(d.status).toBe('awaiting_payment');
    const res = await stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/expire_payment_window`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('cancelled');
    expect(res.body.events.at(-1)).toMatchObject({
      event_type: 'delivery.cancelled',
      source: 'test_helper',
      payload: { reason: 'payment_timeout', previous_status: 'awaiting_payment' },
    });
    await expect(stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).result()).resolves.toEqual({
      status: 'cancelled',
    });
    const after = await helper(stack, key, d.id, 'expire_payment_window');
    stack.expectProblem(after, 409, 'delivery_transition_not_allowed');
    expect(after.body.current_status).toBe('cancelled');

    const prepaid = await deliveryWith(stack, key, 'test-manual');
    await until(stack, key, prepaid.id, (x) => x.status === 'assigned');
    const refused = await helper(stack, key, prepaid.id, 'expire_payment_window');
    stack.expectProblem(refused, 409, 'delivery_transition_not_allowed');
    expect(refused.body.current_status).toBe('assigned');
    expect(refused.body.detail).toMatch(/not awaiting_payment/);
  });

  it('advance right after creation waits for the booking: never 409 "retry in a moment" nor "moved meanwhile" (#27)', async () => {
    // Each step is asked the moment the delivery exists, while its courier is being booked (test-manual assigns at once).
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => deliveryWith(stack, key, 'test-manual')));
    const [toAssigned, toPickup, toTransit] = await Promise.all([
      helper(stack, key, a.id, 'advance', { to: 'assigned' }),
      helper(stack, key, b.id, 'advance', { to: 'pickup_ready' }),
      helper(stack, key, c.id, 'advance', { to: 'in_transit' }),
    ]);
    expect(toAssigned.status, JSON.stringify(toAssigned.body)).toBe(200);
    expect(toAssigned.body.status).toBe('assigned');
    expect(toPickup.status, JSON.stringify(toPickup.body)).toBe(200);
    expect(toPickup.body.status).toBe('pickup_ready');
    expect(toTransit.status, JSON.stringify(toTransit.body)).toBe(200);
    expect(toTransit.body.status).toBe('in_transit');
    for (const res of [toPickup, toTransit])
      expect(types(res.body).slice(0, 3)).toEqual(['delivery.created', 'delivery.dispatched', 'delivery.assigned']);
  });

  it('advance to the status the delivery already has: 200 with it unchanged, nothing recorded (#27)', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    const assigned = await until(stack, key, d.id, (x) => x.status === 'assigned');
    const again = await helper(stack, key, d.id, 'advance', { to: 'assigned' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.status).toBe('assigned');
    expect(again.body.events).toEqual(assigned.events);
    expect((await helper(stack, key, d.id, 'advance', { to: 'failed' })).body.status).toBe('failed');
    const failedAgain = await helper(stack, key, d.id, 'advance', { to: 'failed' });
    expect(failedAgain.status, JSON.stringify(failedAgain.body)).toBe(200);
    expect(failedAgain.body.status).toBe('failed');
    expect(types(failedAgain.body).filter((t) => t === 'delivery.failed')).toHaveLength(1);
  });

  it('advance to failed works at any moment: right after creation, awaiting payment, while pending without a driver (#27)', async () => {
    const [fresh, awaiting, never] = await Promise.all([
      deliveryWith(stack, key, 'test-manual'),
      deliveryWith(stack, key, 'test-manual', { payment_method: 'bank_transfer' }),
      deliveryWith(stack, key, 'test-never-assigns'),
    ]);
    const [a, b, c] = await Promise.all(
      [fresh, awaiting, never].map((d) => helper(stack, key, d.id, 'advance', { to: 'failed' })),
    );
    for (const res of [a, b, c]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.events.at(-1)).toMatchObject({ event_type: 'delivery.failed', source: 'fleet_webhook' });
    }
  });

  it('an unknown or malformed delivery id is 404', async () => {
    stack.expectProblem(
      await helper(stack, key, '00000000-0000-4000-8000-000000000000', 'advance', { to: 'assigned' }),
      404,
      'not_found',
    );
    stack.expectProblem(await helper(stack, key, 'nope', 'stall'), 404, 'not_found');
  });
});

describe('determinism', () => {
  it("the runs of this file (test helpers' updates, test-auto's movement) replay without nondeterminism", async () => {
    const histories = [];
    for (const s of [stack, fast]) {
      for await (const wf of s.temporal.workflow.list({ query: `TaskQueue = "${s.config.taskQueue}"` })) {
        histories.push({
          workflowId: wf.workflowId,
          history: await s.temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory(),
        });
      }
    }
    expect(histories.some((h) => h.workflowId.startsWith('simulated-courier-'))).toBe(true);
    expect(histories.filter((h) => h.workflowId.startsWith('delivery-')).length).toBeGreaterThan(10);
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('bundlePath') } },
      histories,
    )) {
      expect(result.error, result.workflowId).toBeUndefined();
    }
  });
});
