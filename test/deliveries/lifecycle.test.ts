// The delivery state machine on the real stack: fleet events, PIN, ignored events, cancellation from
// every state, the cancel/in_transit race, stalled reasons, operator recovery, visibility, replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { signFleetEvent, type Simulator } from '../../simulator/server.js';
import { deliveryWorkflowId, operatorActionSignal, type OperatorAction } from '../../shared/deliveries/definitions.js';
import type { FleetEventType } from '../../shared/deliveries/vocabulary.js';
import { FLEET_TRANSITIONS } from '../../shared/deliveries/state-table.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const execFileAsync = promisify(execFile);

let stack: Stack;
let fast: Stack;
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack();
  // Seconds instead of hours, so every stalled reason can be seen.
  fast = await startStack({
    paymentWindowMs: 1500,
    stateBudgetsMs: { pending: 1500 },
    dispatchMaxAttempts: 2,
    dispatchInitialIntervalMs: 100,
  });
});
afterAll(async () => {
  await stack?.close();
  await fast?.close();
  await sim?.close();
});

const eventTypes = (d: any) => d.events.map((e: any) => e.event_type);
const key = (m: Merchant) => m.tenant.secret_key;

/** Sends a signed fleet event for a delivery through the simulator and waits until the API has it. */
async function fleet(s: Stack, m: Merchant, d: any, eventType: string, payload?: Record<string, unknown>) {
  const current = (await s.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body;
  const before = current.events.length;
  const sent = await sim.control.sendEvent(m.slug, {
    tracking_ref: current.courier.tracking_ref,
    event_type: eventType,
    payload,
  });
  expect(sent.response_status).toBe(202);
  // Wait for this event's own row: another one (a courier's late duplicate, recorded as ignored) may land first.
  const recorded = FLEET_TRANSITIONS[eventType as FleetEventType].eventType;
  return waitFor(s, key(m), d.id, (x) => x.events.slice(before).some((e: any) => e.event_type === recorded));
}

async function deliveryIn(s: Stack, m: Merchant, path: string[], extra: Record<string, unknown> = {}) {
  const d = await createDeliveryFor(s, m, extra);
  if (extra.payment_method === 'bank_transfer') return d;
  await waitForStatus(s, key(m), d.id, 'assigned');
  let last = d;
  for (const step of path)
    last = await fleet(s, m, d, step, step === 'delivered' ? { pin: d.delivery_pin } : undefined);
  return { ...d, status: last.status };
}

describe('fleet events drive the lifecycle', () => {
  let m: Merchant;
  beforeAll(async () => {
    m = await merchantWith(stack, sim, [simCompany()]);
  });

  it('assigned -> pickup_ready -> in_transit -> out_for_delivery -> delivered; the workflow ends', async () => {
    const d = await deliveryIn(stack, m, ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered']);
    const got = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body;
    expect(got.status).toBe('delivered');
    expect(eventTypes(got)).toEqual([
      'delivery.created',
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
      'delivery.in_transit',
      'delivery.out_for_delivery',
      'delivery.delivered',
    ]);
    expect(got.events.slice(3).every((e: any) => e.source === 'fleet_webhook')).toBe(true);
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));
    await expect(handle.result()).resolves.toEqual({ status: 'delivered' });
  });

  it('the booking sends the courier the delivery as created: reference, route, parcel, cash and the scheduled pickup', async () => {
    // The booking reads the delivery and its company in one statement (src/deliveries/repository.ts bookableDelivery).
    const pickup = new Date(Date.now() + 3 * 3600_000);
    pickup.setUTCMilliseconds(0);
    const d = await createDeliveryFor(stack, m, {
      payment_method: 'cod',
      cash_collect_aoa: 987_600,
      scheduled_pickup_at: pickup.toISOString(),
    });
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const booking = sim.control.bookings(m.slug).find((b) => b.delivery_id === d.id);
    expect(booking?.tracking_ref).toBe(assigned.courier.tracking_ref);
    expect(booking?.request).toMatchObject({
      delivery_id: d.id,
      reference: d.reference,
      origin: d.origin,
      destination: d.destination,
      parcel: d.parcel,
      payment_method: 'cod',
      cash_collect_aoa: 987_600,
      scheduled_pickup_at: pickup.toISOString(),
    });
    expect(booking?.idempotency_key).toBe(`${d.id}.1`);
  });

  it('a courier slower than the first attempt: it gives up at 3 s, the regular activity books the same job', async () => {
    // The company may take 10 s; the booking's first attempt runs in the workflow task and caps its call at 3 s.
    const slow = simCompany({ latency_ms: 3500, faults_on: ['bookings'] });
    const sm = await merchantWith(stack, sim, [slow]);
    await stack.pool.query('UPDATE courier_companies SET timeout_ms = 10000 WHERE slug = $1', [slow.slug]);
    const d = await createDeliveryFor(stack, sm);
    const assigned = await waitForStatus(stack, key(sm), d.id, 'assigned', 30_000);
    // Both calls sent the same Idempotency-Key: the courier holds one job, the one the delivery names.
    const bookings = sim.control.bookings(slow.slug).filter((b) => b.delivery_id === d.id);
    expect(bookings.map((b) => [b.tracking_ref, b.idempotency_key])).toEqual([
      [assigned.courier.tracking_ref, `${d.id}.1`],
    ]);
    const history = await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dispatchDelivery',
    );
    expect(scheduled).toHaveLength(1);
  });

  it('in_transit straight from assigned, delivered straight from in_transit', async () => {
    const d = await deliveryIn(stack, m, ['in_transit', 'delivered']);
    expect(d.status).toBe('delivered');
  });

  it('failed from any non-final state', async () => {
    const d = await deliveryIn(stack, m, ['pickup_ready', 'failed']);
    expect(d.status).toBe('failed');
  });

  it('records out-of-order events as ignored and changes nothing', async () => {
    const d = await deliveryIn(stack, m, []);
    const after = await fleet(stack, m, d, 'out_for_delivery');
    expect(after.status).toBe('assigned');
    const ignored = after.events.at(-1);
    expect(ignored).toMatchObject({
      event_type: 'delivery.out_for_delivery',
      source: 'fleet_webhook',
      payload: { ignored: true, reason: 'not_allowed_from_assigned' },
    });
    const again = await fleet(stack, m, d, 'assigned');
    expect(again.status).toBe('assigned');
    expect(again.events.at(-1).payload).toMatchObject({ ignored: true });
    // The recipient's timeline does not show ignored events.
    const tracking = (await stack.request('GET', `/v1/deliveries/${d.id}/tracking`)).body;
    expect(tracking.events.map((e: any) => e.event_type)).not.toContain('delivery.out_for_delivery');
  });

  it('an event after the final state is recorded as ignored', async () => {
    const d = await deliveryIn(stack, m, ['in_transit', 'delivered']);
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).result();
    const after = await fleet(stack, m, d, 'failed');
    expect(after.status).toBe('delivered');
    expect(after.events.at(-1).payload).toMatchObject({ ignored: true });
  });

  it('delivered needs the PIN when the company requires one', async () => {
    const pinCompany = simCompany({ require_delivery_pin: true });
    const pm = await merchantWith(stack, sim, [pinCompany]);
    const d = await deliveryIn(stack, pm, ['in_transit']);
    expect(d.delivery_pin).toMatch(/^\d{4}$/);
    const missing = await fleet(stack, pm, d, 'delivered');
    expect(missing.status).toBe('in_transit');
    expect(missing.events.at(-1).payload).toMatchObject({ ignored: true, reason: 'pin_mismatch' });
    const wrong = await fleet(stack, pm, d, 'delivered', { pin: d.delivery_pin === '0000' ? '1111' : '0000' });
    expect(wrong.status).toBe('in_transit');
    const right = await fleet(stack, pm, d, 'delivered', { pin: d.delivery_pin });
    expect(right.status).toBe('delivered');
    // The PIN is not stored in the event.
    expect(JSON.stringify(right.events)).not.toContain(`"pin"`);
  });

  it('payment.confirmed from the fleet moves awaiting_payment to pending', async () => {
    const company = simCompany();
    const pm = await merchantWith(stack, sim, [company]);
    const d = await createDeliveryFor(stack, pm, { payment_method: 'bank_transfer' });
    // Before dispatch there is no courier tracking_ref: the fleet names the delivery by its reference.
    const body = JSON.stringify({
      tracking_ref: d.reference,
      event_type: 'payment.confirmed',
      occurred_at: new Date().toISOString(),
      payload: {},
    });
    const res = await stack.request('POST', `/v1/fleet/${company.slug}/events`, {
      body,
      headers: signFleetEvent(company.fleet_secret, body),
    });
    expect(res.status).toBe(202);
    const assigned = await waitForStatus(stack, key(pm), d.id, 'assigned');
    expect(eventTypes(assigned)).toEqual([
      'delivery.created',
      'delivery.payment_confirmed',
      'delivery.dispatched',
      'delivery.assigned',
    ]);
    expect(assigned.events[1].source).toBe('fleet_webhook');
  });
});

