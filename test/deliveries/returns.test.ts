// Failed delivery attempts and returns to sender on the real stack (design.md "Attempts, returns and proof of
// delivery"), in test mode: test-manual's deliveries moved by the test helpers, which take the courier's fleet-event
// path (attempt_failed included), and a signed fleet event from the courier simulator for the strict reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import { quoteBody, merchantWith, simCompany, startSimulator, waitForStatus } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startReturn } from '../../src/deliveries/returns.js';
import { deliveryWith, quoteFrom, types, until } from '../helpers/test-mode.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  key = (await stack.tenant()).test_secret_key;
});
afterAll(async () => {
  await stack?.close();
});

const helper = (id: string, body: Record<string, unknown>, k = key) =>
  stack.request('POST', `/v1/test_helpers/deliveries/${id}/advance`, { key: k, body });

/** Advances a test delivery step by step (each must answer 200). */
async function advance(id: string, ...steps: (string | [string, string])[]) {
  let last: any;
  for (const step of steps) {
    const body = Array.isArray(step) ? { to: step[0], reason: step[1] } : { to: step };
    const res = await helper(id, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    last = res.body;
  }
  return last;
}

const eventOf = (d: any, type: string) => d.events.filter((e: any) => e.event_type === type);

describe('failed attempts', () => {
  it('back to in_transit; the next out_for_delivery is the next attempt, delivered at the second', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    const after = await advance(d.id, 'in_transit', 'out_for_delivery', ['attempt_failed', 'recipient_unavailable']);
    expect(after.status).toBe('in_transit');
    expect(eventOf(after, 'delivery.attempt_failed')[0]).toMatchObject({
      source: 'fleet_webhook',
      payload: { attempt: 1, reason: 'recipient_unavailable', attempts_left: 1 },
    });
    const done = await advance(d.id, 'out_for_delivery', 'delivered');
    expect(done.status).toBe('delivered');
    expect(done.return_delivery_id).toBeNull();
    expect(types(done).slice(-4)).toEqual([
      'delivery.out_for_delivery',
      'delivery.attempt_failed',
      'delivery.out_for_delivery',
      'delivery.delivered',
    ]);
  });

  it('a reason outside the list, or none, is 422 with a pointer and changes nothing', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    await advance(d.id, 'in_transit');
    const none = await helper(d.id, { to: 'attempt_failed' });
    expect(none.status).toBe(422);
    expect(none.body.errors[0]).toMatchObject({ pointer: '/reason', code: 'required' });
    const bad = await helper(d.id, { to: 'attempt_failed', reason: 'dog_bit_driver' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].pointer).toBe('/reason');
    const now = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key })).body;
    expect(now.status).toBe('in_transit');
    expect(eventOf(now, 'delivery.attempt_failed')).toEqual([]);
  });

  it('not from assigned: 409 with the current status', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    const res = await helper(d.id, { to: 'attempt_failed', reason: 'other' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'delivery_transition_not_allowed', current_status: 'assigned' });
  });
});

describe('returns to sender', () => {
  it('after the last attempt: failed, a return made, booked and linked both ways; its delivery returns the original, no cash booked', async () => {
    const d = await deliveryWith(stack, key, 'test-manual', { payment_method: 'cod', cash_collect_aoa: 500_000 });
    await advance(d.id, 'in_transit', 'out_for_delivery', ['attempt_failed', 'recipient_unavailable']);
    const failed = await advance(d.id, 'out_for_delivery', ['attempt_failed', 'address_not_found']);
    expect(failed.status).toBe('failed');
    expect(eventOf(failed, 'delivery.failed')[0].payload).toMatchObject({
      reason: 'delivery_attempts_exhausted',
      attempts: 2,
    });
    const original = await until(stack, key, d.id, (x) => types(x).includes('delivery.return_started'));
    const returnId = original.return_delivery_id;
    expect(returnId).toEqual(expect.any(String));
    expect(eventOf(original, 'delivery.return_started')[0].payload).toMatchObject({ return_delivery_id: returnId });

    const r = await until(stack, key, returnId, (x) => x.status === 'assigned');
    expect(r).toMatchObject({
      return_of: d.id,
      return_delivery_id: null,
      reference: `${d.reference}-R`,
      payment_method: 'prepaid',
      cash_collect_aoa: null,
      company_id: d.company_id,
      origin: d.destination,
      destination: d.origin,
      livemode: false,
    });
    // Priced by the company's quote for the swapped route (test-manual's card: return_fee_pct absent, 100 %).
    const body = quoteBody();
    const swapped = await quoteFrom(stack, key, 'test-manual', {
      ...body,
      origin: body.destination,
      destination: body.origin,
    });
    expect(r.quoted_fee_aoa).toBe(swapped.fee_aoa);

    await advance(returnId, 'in_transit', 'delivered');
    const back = await until(stack, key, d.id, (x) => types(x).includes('delivery.returned'));
    expect(back.status).toBe('failed');
    expect(eventOf(back, 'delivery.returned')[0].payload).toMatchObject({ return_delivery_id: returnId });
    // A cash-on-delivery delivery that comes back books no cash: neither it nor its return collected any.
    expect(back.cod).toMatchObject({ expected_aoa: 500_000, collected_aoa: null, status: 'awaiting_collection' });
    expect((await stack.request('GET', `/v1/deliveries/${returnId}`, { key })).body.cod).toBeNull();
    const booked = await stack.pool.query(
      'SELECT count(*)::int AS n FROM cod_collections WHERE delivery_id = ANY($1)',
      [[d.id, returnId]],
    );
    expect(booked.rows[0].n).toBe(0);
    // A return is never returned itself.
    const again = await stack.request('POST', `/v1/deliveries/${returnId}/return`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('return_not_allowed');
  });

  it('a refusal ends the attempts at once, with the refusal as the reason', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    const failed = await advance(d.id, 'in_transit', 'out_for_delivery', ['attempt_failed', 'recipient_refused']);
    expect(failed.status).toBe('failed');
    expect(eventOf(failed, 'delivery.failed')[0].payload).toMatchObject({ reason: 'recipient_refused', attempts: 1 });
    const original = await until(stack, key, d.id, (x) => x.return_delivery_id !== null);
    const r = (await stack.request('GET', `/v1/deliveries/${original.return_delivery_id}`, { key })).body;
    expect(r.return_of).toBe(d.id);
  });

  it('by hand for a failed delivery: 201 with the return; 409 a second time, before failure, or for a return', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    const early = await stack.request('POST', `/v1/deliveries/${d.id}/return`, { key });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('return_not_allowed');
    await advance(d.id, 'in_transit', 'failed');
    const made = await stack.request('POST', `/v1/deliveries/${d.id}/return`, { key });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ return_of: d.id, reference: `${d.reference}-R`, payment_method: 'prepaid' });
    const original = await until(stack, key, d.id, (x) => types(x).includes('delivery.return_started'));
    expect(original.return_delivery_id).toBe(made.body.id);
    const twice = await stack.request('POST', `/v1/deliveries/${d.id}/return`, { key });
    expect(twice.status).toBe(409);
    const ofReturn = await stack.request('POST', `/v1/deliveries/${made.body.id}/return`, { key });
    expect(ofReturn.status).toBe(409);
    const unknown = await stack.request('POST', `/v1/deliveries/00000000-0000-4000-8000-000000000000/return`, { key });
    expect(unknown.status).toBe(404);
    const extra = await stack.request('POST', `/v1/deliveries/${d.id}/return`, { key, body: { force: true } });
    expect(extra.status).toBe(422);
  });
});

