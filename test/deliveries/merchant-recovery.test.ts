// A merchant recovers its own stalled delivery (design.md "Merchants recover their own stalled deliveries",
// docs/deliveries.md "Recovering a stalled delivery"): POST /v1/deliveries/{id}/recover on the real stack, each
// action from a stalled delivery, the `recovery` field that says which ones it accepts, and the refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, waitForStatus } from '../helpers/fixtures.js';
import { deliveryWith, until } from '../helpers/test-mode.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { randomUUID } from 'node:crypto';
import { recordEventWithMessage } from '../../src/webhooks/dispatcher.js';
import { deliveryWorkflowId, recoverUpdate, testHelperUpdate } from '../../shared/deliveries/definitions.js';

let stack: Stack;
let sim: Simulator;

beforeAll(async () => {
  stack = await startStack();
  sim = await startSimulator();
});
afterAll(async () => {
  await sim?.close();
  await stack?.close();
});

/** The simulated test couriers (migrations/1700000004100_simulated-couriers.sql): test-auto is the cheapest. */
const TEST_AUTO_ID = '8da57b84-642c-4662-bedb-196b0b8a2e88';
const TEST_MANUAL_ID = '9c8aa328-00c4-439c-8cd7-62d7a3888572';
const ALL_ACTIONS = ['redispatch', 'resume', 'mark_failed', 'cancel'];

const recover = (key: string, id: string, body: unknown) =>
  stack.request('POST', `/v1/deliveries/${id}/recover`, { key, body });

/** A test delivery whose courier (test-rejects) refused the booking: stalled from pending. */
async function rejected() {
  const t = await stack.tenant();
  const key = t.test_secret_key;
  const d = await deliveryWith(stack, key, 'test-rejects');
  const stalled = await until(stack, key, d.id, (x) => x.status === 'stalled');
  return { t, key, d, stalled };
}

