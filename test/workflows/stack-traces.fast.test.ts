// Workflow stack traces (docs/operations.md "Workflow stack traces"): the worker's bundle preloads
// workflows/lib/stack-traces.ts, so a delivery's workflow code captures no stack frames and the Temporal UI's stack
// trace query names none of its lines; the bundle a worker runs with WORKFLOW_STACK_TRACES=true is built without it
// and names them. Both on the run's real dev server, with the fake activities.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import { DeliveryStatusKey } from '../../shared/search-attributes.js';
import { bundleVariant, buildWorkflowBundle } from '../../src/platform/workflow-bundle.js';
import { deliveryWorkflow } from '../../workflows/deliveries/workflows.js';
import { startFakeWorker, type FakeWorker } from '../helpers/fake-worker.js';
import { fastDeliveryInput } from '../helpers/fast-delivery.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-traces-'));

/** The stack trace query's answer for a delivery waiting for its payment, on `worker`. */
async function stackTraceOfWaitingDelivery(worker: FakeWorker): Promise<string> {
  const input = fastDeliveryInput({ initialStatus: 'awaiting_payment' });
  const handle = await worker.client.workflow.start(deliveryWorkflow, {
    taskQueue: worker.taskQueue,
    workflowId: deliveryWorkflowId(input.deliveryId),
    args: [input],
    typedSearchAttributes: [{ key: DeliveryStatusKey, value: input.initialStatus }],
  });
  try {
    return await handle.query<string>('__stack_trace');
  } finally {
    await handle.terminate('test over');
  }
}

let lean: FakeWorker | undefined;
let traced: FakeWorker | undefined;
beforeAll(async () => {
  // The run's bundle (test/global-setup.ts) is the lean one, built as `npm run build` builds the worker's; its sibling
  // with stack traces is built here.
  const tracedPath = await buildWorkflowBundle(bundleVariant(path.join(dir, 'workflow-bundle.js'), true));
  lean = await startFakeWorker();
  traced = await startFakeWorker(tracedPath);
}, 120_000);
afterAll(async () => {
  await Promise.all([lean?.close(), traced?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('workflow stack traces', () => {
  it("the worker's bundle captures no stack frame in workflow code", async ({ expect }) => {
    const stacks = await stackTraceOfWaitingDelivery(lean!);
    expect(stacks).not.toMatch(/\bat\b/);
    expect(stacks).not.toContain('workflows/deliveries');
  });

  it('the bundle with stack traces names the line a delivery waits on', async ({ expect }) => {
    const stacks = await stackTraceOfWaitingDelivery(traced!);
    expect(stacks).toContain('workflows/deliveries/workflows.ts');
  });
});
