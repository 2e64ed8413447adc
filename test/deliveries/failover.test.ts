// Automatic failover end to end (docs/deliveries.md "Automatic failover"): the tenant's dispatch policy through the
// API and the admin CLI, each trigger with the courier simulator, the fee ceiling and the preferred order, the limit
// of moves, and a late event from the company the delivery moved away from. The workflow's own rules (and a cancel
// racing a redispatch) are in test/workflows/failover.fast.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import type { CompanyConfig, Simulator } from '../../simulator/server.js';
import { buildProgram } from '../../src/cli/index.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { restartIfClosed } from '../../src/deliveries/recovery.js';
import { workflowSummaryFacts } from '../../src/deliveries/start-repository.js';
import { workflowStaticDetails, workflowStaticSummary } from '../../src/deliveries/workflow-summary.js';
import { dispatchPolicyOf, updateTenantPageSettings } from '../../src/tenants/repository.js';
import { redispatchPolicyFor } from '../../src/tenants/dispatch-policy.js';
import { deliveryWorkflowId, type DeliveryWorkflowInput } from '../../shared/deliveries/definitions.js';
import { CourierSlugKey } from '../../shared/search-attributes.js';
import { expectDeliveryWorkflowsReplay } from '../helpers/replay.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { VerifyingReceiver, deliveryWith, until } from '../helpers/test-mode.js';

let stack: Stack;
let sim: Simulator;
const receiver = new VerifyingReceiver();
const key = (m: Merchant) => m.tenant.secret_key;

beforeAll(async () => {
  // One "minute" of assign_timeout_minutes is 200 ms here; dispatch gives up after 2 quick attempts.
  stack = await startStack({
    assignTimeoutUnitMs: 200,
    dispatchMaxAttempts: 2,
    dispatchInitialIntervalMs: 50,
    webhookScheduleMs: [0, 200, 400],
  });
  sim = await startSimulator();
  await receiver.start();
});
afterAll(async () => {
  await receiver.close();
  await sim?.close();
  await stack?.close();
});

/** A simulated company at a flat fee (no per-km part), moving jobs along by itself unless told otherwise. */
const company = (fee: number, overrides: Partial<CompanyConfig> = {}) =>
  simCompany({
    pricing: { base_fee_aoa: fee, per_km_aoa: 0, base_eta_minutes: 30 },
    auto_progress: { delay_ms: 150 },
    ...overrides,
  });

