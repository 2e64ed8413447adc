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
const initialStatusOf = new Map<string, string>();
/** Starts the fake worker for the calling test file and stops it (and what still runs) after. */
export function useFakeWorker(): void {
  beforeAll(async () => {
    env = await startFakeWorker();
  });
  afterAll(async () => {
    if (process.env.RECORD_HISTORIES) await recordHistories(expect.getState().testPath ?? 'fast');
    // Stalled deliveries never end on their own: terminate what is still running.
    await Promise.all(handles.map((h) => h.terminate('test over').catch(() => undefined)));
    await env?.close();
  });
}

/** The release's replay baseline, replayed by test/workflows/replay.fast.test.ts (docs/workflow-versioning.md). */
export const HISTORIES_DIR = path.join(ROOT_DIR, 'test', 'fixtures', 'histories');

/**
 * RECORD_HISTORIES=1: the histories of the file's deliveries, finished or still waiting (stalled), every run of each
 * (continue-as-new), go into test/fixtures/histories/<file>/, named by the path the delivery took (its status at the
 * start, then the events it recorded): one history per distinct path and shape (its history's event types).
 */
async function recordHistories(testFile: string) {
  const folder = path.join(HISTORIES_DIR, path.basename(testFile, '.fast.test.ts'));
  fs.mkdirSync(folder, { recursive: true });
  const shapes = new Map<string, Set<string>>();
  for (const handle of handles) {
    const id = handle.workflowId.replace(/^delivery-/, '');
    const steps = env.fakes.eventsOf(id).map((e) => {
      const by = e.source === 'fleet_webhook' || e.source === 'system' ? '' : `-by-${e.source}`;
      const why = e.payload.ignored ? '-ignored' : typeof e.payload.reason === 'string' ? `-${e.payload.reason}` : '';
      return `${e.eventType.replace(/^delivery\./, '')}${by}${why}`;
    });
    const collapsed = steps.filter((t, i) => t !== steps[i - 1]);
    const name = [initialStatusOf.get(handle.workflowId), ...collapsed].join('.').slice(0, 160);
    let run = 0;
    for await (const wf of env.client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` })) {
      const history = await env.client.workflow.getHandle(handle.workflowId, wf.runId).fetchHistory();
      const base = `${name}${run++ === 0 ? '' : `.run${run}`}`;
      const seen = shapes.get(base) ?? shapes.set(base, new Set()).get(base)!;
      const shape = (history.events ?? []).map((e) => e.eventType).join(',');
      if (seen.has(shape)) continue;
      const file = `${base}${seen.size === 0 ? '' : `.shape${seen.size + 1}`}.history.bin`;
      seen.add(shape);
      fs.writeFileSync(path.join(folder, file), temporal.api.history.v1.History.encode(history).finish());
    }
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
    // A prepaid delivery, as the API starts it: `delivered` books no cash (the collectCash effect is a no-op).
    cashOnDelivery: false,
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
  initialStatusOf.set(handle.workflowId, input.initialStatus);
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
