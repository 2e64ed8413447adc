// Couriers cannot forge or flood (issue 11, items 4, 5, 6 and the fleet parts of 10), on the real stack:
// - a courier's payload is kept under payload.courier (allow-listed, at most 4 KB), so it cannot set the fields
//   the service sets (ignored, reason, status, pin_verified); the PIN is never stored;
// - five wrong PINs stall the delivery (pin_attempts_exceeded) and the merchant is told by webhook;
// - a flood of events makes the workflow continue as new (same id), and the delivery still completes;
// - a deactivated courier's events are refused (403); the fleet secret rotates with 24 h of overlap.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { signFleetEvent, type Simulator } from '../../simulator/server.js';
import { buildProgram } from '../../src/cli/index.js';
import {
  deliveryWorkflowId,
  fleetEventSignal,
  stateQuery,
  type FleetEvent,
} from '../../shared/deliveries/definitions.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  webhookOutcome,
  type Merchant,
} from '../helpers/fixtures.js';
import { expectDeliveryWorkflowsReplay } from '../helpers/replay.js';
import { startStack, type Stack } from '../helpers/stack.js';

// ---- a merchant's webhook receiver -----------------------------------------------------------------

const received: { type: string; deliveryId: string; event: any }[] = [];
let receiver: http.Server;
let receiverUrl: string;

let stack: Stack;
let sim: Simulator;
/** Deliveries of this file continue as new after this many history events (instead of 10,000). */
const HISTORY_LIMIT = 1000;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({ type: body.type, deliveryId: body.data?.delivery?.id, event: body.data?.event });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  sim = await startSimulator();
  stack = await startStack({ webhookScheduleMs: [0], webhookTimeoutMs: 2000, workflowHistoryLimit: HISTORY_LIMIT });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const key = (m: Merchant) => m.tenant.secret_key;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A merchant with one simulated courier and a webhook endpoint pointing at this file's receiver. */