describe('one return per delivery', () => {
  it('retries and races of the worker activity find the same return, once booked', async () => {
    const d = await deliveryWith(stack, key, 'test-manual');
    await advance(d.id, 'in_transit', 'failed');
    const deps = { pool: stack.pool, config: stack.config, temporal: stack.temporal };
    const made = await Promise.all([1, 2, 3].map(() => startReturn(deps, d.id, { scope: null, manual: false })));
    expect(new Set(made.map((r) => r!.id)).size).toBe(1);
    const again = await startReturn(deps, d.id, { scope: null, manual: false });
    expect(again!.id).toBe(made[0]!.id);
    const { rows } = await stack.pool.query('SELECT id FROM deliveries WHERE return_of = $1', [d.id]);
    expect(rows).toHaveLength(1);
    const r = await until(stack, key, made[0]!.id, (x) => x.status === 'assigned');
    expect(types(r).filter((t) => t === 'delivery.dispatched')).toHaveLength(1);
    const original = await until(stack, key, d.id, (x) => types(x).includes('delivery.return_started'));
    expect(eventOf(original, 'delivery.return_started')).toHaveLength(1);
  });
});

describe('max_delivery_attempts in the dispatch settings', () => {
  it('defaults to 2, takes 1-5 (422 otherwise), and a delivery made after the change uses it', async () => {
    const own = (await stack.tenant()).test_secret_key;
    const got = await stack.request('GET', '/v1/settings/dispatch', { key: own });
    expect(got.status).toBe(200);
    expect(got.body.max_delivery_attempts).toBe(2);
    for (const bad of [0, 6, 2.5, '3']) {
      const res = await stack.request('PUT', '/v1/settings/dispatch', {
        key: own,
        body: { max_delivery_attempts: bad },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].pointer).toBe('/max_delivery_attempts');
    }
    const put = await stack.request('PUT', '/v1/settings/dispatch', { key: own, body: { max_delivery_attempts: 1 } });
    expect(put.status).toBe(200);
    expect(put.body.max_delivery_attempts).toBe(1);
    const d = await deliveryWith(stack, own, 'test-manual');
    const failed = await stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/advance`, {
      key: own,
      body: { to: 'in_transit' },
    });
    expect(failed.status).toBe(200);
    const res = await stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/advance`, {
      key: own,
      body: { to: 'attempt_failed', reason: 'access_denied' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(eventOf(res.body, 'delivery.failed')[0].payload.reason).toBe('delivery_attempts_exhausted');
  });
});

describe('the fleet route', () => {
  let sim: Simulator;
  afterAll(async () => {
    await sim?.close();
  });

  it('takes attempt_failed with a listed reason only (422 /payload/reason otherwise)', async () => {
    sim = await startSimulator();
    const m = await merchantWith(stack, sim, [simCompany()]);
    const { createDeliveryFor } = await import('../helpers/fixtures.js');
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
    const current = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: m.tenant.secret_key })).body;
    const send = (payload: Record<string, unknown>) =>
      sim.control.sendEvent(m.slug, {
        tracking_ref: current.courier.tracking_ref,
        event_type: 'attempt_failed',
        payload,
      });
    const bad = await send({ reason: 'moon_phase' });
    expect(bad.response_status).toBe(422);
    const missing = await send({});
    expect(missing.response_status).toBe(422);
  });
});
