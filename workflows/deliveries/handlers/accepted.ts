// An update's writes wait until its acceptance is in the workflow's history. The handler of an update runs in the
// workflow task that accepts it; a local activity there (recording the event) writes to Postgres before that task
// completes. Should the worker die, or Temporal restart, before it completes, the update was never accepted: the
// client is told so and may try again, but the row would already say it happened, and the workflow would never do it
// (the crash test found a resumed delivery left `pending` in Postgres and `stalled` in its workflow). A 1 ms timer
// ends that task first: from then on the update is durable, and a worker that dies replays the handler to the end.
import { sleep } from '@temporalio/workflow';

/** Call first in an update handler that writes anything. */
export const accepted = (): Promise<void> => sleep(1);