async function merchant(companyOverrides: Parameters<typeof simCompany>[0] = {}) {
  const company = simCompany(companyOverrides);
  const m = await merchantWith(stack, sim, [company]);
  const res = await stack.request('POST', '/v1/webhook_endpoints', { key: key(m), body: { url: receiverUrl } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { m, company };
}

/** Signs and posts a fleet event for this company straight to the API (the raw body is what the test chose). */
async function postFleet(
  slug: string,
  secret: string,
  body: Record<string, unknown>,
  webhookId = `msg_${randomUUID()}`,
) {
  const raw = JSON.stringify({ occurred_at: new Date().toISOString(), ...body });
  return stack.request('POST', `/v1/fleet/${slug}/events`, {
    body: raw,
    headers: { 'content-type': 'application/json', ...signFleetEvent(secret, raw, webhookId) },
  });
}

const eventsOf = async (deliveryId: string) =>
  (
    await stack.pool.query<{ event_type: string; payload: any; source: string }>(
      'SELECT event_type, payload, source FROM delivery_events WHERE delivery_id = $1 ORDER BY occurred_at, id',
      [deliveryId],
    )
  ).rows;

/** How many fleet events of the delivery were recorded as ignored because it was `assigned`. */
const ignoredFromAssigned = async (deliveryId: string) =>
  Number(
    (
      await stack.pool.query(
        `SELECT count(*) FROM delivery_events WHERE delivery_id = $1 AND payload->>'reason' = 'not_allowed_from_assigned'`,
        [deliveryId],
      )
    ).rows[0].count,
  );

async function waitUntil<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("a courier's payload cannot forge the fields the service sets (item 4)", () => {
  it('a valid transition sent with ignored/reason/status/pin_verified still moves the status, notifies the merchant and shows on tracking', async () => {
    const { m, company } = await merchant();
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const res = await postFleet(company.slug, company.fleet_secret, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'pickup_ready',
      payload: {
        ignored: true,
        reason: 'forged',
        status: 'delivered',
        pin_verified: true,
        webhook_id: 'forged-id',
        driver_name: 'João Manuel',
        vehicle: 'LD-12-34-AB',
        location: { lat: -8.83, lng: 13.24 },
        eta_minutes: 25,
        secret_field: 'DROPPED-MARKER',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);

    const moved = await waitForStatus(stack, key(m), d.id, 'pickup_ready');
    const event = moved.events.find((e: any) => e.event_type === 'delivery.pickup_ready');
    // The courier's fields are kept under payload.courier only; the service's fields are its own.
    expect(event.source).toBe('fleet_webhook');
    expect(event.payload.courier).toEqual({
      driver_name: 'João Manuel',
      vehicle: 'LD-12-34-AB',
      location: { lat: -8.83, lng: 13.24 },
      eta_minutes: 25,
      reason: 'forged',
    });
    expect(event.payload.ignored).toBeUndefined();
    expect(event.payload.reason).toBeUndefined();
    expect(event.payload.status).toBeUndefined();
    expect(event.payload.pin_verified).toBeUndefined();
    expect(event.payload.webhook_id).not.toBe('forged-id');
    expect(JSON.stringify(moved.events)).not.toContain('DROPPED-MARKER');

    // The merchant's webhook and the recipient's tracking both have it.
    await waitUntil('the pickup_ready webhook', async () =>
      received.some((r) => r.deliveryId === d.id && r.type === 'delivery.pickup_ready'),
    );
    const tracking = await stack.request('GET', `/v1/deliveries/${d.id}/tracking`);
    expect(tracking.body.events.map((e: any) => e.event_type)).toContain('delivery.pickup_ready');
  });

  it('a courier cannot make a wrong PIN pass with pin_verified, and the PIN is never stored', async () => {
    const { m, company } = await merchant({ require_delivery_pin: true });
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const ref = assigned.courier.tracking_ref;
    expect(
      (await postFleet(company.slug, company.fleet_secret, { tracking_ref: ref, event_type: 'in_transit' })).status,
    ).toBe(202);
    await waitForStatus(stack, key(m), d.id, 'in_transit');

    const wrongPin = d.delivery_pin === '0000' ? '1111' : '0000';
    expect(
      (
        await postFleet(company.slug, company.fleet_secret, {
          tracking_ref: ref,
          event_type: 'delivered',
          payload: { pin: wrongPin, pin_verified: true, ignored: false },
        })
      ).status,
    ).toBe(202);
    const ignored = await waitFor(stack, key(m), d.id, (x) =>
      x.events.some((e: any) => e.payload?.reason === 'pin_mismatch'),
    );
    expect(ignored.status).toBe('in_transit');
    expect(ignored.events.at(-1).payload).toMatchObject({
      ignored: true,
      reason: 'pin_mismatch',
      pin_verified: false,
      courier: {},
    });

    expect(
      (
        await postFleet(company.slug, company.fleet_secret, {
          tracking_ref: ref,
          event_type: 'delivered',
          payload: { pin: d.delivery_pin, proof: { photo_url: 'https://proof.example/photo.jpg' } },
        })
      ).status,
    ).toBe(202);
    const delivered = await waitForStatus(stack, key(m), d.id, 'delivered');
    expect(delivered.events.at(-1).payload).toMatchObject({
      pin_verified: true,
      courier: { proof: { photo_url: 'https://proof.example/photo.jpg' } },
    });
    expect(delivered.proof_of_delivery).toEqual({ photo_url: 'https://proof.example/photo.jpg' });
    const stored = JSON.stringify(await eventsOf(d.id));
    expect(stored).not.toContain('"pin"');
    expect(stored).not.toContain(`"${wrongPin}"`);
    expect(stored).not.toContain(`"${d.delivery_pin}"`);
  });

  it('a payload over 4 KB, or an allow-listed field of the wrong type, is 422 problem+json and changes nothing', async () => {
    const { m, company } = await merchant();
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const before = (await eventsOf(d.id)).length;

    const big = await postFleet(company.slug, company.fleet_secret, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'pickup_ready',
      payload: { note: 'ok', extra: 'x'.repeat(4100) },
    });
    stack.expectProblem(big, 422, 'validation_failed');
    expect(big.body.errors).toEqual([expect.objectContaining({ pointer: '/payload', code: 'too_large' })]);

    const wrongType = await postFleet(company.slug, company.fleet_secret, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'pickup_ready',
      payload: { location: 'here' },
    });
    stack.expectProblem(wrongType, 422, 'validation_failed');
    expect(wrongType.body.errors[0].pointer).toMatch(/^\/payload\/location/);

    // Just under the cap (unknown fields count towards it, then are dropped): accepted.
    const fits = await postFleet(company.slug, company.fleet_secret, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'pickup_ready',
      payload: { note: 'fits', extra: 'x'.repeat(4000) },
    });
    expect(fits.status, JSON.stringify(fits.body)).toBe(202);
    const moved = await waitForStatus(stack, key(m), d.id, 'pickup_ready');
    expect(moved.events.length).toBe(before + 1);
    expect(moved.events.at(-1).payload.courier).toEqual({ note: 'fits' });
  });
});

