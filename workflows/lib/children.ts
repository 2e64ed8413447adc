// Starting abandoned children whose workflow id is derived from what they handle (`webhook-<event id>`,
// `booking-release-<delivery>-<ref>`): a second start of the same id is a duplicate, nothing to do.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';

/** `.catch` handler of `startChild(...)`: swallows "already started" only; any other failure is rethrown. */
export function ignoreAlreadyStarted(err: unknown): void {
  if (err instanceof WorkflowExecutionAlreadyStartedError) return;
  throw err;
}