describe('fleet webhook endpoint', () => {
  let m: Merchant;
  let secret: string;
  let d: any;
  beforeAll(async () => {
    const company = simCompany();
    secret = company.fleet_secret;
    m = await merchantWith(stack, sim, [company]);
    d = await deliveryIn(stack, m, []);
    d = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body;
  });
  const send = (body: unknown, headers: Record<string, string>, slug = m.slug) =>
    stack.request('POST', `/v1/fleet/${slug}/events`, {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers,
    });
  const event = () => ({
    tracking_ref: d.courier.tracking_ref,
    event_type: 'pickup_ready',
    occurred_at: new Date().toISOString(),
    payload: {},
  });

  it('refuses a bad or missing signature and an old timestamp with 401', async () => {
    const body = JSON.stringify(event());
    expect((await send(body, {})).status).toBe(401);
    expect(
      (await send(body, signFleetEvent('whsec_' + Buffer.from('x'.repeat(24)).toString('base64'), body))).status,
    ).toBe(401);
    const old = signFleetEvent(secret, body, `msg_${randomUUID()}`, new Date(Date.now() - 6 * 60_000));
    const res = await send(body, old);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('unknown company or tracking_ref: 404; malformed body: 422', async () => {
    const body = JSON.stringify(event());
    expect((await send(body, signFleetEvent(secret, body), 'no-such-courier')).status).toBe(404);
    const unknownRef = JSON.stringify({ ...event(), tracking_ref: 'nope' });
    expect((await send(unknownRef, signFleetEvent(secret, unknownRef))).status).toBe(404);
    const bad = JSON.stringify({ ...event(), event_type: 'teleported' });
    const res = await send(bad, signFleetEvent(secret, bad));
    expect(res.status).toBe(422);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ pointer: '/event_type' }));
    // The sender and the delivery are read together before the body is validated: a tracking_ref the schema refuses
    // (too long, not a string) is not looked for, and gets its 422.
    for (const tracking_ref of ['x'.repeat(201), 42]) {
      const refused = JSON.stringify({ ...event(), tracking_ref });
      const answer = await send(refused, signFleetEvent(secret, refused));
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toContainEqual(expect.objectContaining({ pointer: '/tracking_ref' }));
    }
  });

  it('accepts a repeated webhook-id once', async () => {
    const body = JSON.stringify(event());
    const headers = signFleetEvent(secret, body);
    const first = await send(body, headers);
    const second = await send(body, headers);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual({ received: true, duplicate: true });
    const got = await waitForStatus(stack, key(m), d.id, 'pickup_ready');
    expect(eventTypes(got).filter((t: string) => t === 'delivery.pickup_ready')).toHaveLength(1);
  });
});