describe('PIN brute force stops (item 5)', () => {
  it('five wrong PINs stall the delivery (pin_attempts_exceeded) and the merchant gets delivery.stalled', async () => {
    const { m, company } = await merchant({ require_delivery_pin: true });
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const ref = assigned.courier.tracking_ref;
    expect(
      (await postFleet(company.slug, company.fleet_secret, { tracking_ref: ref, event_type: 'in_transit' })).status,
    ).toBe(202);
    await waitForStatus(stack, key(m), d.id, 'in_transit');

    const wrong = (i: number) => String((Number(d.delivery_pin) + 1 + i) % 10_000).padStart(4, '0');
    const mismatches = async () => (await eventsOf(d.id)).filter((e) => e.payload?.reason === 'pin_mismatch').length;
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await postFleet(company.slug, company.fleet_secret, {
            tracking_ref: ref,
            event_type: 'delivered',
            payload: { pin: wrong(i) },
          })
        ).status,
      ).toBe(202);
      await waitUntil(`wrong PIN ${i + 1} recorded`, async () => (await mismatches()) === i + 1);
    }
    // Four wrong PINs: still in transit, the right one would still work.
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body.status).toBe('in_transit');

    expect(
      (
        await postFleet(company.slug, company.fleet_secret, {
          tracking_ref: ref,
          event_type: 'delivered',
          payload: { pin: wrong(4) },
        })
      ).status,
    ).toBe(202);
    const stalled = await waitForStatus(stack, key(m), d.id, 'stalled');
    expect(stalled.events.at(-1)).toMatchObject({
      event_type: 'delivery.stalled',
      source: 'system',
      payload: { reason: 'pin_attempts_exceeded', previous_status: 'in_transit' },
    });
    const hook = await waitUntil('the stalled webhook', async () =>
      received.find((r) => r.deliveryId === d.id && r.type === 'delivery.stalled'),
    );
    expect(hook.event.payload).toMatchObject({ reason: 'pin_attempts_exceeded' });

    // Now even the right PIN changes nothing: an operator has to look first.
    expect(
      (
        await postFleet(company.slug, company.fleet_secret, {
          tracking_ref: ref,
          event_type: 'delivered',
          payload: { pin: d.delivery_pin },
        })
      ).status,
    ).toBe(202);
    const after = await waitFor(
      stack,
      key(m),
      d.id,
      (x) => x.events.at(-1).payload?.reason === 'not_allowed_from_stalled',
    );
    expect(after.status).toBe('stalled');
  });
});