/** A test-manual delivery moved to in_transit, then stalled there by the test helper (after pickup). */
async function stalledInTransit() {
  const t = await stack.tenant();
  const key = t.test_secret_key;
  const d = await deliveryWith(stack, key, 'test-manual');
  const helper = (step: string, body: unknown) =>
    stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/${step}`, { key, body });
  expect((await helper('advance', { to: 'in_transit' })).status).toBe(200);
  const stalled = await helper('stall', { reason: 'state_timeout' });
  expect(stalled.status).toBe(200);
  return { key, d, stalled: stalled.body };
}

const lastEvent = (
  d: { events: { event_type: string; source: string; payload: Record<string, unknown> }[] },
  type: string,
) => [...d.events].reverse().find((e) => e.event_type === type);

describe('recovery: what a stalled delivery accepts', () => {
  it('stalled before pickup: the reason, the status it left and every action; null once it moves on', async () => {
    const { key, d, stalled } = await rejected();
    expect(stalled.recovery).toEqual({ reason: 'courier_rejected', previous_status: 'pending', actions: ALL_ACTIONS });
    const res = await recover(key, d.id, { action: 'mark_failed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.recovery).toBeNull();
  });

  it('stalled after pickup: no cancel; cancel is 409 recovery_not_allowed and changes nothing', async () => {
    const { key, d, stalled } = await stalledInTransit();
    expect(stalled.recovery).toEqual({
      reason: 'state_timeout',
      previous_status: 'in_transit',
      actions: ['redispatch', 'resume', 'mark_failed'],
    });
    const res = await recover(key, d.id, { action: 'cancel' });
    stack.expectProblem(res, 409, 'recovery_not_allowed');
    const after = await stack.request('GET', `/v1/deliveries/${d.id}`, { key });
    expect(after.body.status).toBe('stalled');
    expect(after.body.events.length).toBe(stalled.events.length);
  });

  it('a delivery that is not stalled has recovery null, and recover is 409 delivery_not_stalled', async () => {
    const t = await stack.tenant();
    const key = t.test_secret_key;
    const d = await deliveryWith(stack, key, 'test-manual');
    const assigned = await until(stack, key, d.id, (x) => x.status === 'assigned');
    expect(assigned.recovery).toBeNull();
    for (const action of ALL_ACTIONS) {
      const res = await recover(key, d.id, { action });
      stack.expectProblem(res, 409, 'delivery_not_stalled');
    }
    const after = await stack.request('GET', `/v1/deliveries/${d.id}`, { key });
    expect(after.body.status).toBe('assigned');
    expect(after.body.events.length).toBe(assigned.events.length);
  });
});

describe('recover: each action, recorded with source api', () => {
  it('resume: back to the status before the stall', async () => {
    const { key, d } = await stalledInTransit();
    const res = await recover(key, d.id, { action: 'resume' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('in_transit');
    expect(lastEvent(res.body, 'delivery.resumed')).toMatchObject({
      source: 'api',
      payload: { action: 'resume', status: 'in_transit' },
    });
  });

  it('mark_failed: failed, with the reason given (default merchant_request)', async () => {
    const { key, d } = await stalledInTransit();
    const res = await recover(key, d.id, { action: 'mark_failed', reason: 'customer_moved' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(lastEvent(res.body, 'delivery.failed')).toMatchObject({
      source: 'api',
      payload: { action: 'mark_failed', reason: 'customer_moved' },
    });
    const other = await rejected();
    const byDefault = await recover(other.key, other.d.id, { action: 'mark_failed' });
    expect(lastEvent(byDefault.body, 'delivery.failed')?.payload.reason).toBe('merchant_request');
  });

  it('cancel: a delivery that stalled before pickup is cancelled', async () => {
    const { key, d } = await rejected();
    const res = await recover(key, d.id, { action: 'cancel' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('cancelled');
    expect(lastEvent(res.body, 'delivery.cancelled')).toMatchObject({
      source: 'api',
      payload: { action: 'cancel', reason: 'merchant_request' },
    });
  });

  it('redispatch with company_id: booked with that company', async () => {
    const { key, d } = await rejected();
    const res = await recover(key, d.id, { action: 'redispatch', company_id: TEST_MANUAL_ID });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.company_id).toBe(TEST_MANUAL_ID);
    expect(lastEvent(res.body, 'delivery.redispatched')).toMatchObject({
      source: 'api',
      payload: { action: 'redispatch', company_id: TEST_MANUAL_ID },
    });
    await until(stack, key, d.id, (x) => x.status === 'assigned');
  });

  it('redispatch without company_id: the next company within the fee ceiling (the cheapest here), at its fee', async () => {
    const { key, d, stalled } = await rejected();
    const res = await recover(key, d.id, { action: 'redispatch' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.company_id).toBe(TEST_AUTO_ID);
    const event = lastEvent(res.body, 'delivery.redispatched')!;
    expect(event).toMatchObject({
      source: 'api',
      payload: { company_id: TEST_AUTO_ID, from_company_id: stalled.company_id },
    });
    expect(event.payload.new_fee_aoa).toBeLessThanOrEqual(stalled.quoted_fee_aoa);
    expect(res.body.quoted_fee_aoa).toBe(event.payload.new_fee_aoa);
    await until(stack, key, d.id, (x) => x.status === 'assigned');
  });
});

describe('redispatch without company_id, when no other company qualifies', () => {
  it('409 no_company_available; within a raised fee ceiling the dearer company takes it', async () => {
    const stalling = simCompany({ reject_bookings: 422 });
    const dearer = simCompany({ pricing: { base_fee_aoa: 400_000, per_km_aoa: 10_000, base_eta_minutes: 45 } });
    const m = await merchantWith(stack, sim, [stalling, dearer]);
    const key = m.tenant.secret_key;
    const d = await createDeliveryFor(stack, m);
    const stalled = await waitForStatus(stack, key, d.id, 'stalled');
    stack.expectProblem(await recover(key, d.id, { action: 'redispatch' }), 409, 'no_company_available');
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key })).body.events.length).toBe(
      stalled.events.length,
    );
    const raised = await stack.request('PUT', '/v1/settings/dispatch', {
      key,
      body: { max_fee_increase_aoa: 1_000_000 },
    });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    const res = await recover(key, d.id, { action: 'redispatch' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.company_id).toBe(m.couriers[dearer.slug]);
    expect(res.body.quoted_fee_aoa).toBeGreaterThan(stalled.quoted_fee_aoa);
    await waitForStatus(stack, key, d.id, 'assigned');
  });
});

describe('refusals', () => {
  it('422 for a bad body (unknown action, unknown field, a field of another action); nothing changes', async () => {
    const { key, d, stalled } = await rejected();
    for (const body of [
      {},
      { action: 'fly' },
      { action: 'resume', note: 'x' },
      { action: 'cancel', company_id: TEST_AUTO_ID },
      { action: 'mark_failed', reason: '' },
      { action: 'redispatch', company_id: 'not-a-uuid' },
    ]) {
      const res = await recover(key, d.id, body);
      stack.expectProblem(res, 422, 'validation_failed');
    }
    const unknown = await recover(key, d.id, { action: 'resume', note: 'x' });
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ pointer: '/note', code: 'unknown_field' }));
    const after = await stack.request('GET', `/v1/deliveries/${d.id}`, { key });
    expect(after.body.status).toBe('stalled');
    expect(after.body.events.length).toBe(stalled.events.length);
  });

  it('422 company_not_linked for a company the account cannot book (unknown, or a live one in test mode)', async () => {
    const { key, d } = await rejected();
    const unknown = await recover(key, d.id, {
      action: 'redispatch',
      company_id: '00000000-0000-4000-8000-000000000000',
    });
    stack.expectProblem(unknown, 422, 'company_not_linked');
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({ pointer: '/company_id', code: 'company_not_linked' }),
    ]);
    const m = await merchantWith(stack, sim, [simCompany()]);
    const live = await recover(key, d.id, { action: 'redispatch', company_id: m.couriers[m.slug] });
    stack.expectProblem(live, 422, 'company_not_linked');
  });

  it("another tenant's delivery, or the other mode's, is 404", async () => {
    const { t, d } = await rejected();
    const other = await stack.tenant();
    stack.expectProblem(await recover(other.test_secret_key, d.id, { action: 'resume' }), 404, 'not_found');
    stack.expectProblem(await recover(t.secret_key, d.id, { action: 'resume' }), 404, 'not_found');
  });
});

describe('a workflow behind its own row (a worker died after a record committed, before its task completed)', () => {
  /** Writes what the workflow's record of `eventType` writes, ahead of the workflow (as the dead worker left it). */
  async function rowAhead(id: string, eventType: string, toStatus: string, payload: Record<string, unknown>) {
    const { rows } = await stack.pool.query('SELECT tenant_id FROM deliveries WHERE id = $1', [id]);
    await recordEventWithMessage(
      stack.pool,
      {
        deliveryId: id,
        tenantId: rows[0].tenant_id,
        eventId: randomUUID(),
        eventType,
        occurredAt: new Date().toISOString(),
        source: 'system',
        payload,
        toStatus: toStatus as never,
      },
      false,
    );
  }
  const handle = (id: string) => stack.temporal.workflow.getHandle(deliveryWorkflowId(id));
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('recover waits for the workflow to catch up with a stall its row already shows: 200, never 409', async () => {
    const t = await stack.tenant();
    const key = t.test_secret_key;
    const d = await deliveryWith(stack, key, 'test-manual');
    const advanced = await stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/advance`, {
      key,
      body: { to: 'in_transit' },
    });
    expect(advanced.status).toBe(200);
    await rowAhead(d.id, 'delivery.stalled', 'stalled', { reason: 'state_timeout', previous_status: 'in_transit' });
    const answer = recover(key, d.id, { action: 'resume' });
    await pause(1_500);
    // The workflow catches up with its row (as the replay's record does).
    await handle(d.id).executeUpdate(testHelperUpdate, { args: [{ action: 'stall', reason: 'state_timeout' }] });
    const res = await answer;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('in_transit');
    expect(lastEvent(res.body, 'delivery.resumed')).toMatchObject({ source: 'api', payload: { action: 'resume' } });
  });

  it('a cancellation waits for the workflow to catch up with a resume its row already shows: 200, never 422', async () => {
    const t = await stack.tenant();
    const key = t.test_secret_key;
    const d = await deliveryWith(stack, key, 'test-manual');
    await until(stack, key, d.id, (x) => x.status === 'assigned');
    const stalled = await stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/stall`, {
      key,
      body: { reason: 'state_timeout' },
    });
    expect(stalled.status).toBe(200);
    await rowAhead(d.id, 'delivery.resumed', 'assigned', { action: 'resume', note: null, status: 'assigned' });
    const answer = stack.request('DELETE', `/v1/deliveries/${d.id}`, { key });
    await pause(1_500);
    await handle(d.id).executeUpdate(recoverUpdate, { args: [{ action: 'resume' }] });
    const res = await answer;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ status: 'cancelled' });
  });

  it('the test helper stall waits for the workflow to catch up with a resume its row already shows: 200, never 409', async () => {
    const { key, d } = await stalledInTransit();
    await rowAhead(d.id, 'delivery.resumed', 'in_transit', { action: 'resume', note: null, status: 'in_transit' });
    const answer = stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/stall`, {
      key,
      body: { reason: 'state_timeout' },
    });
    await pause(1_500);
    await handle(d.id).executeUpdate(recoverUpdate, { args: [{ action: 'resume' }] });
    const res = await answer;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('stalled');
  });
});
