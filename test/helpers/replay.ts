// Determinism checks: every delivery workflow a test file ran, replayed against today's workflow bundle.
import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../src/platform/config.js';
import { Worker } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import type { Stack } from './stack.js';

/**
 * Replays every run of `deliveryWorkflow` on the stack's task queue (or the runs `query` lists); each must replay
 * without nondeterminism.
 */
export async function expectDeliveryWorkflowsReplay(
  stack: Stack,
  atLeast = 1,
  query = `WorkflowType = "deliveryWorkflow" AND TaskQueue = "${stack.config.taskQueue}"`,
): Promise<void> {
  const histories = [];
  for await (const wf of stack.temporal.workflow.list({ query })) {
    histories.push({
      workflowId: `${wf.workflowId}/${wf.runId}`,
      history: await stack.temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory(),
    });
  }
  expect(histories.length).toBeGreaterThanOrEqual(atLeast);
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: inject('bundlePath') } },
    histories,
  )) {
    if (result.error) {
      // Keep the history that did not replay, for `temporal workflow show`-style reading and for a fixture.
      const history = histories.find((h) => h.workflowId === result.workflowId)!.history;
      const file = path.join(ROOT_DIR, 'test-results', `nondeterminism-${result.workflowId.replace(/\//g, '_')}.json`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(
        file,
        JSON.stringify(
          temporal.api.history.v1.History.toObject(temporal.api.history.v1.History.fromObject(history as never), {
            enums: String,
            longs: String,
          }),
          null,
          1,
        ),
      );
    }
    expect(result.error, result.workflowId).toBeUndefined();
  }
}

/** Whether a workflow with this id exists (started, running or closed). */
export async function workflowExists(stack: Stack, workflowId: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