describe('a flood of fleet events: the workflow continues as new and the delivery still completes (item 6)', () => {
  /** Every run of the delivery's workflow (the continue-as-new chain), through Temporal visibility. */
  async function runsOf(deliveryId: string) {
    const runs: { runId: string; status: string }[] = [];
    for await (const wf of stack.temporal.workflow.list({ query: `WorkflowId = "${deliveryWorkflowId(deliveryId)}"` }))
      runs.push({ runId: wf.runId, status: wf.status.name });
    return runs;
  }
  const ignoredSignal = (i: number): FleetEvent => ({
    eventType: 'delivered',
    occurredAt: new Date().toISOString(),
    payload: { note: `flood ${i}` },
    pinVerified: false,
    webhookId: `flood-${i}`,
  });

  it('5,000 ignored events, then the real ones: delivered, every event recorded once, several runs', async () => {
    const { m, company } = await merchant();
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const ref = assigned.courier.tracking_ref;
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));

    // `delivered` from `assigned` is not allowed: each is recorded as ignored. Signals go straight to Temporal
    // (the fleet route adds nothing here but time), 10 at a time: about the pace the fleet route can take them.
    // (Thousands of signals landing in ONE workflow activation crash the TypeScript SDK's workflow thread,
    // "async hook stack has become corrupted"; a flood only gets that dense by bypassing the API.)
    // Back-pressure too: a worker slowed down by a busy machine would otherwise get thousands of queued signals in
    // one activation; the test keeps at most ~150 unrecorded at a time.
    const N = 5000;
    const ignoredCount = () => ignoredFromAssigned(d.id);
    for (let start = 0; start < N; start += 10) {
      if (start % 100 === 0 && start > 0)
        await waitUntil(
          'the workflow to keep up with the flood',
          async () => start - (await ignoredCount()) <= 150,
          120_000,
        );
      await Promise.all(
        Array.from({ length: Math.min(10, N - start) }, (_, j) =>
          handle.signal(fleetEventSignal, ignoredSignal(start + j)),
        ),
      );
    }
    await waitUntil('5,000 ignored events recorded', async () => (await ignoredCount()) >= N, 480_000);

    // The API's query works on the latest run; a webhook-id seen before the hand-over still counts once.
    expect(await handle.query(stateQuery)).toMatchObject({ status: 'assigned', trackingRef: ref });
    await handle.signal(fleetEventSignal, ignoredSignal(N - 1));

    for (const step of ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered']) {
      expect(
        (await postFleet(company.slug, company.fleet_secret, { tracking_ref: ref, event_type: step })).status,
      ).toBe(202);
    }
    const delivered = await waitForStatus(stack, key(m), d.id, 'delivered', 60_000);
    expect(delivered.events.filter((e: any) => !e.payload?.ignored).map((e: any) => e.event_type)).toEqual([
      'delivery.created',
      'delivery.dispatched',
      'delivery.assigned',
      'delivery.pickup_ready',
      'delivery.in_transit',
      'delivery.out_for_delivery',
      'delivery.delivered',
    ]);
    expect(await ignoredCount()).toBe(N);
    await expect(handle.result()).resolves.toEqual({ status: 'delivered' });

    // It took several runs: each earlier one continued as new, the last one completed.
    const described = await handle.describe();
    expect(described.status.name).toBe('COMPLETED');
    const runs = await waitUntil('visibility to list every run', async () => {
      const r = await runsOf(d.id);
      return r.some((x) => x.status === 'COMPLETED') && r.length > 1 ? r : undefined;
    });
    expect(runs.filter((r) => r.status === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(2);
    const first = runs.at(-1)!; // newest first
    const history = await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id), first.runId).fetchHistory();
    const last = history.events!.at(-1)!;
    expect(last.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // No run's history came near Temporal's limits (51,200 events). A run may pass HISTORY_LIMIT by a few
    // thousand: while signals keep arriving, Temporal refuses the continue-as-new of a workflow task that did not
    // see them (UnhandledCommand) and the task runs again, so a busy machine can stretch a run.
    for (const run of runs) {
      const h = await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id), run.runId).fetchHistory();
      expect(h.events!.length).toBeLessThan(HISTORY_LIMIT * 10);
    }
    // The search attributes travelled with the runs.
    const listed = [];
    for await (const wf of stack.temporal.workflow.list({
      query: `WorkflowId = "${deliveryWorkflowId(d.id)}" AND DeliveryStatus = "delivered"`,
    }))
      listed.push(wf.runId);
    expect(listed).toContain(described.runId);
  }, 600_000);

  /**
   * An assigned delivery whose fleet events `send` signals while a transaction holds the events table (every write of
   * the workflow waits: a slow Postgres, a long lock). Then `expected` ignored events must each be recorded once, the
   * delivery must still be delivered, and its history must replay against today's bundle, as a worker that lost its
   * cache would replay it.
   */
  async function whileWritesWait(expected: number, send: (handle: WorkflowHandle) => Promise<void>): Promise<void> {
    const { m, company } = await merchant();
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));
    const blocker = await stack.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE delivery_events IN EXCLUSIVE MODE');
      await send(handle);
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    const ignored = () => ignoredFromAssigned(d.id);
    await waitUntil('every ignored event recorded', async () => (await ignored()) >= expected, 120_000);
    for (const step of ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered']) {
      const res = await postFleet(company.slug, company.fleet_secret, {
        tracking_ref: assigned.courier.tracking_ref,
        event_type: step,
      });
      expect(res.status).toBe(202);
    }
    await waitForStatus(stack, key(m), d.id, 'delivered', 60_000);
    expect(await ignored()).toBe(expected);
    await expectDeliveryWorkflowsReplay(stack, 1, `WorkflowId = "${deliveryWorkflowId(d.id)}"`);
  }

  it("fleet events keep arriving while Postgres holds the workflow's writes for 20 s: recorded once each, delivered, and the history replays", async () => {
    // Longer than a workflow task may last (10 s), the courier's events keep arriving, a few at a time.
    const N = 60;
    await whileWritesWait(N, async (handle) => {
      for (let i = 0; i < N; i += 3) {
        await Promise.all([0, 1, 2].map((j) => handle.signal(fleetEventSignal, ignoredSignal(100_000 + i + j))));
        await sleep(1000);
      }
    });
  }, 300_000);

  it('a burst of more than 100 fleet events while the workflow waits on a write: recorded once each, delivered, and the history replays', async () => {
    // Past 100 signals buffered during one workflow task (Temporal's default history.maximumBufferedEventsBatch), the
    // server fails that task; the worker, still waiting on the task's local activity, then gets the next task for the
    // same run, which Temporal Core 1.24 applies on top of the failed one ("Trying to send a new WFT for a run which
    // already has one!"): the history it writes no longer replays (docs/architecture.md "Signals buffered during a
    // workflow task"). Our servers take MAX_BUFFERED_EVENTS (scripts/lib/temporal-cli.ts, the cluster's dynamic config).
    const N = 151;
    await whileWritesWait(N, async (handle) => {
      // The first event's write waits on the lock, inside its workflow task; the burst lands while it waits.
      await handle.signal(fleetEventSignal, ignoredSignal(200_000));
      await sleep(1500);
      for (let i = 1; i < N; i += 10) {
        const burst = Array.from({ length: Math.min(10, N - i) }, (_, j) => ignoredSignal(200_000 + i + j));
        await Promise.all(burst.map((event) => handle.signal(fleetEventSignal, event)));
      }
      await sleep(2000);
    });
  }, 300_000);

  it("the API's updates and queries reach the latest run after a continue-as-new (payment confirmation, then cancel)", async () => {
    const { m } = await merchant({ booking_status: 'pending' });
    const d = await createDeliveryFor(stack, m, { payment_method: 'bank_transfer' });
    expect(d.status).toBe('awaiting_payment');
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));
    const firstRun = (await handle.describe()).runId;
    // `delivered` is not allowed from awaiting_payment: ignored, and enough of them for a continue-as-new.
    for (let start = 0; start < 1500; start += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => handle.signal(fleetEventSignal, ignoredSignal(start + j))),
      );
    }
    await waitUntil('a continue-as-new', async () => (await handle.describe()).runId !== firstRun, 120_000);
    expect((await handle.query(stateQuery)).status).toBe('awaiting_payment');

    const paid = await stack.request('POST', `/v1/deliveries/${d.id}/payment_confirmation`, { key: key(m) });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await waitFor(
      stack,
      key(m),
      d.id,
      (x) => x.events.some((e: any) => e.event_type === 'delivery.dispatched'),
      60_000,
    );
    const cancelled = await stack.request('DELETE', `/v1/deliveries/${d.id}`, { key: key(m) });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    await expect(handle.result()).resolves.toEqual({ status: 'cancelled' });
    // delivery.created was announced once, by the first run only. The workflow has ended, so every message it
    // stored is known: once their sending is over, whatever was sent has arrived.
    const announced = await stack.pool.query<{ id: string }>(
      `SELECT id FROM delivery_events WHERE delivery_id = $1 AND payload->>'ignored' IS NULL`,
      [d.id],
    );
    await Promise.all(announced.rows.map((e) => webhookOutcome(stack, e.id)));
    expect(received.filter((r) => r.deliveryId === d.id && r.type === 'delivery.created')).toHaveLength(1);
  }, 300_000);
});

