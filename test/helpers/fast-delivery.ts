// The fast workflow tier's harness: delivery workflows on the run's real Temporal dev server, with in-memory fake
// activities (fake-activities.ts) scripted per delivery. Shared by test/workflows/*.fast.test.ts.
import { type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import {
  fleetEventSignal,
  stateQuery,
  type DeliveryTimeouts,
  type DeliveryWorkflowInput,
  type FleetEvent,
  type RedispatchPlan,
} from '../../shared/deliveries/definitions.js';
import type { FleetEventType } from '../../shared/deliveries/vocabulary.js';
import { deliveryWorkflow } from '../../workflows/deliveries/workflows.js';
import { DeliveryStatusKey } from '../../shared/search-attributes.js';
import type { CancelAnswer, DispatchScript, RecordedEvent } from './fake-activities.js';
import { startFakeWorker, type FakeWorker } from './fake-worker.js';

export let env: FakeWorker;
const handles: WorkflowHandle[] = [];
/** Starts the fake worker for the calling test file and stops it (and what still runs) after. */
export function useFakeWorker(): void {
  beforeAll(async () => {
    env = await startFakeWorker();
  });
  afterAll(async () => {
    if (process.env.RECORD_HISTORIES) await recordHistories(process.env.RECORD_HISTORIES);
    // Stalled deliveries never end on their own: terminate what is still running.
    await Promise.all(handles.map((h) => h.terminate('test over').catch(() => undefined)));
    await env?.close();
  });
}

/**
 * RECORD_HISTORIES=<version>: the histories of this file's deliveries, finished or still waiting (stalled), go into
 * test/fixtures/histories/<version>/ as `<file>-<n>.history.bin`, beside those of test/lifecycle.test.ts, and replay
 * there from then on (the shapes only this tier reaches: failover, superseded events, races).
 */
async function recordHistories(version: string) {
  const folder = path.join(ROOT_DIR, 'test', 'fixtures', 'histories', version);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.basename(expect.getState().testPath ?? 'fast', '.fast.test.ts');
  let n = 0;
  for (const handle of handles) {
    const history = await handle.fetchHistory();
    fs.writeFileSync(
      path.join(folder, `${file}-${String(++n).padStart(2, '0')}.history.bin`),
      temporal.api.history.v1.History.encode(history).finish(),
    );
  }
}

/** No budget and a long payment window unless a test sets them; dispatch retries every 50 ms, 3 attempts. */
export function timeouts(overrides: Partial<DeliveryTimeouts> = {}): DeliveryTimeouts {
  return {
    paymentWindowMs: 60_000,
    stateBudgetsMs: {},
    dispatch: { maximumAttempts: 3, initialIntervalMs: 50, maximumIntervalMs: 100 },
    bookingReleaseRetryMs: 1000,
    ...overrides,
  };
}

export type StartOptions = Partial<Omit<DeliveryWorkflowInput, 'timeouts'>> & {
  timeouts?: Partial<DeliveryTimeouts>;
  dispatch?: DispatchScript;
  cancel?: CancelAnswer[];
  /** Automatic failover's plans, in order (default: no company qualifies). */
  plans?: RedispatchPlan[];
};

/** A delivery workflow's input for the fake activities (fresh ids, a `pending` delivery), with `fields` over it. */
export function fastDeliveryInput(
  fields: Partial<Omit<DeliveryWorkflowInput, 'timeouts'>> = {},
  t: Partial<DeliveryTimeouts> = {},
): DeliveryWorkflowInput {
  return {
    deliveryId: randomUUID(),
    tenantId: randomUUID(),
    reference: 'DLV-FAST000000',
    companyId: randomUUID(),
    courierSlug: 'fake',
    initialStatus: 'pending',
    createdEventId: randomUUID(),
    requireDeliveryPin: false,
    slaDeadlineAt: null,
    ...fields,
    timeouts: timeouts(t),
  };
}

/** Starts a delivery workflow on the fake worker's queue, its courier scripted by `dispatch` and `cancel`. */
export async function startDelivery(options: StartOptions = {}) {
  const { dispatch, cancel, plans, timeouts: t, ...fields } = options;
  const input = fastDeliveryInput(fields, t);
  env.fakes.script(input.deliveryId, { dispatch, cancel, redispatch: plans });
  const handle = await env.client.workflow.start(deliveryWorkflow, {
    taskQueue: env.taskQueue,
    workflowId: `delivery-${input.deliveryId}`,
    args: [input],
    typedSearchAttributes: [{ key: DeliveryStatusKey, value: input.initialStatus }],
  });
  handles.push(handle);
  const id = input.deliveryId;
  return {
    id,
    input,
    handle,
    /** The delivery's recorded events once one of `eventType` (matching `payload`) is among them. */
    waitFor: (eventType: string, payload: Record<string, unknown> = {}) =>
      env.fakes.waitForEvent(id, eventType, payload),
    /** Once the delivery has recorded `n` events. */
    waitForCount: (n: number) => env.fakes.waitForEvents(id, (events) => events.length >= n),
    types: () => env.fakes.eventTypesOf(id),
    fleet: (eventType: FleetEventType, extra: Partial<FleetEvent> = {}) =>
      handle.signal(fleetEventSignal, {
        eventType,
        occurredAt: new Date().toISOString(),
        payload: {},
        pinVerified: false,
        ...extra,
      }),
  };
}

/**
 * The workflow's state once its status is `status`. An event is recorded before the workflow takes in the
 * activity's result, so a query right after the fake saw the event may still see the previous status: poll.
 */
export async function stateWhen(handle: WorkflowHandle, status: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = await handle.query(stateQuery);
    if (state.status === status || Date.now() > until) return state;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const types = (events: RecordedEvent[]) => events.map((e) => e.eventType);
export const stalledEvent = (reason: string, previous: string) => ({
  eventType: 'delivery.stalled',
  toStatus: 'stalled',
  source: 'system',
  payload: { reason, previous_status: previous },
});