async function policy(m: Merchant, body: Record<string, unknown>) {
  const res = await stack.request('PUT', '/v1/settings/dispatch', { key: key(m), body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const redispatched = (d: any) => d.events.filter((e: any) => e.event_type === 'delivery.redispatched');

describe('the dispatch policy', () => {
  it('GET gives the defaults (off); PUT changes the fields it names; a company the tenant cannot book is 422', async () => {
    const a = company(100_000);
    const m = await merchantWith(stack, sim, [a]);
    const got = await stack.request('GET', '/v1/settings/dispatch', { key: key(m) });
    expect(got.body).toEqual({
      auto_redispatch: false,
      max_fee_increase_aoa: 0,
      max_redispatches: 2,
      assign_timeout_minutes: 20,
      preferred_company_ids: [],
      max_delivery_attempts: 2,
    });
    expect(await policy(m, { auto_redispatch: true, preferred_company_ids: [m.couriers[a.slug]] })).toMatchObject({
      auto_redispatch: true,
      max_redispatches: 2,
      preferred_company_ids: [m.couriers[a.slug]],
    });
    const other = await merchantWith(stack, sim, [company(100_000)]);
    const refused = await stack.request('PUT', '/v1/settings/dispatch', {
      key: key(other),
      body: { preferred_company_ids: [m.couriers[a.slug]] },
    });
    stack.expectProblem(refused, 422, 'validation_failed');
    expect(refused.body.errors[0]).toMatchObject({ pointer: '/preferred_company_ids/0', code: 'not_allowed' });
    stack.expectProblem(
      await stack.request('PUT', '/v1/settings/dispatch', { key: key(m), body: { max_redispatches: 11 } }),
      422,
      'validation_failed',
    );
    stack.expectProblem(await stack.request('GET', '/v1/settings/dispatch', {}), 401, 'unauthorized');
  });

  it('each mode has its own policy: a test key neither reads nor changes the live one, and the other way round', async () => {
    const a = company(100_000);
    const m = await merchantWith(stack, sim, [a]);
    const live = key(m);
    const test = m.tenant.test_secret_key;
    const defaults = {
      auto_redispatch: false,
      max_fee_increase_aoa: 0,
      max_redispatches: 2,
      assign_timeout_minutes: 20,
      preferred_company_ids: [],
      max_delivery_attempts: 2,
    };
    const get = async (k: string) => (await stack.request('GET', '/v1/settings/dispatch', { key: k })).body;
    // Live changes: the test policy keeps its defaults.
    expect(
      (
        await stack.request('PUT', '/v1/settings/dispatch', {
          key: live,
          body: { auto_redispatch: true, max_fee_increase_aoa: 7_000 },
        })
      ).status,
    ).toBe(200);
    expect(await get(test)).toEqual(defaults);
    // Test changes: the live policy keeps its values.
    const testSet = await stack.request('PUT', '/v1/settings/dispatch', { key: test, body: { max_redispatches: 5 } });
    expect(testSet.body).toEqual({ ...defaults, max_redispatches: 5 });
    expect(await get(live)).toEqual({ ...defaults, auto_redispatch: true, max_fee_increase_aoa: 7_000 });
    // Preferred companies of the key's mode only: no live company for a test key, no simulated courier for a live key.
    const viaTest = await stack.request('PUT', '/v1/settings/dispatch', {
      key: test,
      body: { preferred_company_ids: [m.couriers[a.slug]] },
    });
    stack.expectProblem(viaTest, 422, 'validation_failed');
    const testManual = (await stack.pool.query("SELECT id FROM courier_companies WHERE slug = 'test-manual'")).rows[0]
      .id;
    const viaLive = await stack.request('PUT', '/v1/settings/dispatch', {
      key: live,
      body: { preferred_company_ids: [testManual] },
    });
    stack.expectProblem(viaLive, 422, 'validation_failed');
    expect(
      (
        await stack.request('PUT', '/v1/settings/dispatch', {
          key: test,
          body: { preferred_company_ids: [testManual] },
        })
      ).status,
    ).toBe(200);
    // Deliveries take their own mode's policy: the live one is on, the test one off, so a test delivery refused by its
    // courier stalls; once the test policy is on, the next one moves on.
    const off = await deliveryWith(stack, test, 'test-rejects');
    const stalled = await until(stack, test, off.id, (x) => x.status === 'stalled');
    expect(redispatched(stalled)).toHaveLength(0);
    await stack.request('PUT', '/v1/settings/dispatch', {
      key: test,
      body: { auto_redispatch: true, max_fee_increase_aoa: 1_000_000 },
    });
    expect((await get(live)).preferred_company_ids).toEqual([]);
    const on = await deliveryWith(stack, test, 'test-rejects');
    const moved = await until(stack, test, on.id, (x) => redispatched(x).length === 1);
    expect(redispatched(moved)[0].payload).toMatchObject({ reason: 'courier_rejected', to_company_id: testManual });
  });

  it("a created delivery's workflow starts with its mode's policy and facts, as a later start reads them", async () => {
    // The creation reads them in its insert's round trip (src/deliveries/start-repository.ts insertDelivery); the
    // reconciler and a restart read them apart (src/deliveries/start.ts): both must give the workflow the same input.
    const a = company(100_000);
    const b = company(120_000);
    const m = await merchantWith(stack, sim, [a, b]);
    await updateTenantPageSettings(stack.pool, m.tenant.tenant_id, { display_name: 'Loja do Largo' });
    await policy(m, {
      auto_redispatch: true,
      max_fee_increase_aoa: 30_000,
      max_redispatches: 3,
      assign_timeout_minutes: 9,
      preferred_company_ids: [m.couriers[b.slug], m.couriers[a.slug]],
      max_delivery_attempts: 3,
    });
    const d = await createDeliveryFor(stack, m, { payment_method: 'cod', cash_collect_aoa: 1_234_500 });
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));
    const started = (await handle.fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;
    const input = defaultPayloadConverter.fromPayload<DeliveryWorkflowInput>(started.input!.payloads![0]);
    const policyNow = await dispatchPolicyOf(stack.pool, m.tenant.tenant_id, true);
    expect(policyNow.preferred_company_ids).toEqual([m.couriers[b.slug], m.couriers[a.slug]]);
    expect(input.redispatch).toEqual(redispatchPolicyFor(policyNow, 200));
    expect(input.maxDeliveryAttempts).toBe(3);
    const facts = await workflowSummaryFacts(stack.pool, d.id);
    const described = await handle.describe();
    expect(await described.staticSummary()).toBe(workflowStaticSummary(facts!));
    expect(await described.staticDetails()).toBe(workflowStaticDetails(facts!));
    expect(await described.staticDetails()).toContain('**12 345,00 Kz** to collect');
  });

  it('the admin CLI shows and changes it, companies by slug', async () => {
    const a = company(100_000);
    const m = await merchantWith(stack, sim, [a]);
    let out = '';
    await buildProgram(
      () => stack.pool,
      (t) => void (out += t),
    ).parseAsync(
      [
        'tenant',
        'dispatch',
        '--tenant',
        m.tenant.tenant_id,
        '--auto-redispatch',
        'on',
        '--max-fee-increase-aoa',
        '5000',
        '--preferred',
        a.slug,
        '--json',
      ],
      {
        from: 'user',
      },
    );
    expect(JSON.parse(out)).toMatchObject({
      livemode: true,
      auto_redispatch: true,
      max_fee_increase_aoa: 5000,
      preferred_company_ids: [m.couriers[a.slug]],
    });
    expect((await stack.request('GET', '/v1/settings/dispatch', { key: key(m) })).body.max_fee_increase_aoa).toBe(5000);
    // --mode test changes the test policy only.
    out = '';
    await buildProgram(
      () => stack.pool,
      (t) => void (out += t),
    ).parseAsync(
      [
        'tenant',
        'dispatch',
        '--tenant',
        m.tenant.tenant_id,
        '--mode',
        'test',
        '--max-fee-increase-aoa',
        '900',
        '--json',
      ],
      { from: 'user' },
    );
    expect(JSON.parse(out)).toMatchObject({ livemode: false, auto_redispatch: false, max_fee_increase_aoa: 900 });
    expect(
      (await stack.request('GET', '/v1/settings/dispatch', { key: m.tenant.test_secret_key })).body
        .max_fee_increase_aoa,
    ).toBe(900);
    expect((await stack.request('GET', '/v1/settings/dispatch', { key: key(m) })).body.max_fee_increase_aoa).toBe(5000);
  });
});

describe('failover before pickup', () => {
  it('courier_rejected: the cheapest company within the ceiling takes it; fee, courier and company follow; the list filters by company', async () => {
    const first = company(100_000, { reject_bookings: 422 });
    const overLimit = company(130_000); // cheaper than `fair` would be with a bigger ceiling, but above this one
    const fair = company(110_000);
    const m = await merchantWith(stack, sim, [first, overLimit, fair]);
    await policy(m, {
      auto_redispatch: true,
      max_fee_increase_aoa: 20_000,
      preferred_company_ids: [m.couriers[overLimit.slug]],
    });
    const endpoint = await stack.request('POST', '/v1/webhook_endpoints', {
      key: key(m),
      body: { url: receiver.url(`/wh-${m.tenant.tenant_id}`) },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.expect(`/wh-${m.tenant.tenant_id}`, endpoint.body.secret);
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const done = await waitForStatus(stack, key(m), d.id, 'delivered', 30_000);
    const [moved] = redispatched(done);
    expect(moved).toMatchObject({
      source: 'system',
      payload: {
        reason: 'courier_rejected',
        automatic: true,
        from_company_id: m.couriers[first.slug],
        to_company_id: m.couriers[fair.slug],
        old_fee_aoa: 100_000,
        new_fee_aoa: 110_000,
      },
    });
    expect(done.quoted_fee_aoa).toBe(110_000);
    expect(done.courier.name).toBe(fair.name);
    const listed = await stack.request('GET', `/v1/deliveries?company_id=${m.couriers[fair.slug]}`, { key: key(m) });
    expect(listed.body.data.map((x: any) => x.id)).toEqual([d.id]);
    expect(
      (await stack.request('GET', `/v1/deliveries?company_id=${m.couriers[first.slug]}`, { key: key(m) })).body.data,
    ).toEqual([]);
    stack.expectProblem(
      await stack.request('GET', '/v1/deliveries?company_id=nope', { key: key(m) }),
      422,
      'validation_failed',
    );
    // Tracking shows it as a new courier assigned, nothing more.
    const tracking = await stack.request('GET', `/v1/deliveries/${d.id}/tracking`);
    expect(tracking.body.events.map((e: any) => e.event_type)).toContain('delivery.redispatched');
    const page = await fetch(`${stack.url}/track/${d.id}`, { headers: { 'accept-language': 'en' } });
    expect(await page.text()).toContain('New courier assigned');
    // The merchant's webhooks get it like any event: signed, at its endpoint, with the event's payload.
    await expect
      .poll(() => receiver.at(`/wh-${m.tenant.tenant_id}`, d.id).find((h) => h.body.type === 'delivery.redispatched'), {
        timeout: 15_000,
      })
      .toBeDefined();
    const hook = receiver.at(`/wh-${m.tenant.tenant_id}`, d.id).find((h) => h.body.type === 'delivery.redispatched')!;
    expect(hook.body.data.event).toMatchObject({
      id: moved.id,
      event_type: 'delivery.redispatched',
      source: 'system',
      payload: moved.payload,
    });
    expect(receiver.rejected).toEqual([]);
    // The search attribute CourierSlug follows the new company (Temporal UI and visibility queries find it there).
    const description = await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).describe();
    expect(description.typedSearchAttributes.get(CourierSlugKey)).toBe(fair.slug);
    await expect
      .poll(
        async () => {
          const found = [];
          for await (const wf of stack.temporal.workflow.list({ query: `CourierSlug = '${fair.slug}'` }))
            found.push(wf.workflowId);
          return found;
        },
        { timeout: 15_000 },
      )
      .toEqual([deliveryWorkflowId(d.id)]);
  });

  it('the preferred company comes first when within the ceiling, even when another is cheaper', async () => {
    const first = company(100_000, { reject_bookings: 409 });
    const cheaper = company(100_000);
    const preferred = company(105_000);
    const m = await merchantWith(stack, sim, [first, cheaper, preferred]);
    await policy(m, {
      auto_redispatch: true,
      max_fee_increase_aoa: 10_000,
      preferred_company_ids: [m.couriers[preferred.slug]],
    });
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const done = await waitForStatus(stack, key(m), d.id, 'delivered', 30_000);
    expect(redispatched(done)[0].payload.to_company_id).toBe(m.couriers[preferred.slug]);
  });

  it('dispatch_failed: retries exhausted moves it on', async () => {
    const first = company(100_000, { failure_rate: 1, faults_on: ['bookings'] });
    const next = company(100_000);
    const m = await merchantWith(stack, sim, [first, next]);
    await policy(m, { auto_redispatch: true });
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const done = await waitForStatus(stack, key(m), d.id, 'delivered', 30_000);
    expect(redispatched(done)[0].payload).toMatchObject({
      reason: 'dispatch_failed',
      to_company_id: m.couriers[next.slug],
    });
  });

  it('assign timeout: a booking left pending past assign_timeout_minutes moves on', async () => {
    const first = company(100_000, { booking_status: 'pending', auto_progress: false });
    const next = company(100_000);
    const m = await merchantWith(stack, sim, [first, next]);
    await policy(m, { auto_redispatch: true, assign_timeout_minutes: 2 }); // 400 ms here
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const done = await waitForStatus(stack, key(m), d.id, 'delivered', 30_000);
    expect(redispatched(done)[0].payload).toMatchObject({
      reason: 'assign_timeout',
      to_company_id: m.couriers[next.slug],
    });
    // The first company's job is released.
    await expect.poll(() => sim.control.bookings(first.slug)[0]?.status, { timeout: 15_000 }).toBe('cancelled');
  });

  it("the courier fails it before pickup: rebooked; the first company's late event is ignored (superseded_booking)", async () => {
    const first = company(100_000, { auto_progress: false });
    const next = company(100_000, { auto_progress: false });
    const m = await merchantWith(stack, sim, [first, next]);
    await policy(m, { auto_redispatch: true });
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const firstRef = assigned.courier.tracking_ref;
    expect(
      (
        await sim.control.sendEvent(first.slug, {
          tracking_ref: firstRef,
          event_type: 'failed',
          payload: { reason: 'van broke down' },
        })
      ).response_status,
    ).toBe(202);
    const moved = await waitFor(stack, key(m), d.id, (x) => x.status === 'assigned' && redispatched(x).length === 1);
    expect(redispatched(moved)[0].payload).toMatchObject({
      reason: 'courier_failed',
      to_company_id: m.couriers[next.slug],
    });
    // A late event from the first company: recorded as ignored, the status stays.
    expect(
      (await sim.control.sendEvent(first.slug, { tracking_ref: firstRef, event_type: 'in_transit' })).response_status,
    ).toBe(202);
    const after = await waitFor(stack, key(m), d.id, (x) =>
      x.events.some((e: any) => e.payload?.reason === 'superseded_booking'),
    );
    expect(after.status).toBe('assigned');
    expect(after.events.at(-1)).toMatchObject({
      event_type: 'delivery.in_transit',
      payload: { ignored: true, reason: 'superseded_booking' },
    });
  });

  it('max_redispatches: every company refuses; after the allowed moves it stalls with what was tried', async () => {
    const companies = [
      company(100_000, { reject_bookings: 422 }),
      company(100_000, { reject_bookings: 422 }),
      company(100_000, { reject_bookings: 422 }),
    ];
    const m = await merchantWith(stack, sim, companies);
    await policy(m, { auto_redispatch: true, max_redispatches: 1 });
    const d = await createDeliveryFor(stack, m, {}, companies[0].slug);
    const stalled = await waitForStatus(stack, key(m), d.id, 'stalled', 30_000);
    expect(redispatched(stalled)).toHaveLength(1);
    expect(stalled.events.at(-1).payload).toMatchObject({
      reason: 'courier_rejected',
      previous_status: 'pending',
      redispatch: { outcome: 'max_redispatches_reached' },
    });
    expect(stalled.events.at(-1).payload.redispatch.tried_company_ids).toHaveLength(2);
  });

  it('no company within the ceiling: stalled as today, with the candidates and their fees', async () => {
    const first = company(100_000, { reject_bookings: 422 });
    const dear = company(180_000);
    const m = await merchantWith(stack, sim, [first, dear]);
    await policy(m, { auto_redispatch: true, max_fee_increase_aoa: 50_000 });
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const stalled = await waitForStatus(stack, key(m), d.id, 'stalled', 30_000);
    expect(stalled.events.at(-1).payload.redispatch).toMatchObject({
      outcome: 'no_company_qualifies',
      candidates: [{ company_id: m.couriers[dear.slug], outcome: 'over_fee_ceiling', fee_aoa: 180_000 }],
    });
  });

  it('the ceiling stays the fee locked at creation + max_fee_increase_aoa across two redispatches (it never creeps)', async () => {
    // 100 000 locked, 15 000 allowed: the ceiling is 115 000 for every move. The first move (to 110 000) raises the
    // delivery's quoted_fee_aoa; a ceiling taken from it would let the second move reach 120 000 (110 000 + 15 000).
    const first = company(100_000, { reject_bookings: 422 });
    const second = company(110_000, { reject_bookings: 422 });
    const third = company(120_000);
    const m = await merchantWith(stack, sim, [first, second, third]);
    await policy(m, { auto_redispatch: true, max_fee_increase_aoa: 15_000, max_redispatches: 2 });
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const stalled = await waitForStatus(stack, key(m), d.id, 'stalled', 30_000);
    expect(redispatched(stalled).map((e: any) => e.payload)).toEqual([
      expect.objectContaining({ to_company_id: m.couriers[second.slug], old_fee_aoa: 100_000, new_fee_aoa: 110_000 }),
    ]);
    expect(stalled.events.at(-1).payload.redispatch).toMatchObject({
      outcome: 'no_company_qualifies',
      candidates: [{ company_id: m.couriers[third.slug], outcome: 'over_fee_ceiling', fee_aoa: 120_000 }],
    });
    expect(stalled.quoted_fee_aoa).toBe(110_000);
  });

  it('a DELETE racing a redispatch through the API: the usual rules (200, then 409); the booking that comes back after is released', async () => {
    const first = company(100_000, { reject_bookings: 422 });
    // The new company takes 3 s to answer a booking: the cancellation arrives while it is on its way.
    const slow = company(100_000, { latency_ms: 3000, faults_on: ['bookings'], auto_progress: false });
    const m = await merchantWith(stack, sim, [first, slow]);
    // The helpers give every company 1 s to answer; this one gets 5 s, so its slow booking succeeds (and is not retried).
    await stack.pool.query('UPDATE courier_companies SET timeout_ms = 5000 WHERE slug = $1', [slow.slug]);
    await policy(m, { auto_redispatch: true });
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    await waitFor(stack, key(m), d.id, (x) => redispatched(x).length === 1, 15_000);
    const res = await stack.request('DELETE', `/v1/deliveries/${d.id}`, {
      key: key(m),
      headers: { 'Idempotency-Key': `cancel-${d.id}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled' });
    const cancelled = await waitForStatus(stack, key(m), d.id, 'cancelled');
    expect(cancelled.events.filter((e: any) => e.event_type === 'delivery.cancelled')).toHaveLength(1);
    expect(cancelled.events.map((e: any) => e.event_type)).not.toContain('delivery.assigned');
    // The new company's job, booked after the cancellation, is released in the background.
    await expect.poll(() => sim.control.bookings(slow.slug)[0]?.status, { timeout: 15_000 }).toBe('cancelled');
    // A second DELETE: the delivery is no longer cancellable.
    const again = await stack.request('DELETE', `/v1/deliveries/${d.id}`, {
      key: key(m),
      headers: { 'Idempotency-Key': `cancel-again-${d.id}` },
    });
    stack.expectProblem(again, 409, 'delivery_not_cancellable');
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body.status).toBe('cancelled');
  });

  it('a workflow restarted by recovery keeps its failover state: the moves made count, the assign timeout still holds', async () => {
    const first = company(100_000, { reject_bookings: 422 });
    const never = company(100_000, { booking_status: 'pending', auto_progress: false }); // booked, never assigned
    const spare = company(100_000);
    const m = await merchantWith(stack, sim, [first, never, spare]);
    await policy(m, {
      auto_redispatch: true,
      max_redispatches: 1,
      assign_timeout_minutes: 25,
      preferred_company_ids: [m.couriers[never.slug]],
    }); // 5 s
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const booked = await waitFor(
      stack,
      key(m),
      d.id,
      (x) => redispatched(x).length === 1 && x.events.some((e: any) => e.event_type === 'delivery.dispatched'),
      15_000,
    );
    expect(booked.status).toBe('pending');
    // Terminate in the Temporal UI, then the reconciler (or `delivery recover`) starts it again from Postgres.
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).terminate('pressed Terminate in the Temporal UI');
    expect(await restartIfClosed(stack.temporal, stack.pool, stack.config, d.id)).toBe(true);
    // The assign timeout of `never`'s booking still fires, and the move already made counts: max_redispatches (1) is
    // reached, so it stalls instead of moving to `spare`.
    const stalled = await waitForStatus(stack, key(m), d.id, 'stalled', 30_000);
    expect(redispatched(stalled)).toHaveLength(1);
    expect(stalled.events.at(-1).payload).toMatchObject({
      reason: 'assign_timeout',
      redispatch: {
        outcome: 'max_redispatches_reached',
        tried_company_ids: [m.couriers[first.slug], m.couriers[never.slug]],
      },
    });
    expect(sim.control.bookings(spare.slug)).toEqual([]);
  });

  it('test mode: advance to failed before pickup answers with the failover it caused, not a 503 after 10 s', async () => {
    const m = await merchantWith(stack, sim, [company(100_000)]);
    const tk = m.tenant.test_secret_key;
    const set = await stack.request('PUT', '/v1/settings/dispatch', {
      key: tk,
      body: { auto_redispatch: true, max_fee_increase_aoa: 1_000_000 },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const d = await deliveryWith(stack, tk, 'test-manual');
    await until(stack, tk, d.id, (x) => x.status === 'assigned');
    const started = Date.now();
    const res = await stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/advance`, {
      key: tk,
      body: { to: 'failed' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.now() - started).toBeLessThan(8_000);
    // The answer is the delivery once the failover is recorded (the next company may have refused it since, too).
    const moved = redispatched(res.body);
    expect(moved.length).toBeGreaterThanOrEqual(1);
    expect(moved[0].payload).toMatchObject({
      reason: 'courier_failed',
      automatic: true,
      from_company_id: d.company_id,
    });
    expect(moved[0].payload.webhook_id).toMatch(/^test_helper_/);
  });

  it('with the policy off a rejection stalls exactly as design.md says', async () => {
    const first = company(100_000, { reject_bookings: 422 });
    const m = await merchantWith(stack, sim, [first, company(100_000)]);
    const d = await createDeliveryFor(stack, m, {}, first.slug);
    const stalled = await waitForStatus(stack, key(m), d.id, 'stalled', 30_000);
    expect(stalled.events.at(-1).payload).toEqual({
      reason: 'courier_rejected',
      previous_status: 'pending',
      // What the courier answered (issue 19): its HTTP status and message.
      courier_answer: { status: 422, message: expect.stringMatching(/booking refused with HTTP 422/) },
    });
    expect(redispatched(stalled)).toHaveLength(0);
  });
});

describe('determinism', () => {
  it('every delivery workflow of this file (each failover path) replays without nondeterminism', async () => {
    await expectDeliveryWorkflowsReplay(stack, 6);
  }, 120_000);
});