describe('cancellation', () => {
  let m: Merchant;
  let refusing: Merchant;
  let pendingCo: Merchant;
  let rejecting: Merchant;
  beforeAll(async () => {
    m = await merchantWith(stack, sim, [simCompany()]);
    refusing = await merchantWith(stack, sim, [simCompany({ refuse_cancellation: true })]);
    pendingCo = await merchantWith(stack, sim, [simCompany({ booking_status: 'pending' })]);
    rejecting = await merchantWith(stack, sim, [simCompany({ reject_bookings: true })]);
  });
  const cancel = (mm: Merchant, id: string) => stack.request('DELETE', `/v1/deliveries/${id}`, { key: key(mm) });

  const cases: [string, () => Promise<{ mm: Merchant; d: any }>, number, string | null][] = [
    [
      'awaiting_payment',
      async () => ({ mm: m, d: await deliveryIn(stack, m, [], { payment_method: 'bank_transfer' }) }),
      200,
      null,
    ],
    [
      'pending',
      async () => {
        const d = await createDeliveryFor(stack, pendingCo);
        await waitFor(stack, key(pendingCo), d.id, (x) => eventTypes(x).includes('delivery.dispatched'));
        return { mm: pendingCo, d };
      },
      200,
      null,
    ],
    ['assigned', async () => ({ mm: m, d: await deliveryIn(stack, m, []) }), 200, null],
    [
      'assigned, courier refuses',
      async () => ({ mm: refusing, d: await deliveryIn(stack, refusing, []) }),
      422,
      'cancellation_rejected',
    ],
    [
      'pickup_ready',
      async () => ({ mm: m, d: await deliveryIn(stack, m, ['pickup_ready']) }),
      409,
      'delivery_not_cancellable',
    ],
    [
      'in_transit',
      async () => ({ mm: m, d: await deliveryIn(stack, m, ['in_transit']) }),
      409,
      'delivery_not_cancellable',
    ],
    [
      'out_for_delivery',
      async () => ({ mm: m, d: await deliveryIn(stack, m, ['in_transit', 'out_for_delivery']) }),
      409,
      'delivery_not_cancellable',
    ],
    [
      'delivered',
      async () => ({ mm: m, d: await deliveryIn(stack, m, ['in_transit', 'delivered']) }),
      409,
      'delivery_not_cancellable',
    ],
    ['failed', async () => ({ mm: m, d: await deliveryIn(stack, m, ['failed']) }), 409, 'delivery_not_cancellable'],
    [
      'cancelled',
      async () => {
        const d = await deliveryIn(stack, m, []);
        expect((await cancel(m, d.id)).status).toBe(200);
        return { mm: m, d };
      },
      409,
      'delivery_not_cancellable',
    ],
    [
      'stalled',
      async () => {
        const d = await createDeliveryFor(stack, rejecting);
        await waitForStatus(stack, key(rejecting), d.id, 'stalled');
        return { mm: rejecting, d };
      },
      409,
      'delivery_not_cancellable',
    ],
  ];

  it.each(cases)('from %s', async (_state, setup, status, code) => {
    const { mm, d } = await setup();
    const before = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(mm) })).body;
    const res = await cancel(mm, d.id);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    const after = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(mm) })).body;
    if (status === 200) {
      expect(res.body).toEqual({ status: 'cancelled' });
      expect(after.status).toBe('cancelled');
      expect(after.events.at(-1)).toMatchObject({ event_type: 'delivery.cancelled', source: 'api' });
    } else {
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(res.body.error).toBe(code);
      expect(after.status).toBe(before.status);
      expect(after.events.length).toBe(before.events.length);
    }
  });

  it('the courier is told when an assigned delivery is cancelled', async () => {
    const d = await deliveryIn(stack, m, []);
    const ref = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body.courier.tracking_ref;
    expect((await cancel(m, d.id)).status).toBe(200);
    expect(sim.control.booking(m.slug, ref)?.status).toBe('cancelled');
  });

  it('a fleet in_transit and a cancel arriving together end in exactly one consistent outcome', async () => {
    for (let i = 0; i < 3; i++) {
      const d = await deliveryIn(stack, m, []);
      const ref = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body.courier.tracking_ref;
      const [cancelRes] = await Promise.all([
        cancel(m, d.id),
        sim.control.sendEvent(m.slug, { tracking_ref: ref, event_type: 'in_transit' }),
      ]);
      const settled = await waitFor(stack, key(m), d.id, (x) =>
        x.events.some((e: any) => e.event_type === 'delivery.in_transit'),
      );
      const effective = settled.events.filter((e: any) => !e.payload?.ignored).map((e: any) => e.event_type);
      if (cancelRes.status === 200) {
        expect(settled.status).toBe('cancelled');
        expect(effective).not.toContain('delivery.in_transit');
      } else {
        expect([409, 422]).toContain(cancelRes.status);
        expect(settled.status).toBe('in_transit');
        expect(effective).not.toContain('delivery.cancelled');
      }
    }
  });
});

