// A delivery's workflow can lag its own row for a moment. A record's statement commits from a local activity, inside a
// workflow task; a worker that dies before that task completes leaves the row ahead (`stalled`, say) while the next
// worker replays the workflow up to that record and applies it again. An update sent meanwhile (POST /recover,
// DELETE, the test helpers' clock steps) meets the status before, and its validator refuses it. The routes check the
// row first; when the row still allows the action after such a refusal, the refusal is the lag, not the answer: the
// update is sent again after a pause, until the deadline. Never answered as a 409 or 422 that a client's
// Idempotency-Key would keep for 24 hours.
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { AppDeps } from '../platform/deps.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import type { DeliveryRow } from './repository.js';
import { ensureDeliveryWorkflow } from './start.js';

/** The pauses between tries: then every 2 s until the deadline. */
export const CATCH_UP_PAUSES_MS = [100, 250, 500, 1000, 2000] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `update`, and again after a pause while `lagging(err)` says its failure is the workflow lagging the row (it may
 * throw the row's own answer instead); past `deadline`, throws `late()` (a 503 the client may retry).
 */
export async function updateOnceCaughtUp<T>(options: {
  update: () => Promise<T>;
  lagging: (err: unknown) => Promise<boolean>;
  deadline: number;
  late: () => Error;
  pauses?: readonly number[];
}): Promise<T> {
  const { update, lagging, deadline, late, pauses = CATCH_UP_PAUSES_MS } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      return await update();
    } catch (err) {
      if (!(await lagging(err))) throw err;
      const pause = pauses[Math.min(attempt, pauses.length - 1)]!;
      if (Date.now() + pause >= deadline) throw late();
      await sleep(pause);
    }
  }
}

/** An update's failure that its handler threw (the action's own rules), as `ApplicationFailure` of this type. */
export const rejectedByHandler = (err: unknown, type: string): err is WorkflowUpdateFailedError =>
  err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === type;

/**
 * Sends `delivery`'s workflow (started first when the reconciler has not yet) the update `def` with `arg` within
 * `deadline`, waiting out a validator's refusal while `rowAllows()` (which may throw the row's own answer). A refusal
 * by the handler (`handlerRejection`, its ApplicationFailure type) and every other failure go to the caller.
 */
export async function updateDeliveryWorkflow<Ret, Arg>(
  { temporal, pool, config }: AppDeps,
  delivery: DeliveryRow,
  def: UpdateDefinition<Ret, [Arg]>,
  arg: Arg,
  options: { deadline: number; handlerRejection: string; rowAllows: () => Promise<boolean>; late: () => Error },
): Promise<Ret> {
  const { deadline, handlerRejection, rowAllows, late } = options;
  await temporal.withDeadline(deadline, () => ensureDeliveryWorkflow(temporal, pool, config, delivery));
  return updateOnceCaughtUp({
    update: () =>
      temporal.withDeadline(deadline, () =>
        temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).executeUpdate(def, { args: [arg] }),
      ),
    lagging: async (err) =>
      err instanceof WorkflowUpdateFailedError && !rejectedByHandler(err, handlerRejection) && (await rowAllows()),
    deadline,
    late,
  });
}
