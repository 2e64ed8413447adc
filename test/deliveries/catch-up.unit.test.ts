// updateOnceCaughtUp (src/deliveries/catch-up.ts): an update refused while the workflow lags its row is sent again
// after a pause; any other failure, or the row's own answer, goes out at once; past the deadline, the route's 503.
import { describe, expect, it } from 'vitest';
import { updateOnceCaughtUp } from '../../src/deliveries/catch-up.js';

const lagged = new Error('the validator refused: not stalled yet');
const late = () => new Error('late');

/** An update that fails with `failures` in turn, then answers `done`; counts its tries. */
function updateFailing(...failures: Error[]) {
  const tries = { count: 0 };
  const update = async () => {
    const failure = failures[tries.count++];
    if (failure) throw failure;
    return 'done';
  };
  return { update, tries };
}

describe('updateOnceCaughtUp', () => {
  it('tries again while the failure is the lag, and answers what the update answers once it takes', async () => {
    const { update, tries } = updateFailing(lagged, lagged, lagged);
    const started = Date.now();
    const answer = await updateOnceCaughtUp({
      update,
      lagging: async (err) => err === lagged,
      deadline: Date.now() + 5_000,
      late,
      pauses: [10, 20],
    });
    expect(answer).toBe('done');
    expect(tries.count).toBe(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(10 + 20 + 20 - 5); // the pauses, the last one repeated
  });

  it('any other failure goes out at once, untried again', async () => {
    const other = new Error('the courier refused');
    const { update, tries } = updateFailing(other);
    await expect(
      updateOnceCaughtUp({ update, lagging: async (err) => err === lagged, deadline: Date.now() + 5_000, late }),
    ).rejects.toBe(other);
    expect(tries.count).toBe(1);
  });

  it("the row's own answer, thrown by lagging, goes out as it is", async () => {
    const rowSays = new Error('409 delivery_not_stalled');
    const { update, tries } = updateFailing(lagged, lagged);
    await expect(
      updateOnceCaughtUp({
        update,
        lagging: async () => {
          throw rowSays;
        },
        deadline: Date.now() + 5_000,
        late,
      }),
    ).rejects.toBe(rowSays);
    expect(tries.count).toBe(1);
  });

  it('a lag that outlasts the deadline is late(), not the refusal', async () => {
    const { update, tries } = updateFailing(...Array<Error>(100).fill(lagged));
    await expect(
      updateOnceCaughtUp({
        update,
        lagging: async () => true,
        deadline: Date.now() + 100,
        late,
        pauses: [30],
      }),
    ).rejects.toThrow('late');
    expect(tries.count).toBeGreaterThanOrEqual(2);
    expect(tries.count).toBeLessThanOrEqual(4);
  });
});