describe('stalled deliveries and operator recovery', () => {
  const signal = (s: Stack, id: string, action: OperatorAction) =>
    s.temporal.workflow.getHandle(deliveryWorkflowId(id)).signal(operatorActionSignal, action);

  it('courier_rejected: the company refuses the booking', async () => {
    const mm = await merchantWith(fast, sim, [simCompany({ reject_bookings: 422 })]);
    const d = await createDeliveryFor(fast, mm);
    const stalled = await waitForStatus(fast, key(mm), d.id, 'stalled');
    expect(stalled.events.at(-1)).toMatchObject({
      event_type: 'delivery.stalled',
      payload: { reason: 'courier_rejected', previous_status: 'pending' },
    });
  });

  it('dispatch_failed: retries exhausted', async () => {
    const mm = await merchantWith(fast, sim, [simCompany()]);
    const d0 = await createDeliveryFor(fast, mm); // quotes work; then bookings start failing
    await waitForStatus(fast, key(mm), d0.id, 'assigned');
    sim.control.configure(mm.slug, { failure_rate: 1, faults_on: ['bookings'] });
    const d = await createDeliveryFor(fast, mm);
    const stalled = await waitForStatus(fast, key(mm), d.id, 'stalled');
    expect(stalled.events.at(-1).payload).toMatchObject({ reason: 'dispatch_failed', previous_status: 'pending' });
  });

  it('state_timeout: no progress within the state budget; then every recovery action', async () => {
    const waiting = simCompany({ booking_status: 'pending' });
    const other = simCompany();
    const mm = await merchantWith(fast, sim, [waiting, other]);
    const d = await createDeliveryFor(fast, mm, {}, waiting.slug);
    const stalled = await waitForStatus(fast, key(mm), d.id, 'stalled');
    expect(stalled.events.at(-1).payload).toMatchObject({ reason: 'state_timeout', previous_status: 'pending' });

    // The operator finds it through the visibility query.
    const query = `DeliveryStatus = "stalled" AND TenantId = "${mm.tenant.tenant_id}"`;
    await expect
      .poll(
        async () => {
          const ids: string[] = [];
          for await (const wf of fast.temporal.workflow.list({ query })) ids.push(wf.workflowId);
          return ids;
        },
        { timeout: 15_000, interval: 300 },
      )
      .toContain(deliveryWorkflowId(d.id));

    // redispatch to another company: pending, booked with it, assigned.
    await signal(fast, d.id, {
      action: 'redispatch',
      company_id: mm.couriers[other.slug],
      note: 'courier A unresponsive',
    });
    const assigned = await waitForStatus(fast, key(mm), d.id, 'assigned');
    expect(assigned.events.find((e: any) => e.event_type === 'delivery.redispatched')).toMatchObject({
      source: 'operator',
      payload: { action: 'redispatch', note: 'courier A unresponsive' },
    });
    expect(assigned.courier.name).toBe(other.name);
  });

  it('resume returns to the previous status; mark_failed and cancel end the delivery', async () => {
    const waiting = simCompany({ booking_status: 'pending' });
    const mm = await merchantWith(fast, sim, [waiting]);
    const [a, b, c] = [
      await createDeliveryFor(fast, mm),
      await createDeliveryFor(fast, mm),
      await createDeliveryFor(fast, mm),
    ];
    for (const d of [a, b, c]) await waitForStatus(fast, key(mm), d.id, 'stalled');

    await signal(fast, a.id, { action: 'resume' });
    const resumed = await waitFor(fast, key(mm), a.id, (x) => eventTypes(x).includes('delivery.resumed'));
    expect(resumed.events.find((e: any) => e.event_type === 'delivery.resumed')).toMatchObject({ source: 'operator' });
    // Resumed to pending, and the budget runs again: it stalls a second time.
    await waitFor(
      fast,
      key(mm),
      a.id,
      (x) => eventTypes(x).filter((t: string) => t === 'delivery.stalled').length === 2,
    );

    await signal(fast, b.id, { action: 'mark_failed', note: 'lost' });
    const failed = await waitForStatus(fast, key(mm), b.id, 'failed');
    expect(failed.events.at(-1)).toMatchObject({ event_type: 'delivery.failed', source: 'operator' });

    await signal(fast, c.id, { action: 'cancel' });
    const cancelled = await waitForStatus(fast, key(mm), c.id, 'cancelled');
    expect(cancelled.events.at(-1)).toMatchObject({ event_type: 'delivery.cancelled', source: 'operator' });
  });

  it('admin CLI: `delivery stalled` finds it through visibility, `delivery recover` signals the action', async () => {
    const mm = await merchantWith(fast, sim, [simCompany({ reject_bookings: true })]);
    const d = await createDeliveryFor(fast, mm);
    await waitForStatus(fast, key(mm), d.id, 'stalled');
    const env = {
      ...process.env,
      DATABASE_URL: fast.config.databaseUrl,
      TEMPORAL_ADDRESS: fast.config.temporalAddress,
    };
    const admin = (...args: string[]) =>
      execFileAsync(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...args], { env });
    await expect
      .poll(
        async () => {
          const { stdout } = await admin('delivery', 'stalled', '--tenant', mm.tenant.tenant_id, '--json');
          return JSON.parse(stdout).data.map((x: any) => x.delivery_id);
        },
        { timeout: 20_000, interval: 500 },
      )
      .toContain(d.id);
    const { stdout } = await admin(
      'delivery',
      'recover',
      d.id,
      '--action',
      'mark_failed',
      '--note',
      'no courier will take it',
      '--json',
    );
    // It waits for the workflow's answer: the event recorded and the status it led to.
    expect(JSON.parse(stdout)).toMatchObject({
      delivery_id: d.id,
      action: 'mark_failed',
      event_type: 'delivery.failed',
      status: 'failed',
    });
    const failed = await waitForStatus(fast, key(mm), d.id, 'failed');
    expect(failed.events.at(-1)).toMatchObject({ source: 'operator', payload: { note: 'no courier will take it' } });
    // Not stalled any more: refused with exit code 2 and a one-line reason.
    const again = await admin('delivery', 'recover', d.id, '--action', 'resume').catch((e) => e);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not stalled/);
  });

  it('an operator action on a delivery that is not stalled is recorded as ignored', async () => {
    const mm = await merchantWith(fast, sim, [simCompany()]);
    const d = await createDeliveryFor(fast, mm);
    await waitForStatus(fast, key(mm), d.id, 'assigned');
    await signal(fast, d.id, { action: 'mark_failed' });
    const after = await waitFor(fast, key(mm), d.id, (x) => eventTypes(x).includes('delivery.operator_action'));
    expect(after.status).toBe('assigned');
    expect(after.events.at(-1).payload).toMatchObject({ ignored: true });
  });

  it('sla_deadline_passed: the scheduled delivery time passes before delivery', async () => {
    const mm = await merchantWith(fast, sim, [simCompany()]);
    const d = await createDeliveryFor(fast, mm, { scheduled_delivery_at: new Date(Date.now() + 2500).toISOString() });
    const stalled = await waitForStatus(fast, key(mm), d.id, 'stalled', 30_000);
    expect(stalled.events.at(-1).payload).toMatchObject({ reason: 'sla_deadline_passed', previous_status: 'assigned' });
  });

  it('payment_timeout: the payment window elapses and the delivery is cancelled', async () => {
    const mm = await merchantWith(fast, sim, [simCompany()]);
    const d = await createDeliveryFor(fast, mm, { payment_method: 'bank_transfer' });
    const cancelled = await waitForStatus(fast, key(mm), d.id, 'cancelled');
    expect(cancelled.events.at(-1)).toMatchObject({
      event_type: 'delivery.cancelled',
      source: 'system',
      payload: { reason: 'payment_timeout' },
    });
  });
});

describe('determinism', () => {
  // The release's recorded histories replay in test/workflows/replay.fast.test.ts.
  it('every delivery workflow of this run replays without nondeterminism', async () => {
    const histories = [];
    for (const s of [stack, fast]) {
      for await (const wf of s.temporal.workflow.list({ query: `WorkflowType = "deliveryWorkflow"` })) {
        histories.push({
          workflowId: wf.workflowId,
          history: await s.temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory(),
        });
        if (histories.length >= 40) break;
      }
    }
    expect(histories.length).toBeGreaterThan(5);
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('bundlePath') } },
      histories,
    )) {
      expect(result.error, result.workflowId).toBeUndefined();
    }
  });
});
