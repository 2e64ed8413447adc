// The floor of the lifecycle benchmark (bench/lifecycle.ts): the least work a delivery's lifecycle could cost. Not in
// the production bundle: the benchmark runs it on a worker of its own (bench/floor/worker.ts).
import { condition, defineSignal, proxyActivities, setHandler, uuid4 } from '@temporalio/workflow';
import type { SystemActivities } from '../../activities/system/activities.js';

const { writePing } = proxyActivities<SystemActivities>({ startToCloseTimeout: '10s' });

/** A signal to the lifecycle floor workflow, standing for one fleet event. */
export const floorEventSignal = defineSignal<[{ type: string }]>('floorEvent');

/**
 * One row written by one activity at start (the booking), then one row per signal, each by one activity, until
 * `signals` have arrived. No state machine, no webhooks, no API.
 */
export async function lifecycleFloorWorkflow(input: { signals: number }): Promise<{ rows: number }> {
  const inbox: string[] = [];
  setHandler(floorEventSignal, ({ type }) => void inbox.push(type));
  await writePing({ id: uuid4(), message: 'floor:start' });
  let rows = 1;
  for (let handled = 0; handled < input.signals; handled++) {
    await condition(() => inbox.length > 0);
    await writePing({ id: uuid4(), message: `floor:${inbox.shift()}` });
    rows++;
  }
  return { rows };
}