describe('fleet secrets and deactivated couriers (item 10, fleet parts)', () => {
  /** The admin CLI in this process, against the test database; returns what it printed. */
  async function admin(...args: string[]) {
    let out = '';
    await buildProgram(
      () => stack.pool,
      (text) => void (out += text),
    ).parseAsync(args, { from: 'user' });
    return out;
  }

  it("a deactivated courier's signed events are refused: 403 courier_inactive, nothing recorded", async () => {
    const { m, company } = await merchant();
    const d = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, key(m), d.id, 'assigned');
    const before = (await eventsOf(d.id)).length;
    const signals = async () =>
      (await stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).fetchHistory()).events!.filter(
        (e) => e.workflowExecutionSignaledEventAttributes,
      ).length;
    const signalsBefore = await signals();
    expect(JSON.parse(await admin('courier', 'deactivate', company.slug, '--json'))).toMatchObject({
      slug: company.slug,
      active: false,
      changed: true,
    });
    expect(await admin('courier', 'deactivate', m.couriers[company.slug])).toMatch(/is inactive \(it was already\)/);
    const res = await postFleet(company.slug, company.fleet_secret, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'failed',
    });
    stack.expectProblem(res, 403, 'courier_inactive');
    // An unsigned request still learns nothing: 401 before 403.
    const unsigned = await stack.request('POST', `/v1/fleet/${company.slug}/events`, {
      body: {
        tracking_ref: assigned.courier.tracking_ref,
        event_type: 'failed',
        occurred_at: new Date().toISOString(),
      },
    });
    stack.expectProblem(unsigned, 401, 'unauthorized');
    // Only a signal to the workflow records an event, and the route answers after sending it: none was sent.
    expect(await signals()).toBe(signalsBefore);
    expect((await eventsOf(d.id)).length).toBe(before);
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body.status).toBe('assigned');
    // An unknown courier is a usage error; activate makes the events welcome again (the signature was never the issue).
    await expect(admin('courier', 'deactivate', 'no-such-courier')).rejects.toThrow(
      /No courier with slug "no-such-courier"/,
    );
    expect(JSON.parse(await admin('courier', 'activate', company.slug, '--json'))).toMatchObject({
      active: true,
      changed: true,
    });
    const accepted = await postFleet(company.slug, company.fleet_secret, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'pickup_ready',
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBeLessThan(300);
  });

  it('courier rotate-secret: old and new secret both work for 24 h, then only the new one', async () => {
    const { m, company } = await merchant();
    const d = await createDeliveryFor(stack, m);
    const ref = (await waitForStatus(stack, key(m), d.id, 'assigned')).courier.tracking_ref;
    const oldSecret = company.fleet_secret;

    const rotated = JSON.parse(await admin('courier', 'rotate-secret', '--courier', company.slug, '--json'));
    expect(rotated).toMatchObject({ slug: company.slug, fleet_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.fleet_secret).not.toBe(oldSecret);
    const until = Date.parse(rotated.previous_secret_valid_until) - Date.now();
    expect(until).toBeGreaterThan(23.9 * 3600_000);
    expect(until).toBeLessThanOrEqual(24 * 3600_000);
    const human = await admin('courier', 'rotate-secret', '--courier', company.slug);
    expect(human).toMatch(/new fleet secret: whsec_/);
    const newest = /new fleet secret: (\S+)/.exec(human)![1];
    // The second rotation made `rotated.fleet_secret` the previous one: the first secret is now gone.
    expect((await postFleet(company.slug, oldSecret, { tracking_ref: ref, event_type: 'pickup_ready' })).status).toBe(
      401,
    );

    // Within the grace period both work.
    expect(
      (await postFleet(company.slug, rotated.fleet_secret, { tracking_ref: ref, event_type: 'pickup_ready' })).status,
    ).toBe(202);
    await waitForStatus(stack, key(m), d.id, 'pickup_ready');
    expect((await postFleet(company.slug, newest, { tracking_ref: ref, event_type: 'in_transit' })).status).toBe(202);
    await waitForStatus(stack, key(m), d.id, 'in_transit');

    // 24 h later (moved forward in the database): only the new secret.
    await stack.pool.query(
      `UPDATE courier_companies SET previous_fleet_secret_expires_at = now() - interval '1 second' WHERE slug = $1`,
      [company.slug],
    );
    stack.expectProblem(
      await postFleet(company.slug, rotated.fleet_secret, { tracking_ref: ref, event_type: 'out_for_delivery' }),
      401,
      'unauthorized',
    );
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key(m) })).body.status).toBe('in_transit');
    expect((await postFleet(company.slug, newest, { tracking_ref: ref, event_type: 'out_for_delivery' })).status).toBe(
      202,
    );
    await waitForStatus(stack, key(m), d.id, 'out_for_delivery');
  });

  it('rotate-secret for an unknown courier is a usage error', async () => {
    await expect(admin('courier', 'rotate-secret', '--courier', `no-such-${randomUUID().slice(0, 8)}`)).rejects.toThrow(
      /No courier with slug/,
    );
  });
});

describe('determinism', () => {
  it('every delivery workflow run of this file (continue-as-new, batches, PIN stall) replays without nondeterminism', async () => {
    await expectDeliveryWorkflowsReplay(stack, 6);
  }, 120_000);
});
