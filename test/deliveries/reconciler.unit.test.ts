// The worker's reconciler pass (src/worker.ts startReconciler): each step has its own try/catch, so a step that fails
// (Temporal's visibility down for restartClosedSince, say) skips none of the others, and says which step failed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../src/platform/config.js';
import type { Pool } from '../../src/platform/db.js';
import { startReconciler, type ReconcilerSteps } from '../../src/worker.js';

const config = loadConfig({});
let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  vi.restoreAllMocks();
});

/** Runs passes every 20 ms with these steps until each step was called `passes` times; returns what was called and logged. */
async function passes(failing: (keyof ReconcilerSteps)[], count = 2) {
  const calls: string[] = [];
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args.map(String).join(' ')));
  vi.spyOn(console, 'log').mockImplementation(() => {});
  const sinces: Date[] = [];
  const step =
    (name: keyof ReconcilerSteps) =>
    async (...args: unknown[]): Promise<number> => {
      calls.push(name);
      if (name === 'restartClosedSince') sinces.push(args[3] as Date);
      if (failing.includes(name)) throw new Error(`${name} broke`);
      return 1;
    };
  const steps = {
    restartClosedSince: step('restartClosedSince'),
    reconcileOnce: step('reconcileOnce'),
    sweepUndispatched: step('sweepUndispatched'),
  };
  stop = startReconciler({} as Client, {} as Pool, config, 20, steps as unknown as ReconcilerSteps);
  await vi.waitFor(() => expect(calls.filter((c) => c === 'sweepUndispatched').length).toBeGreaterThanOrEqual(count), {
    timeout: 10_000,
  });
  stop();
  return { calls, errors, sinces };
}

describe('the reconciler pass', () => {
  it('a failing restartClosedSince skips neither reconcileOnce nor sweepUndispatched, and is logged by name', async () => {
    const { calls, errors, sinces } = await passes(['restartClosedSince']);
    expect(calls.slice(0, 6)).toEqual([
      'restartClosedSince',
      'reconcileOnce',
      'sweepUndispatched',
      'restartClosedSince',
      'reconcileOnce',
      'sweepUndispatched',
    ]);
    expect(errors[0]).toMatch(/Reconciler step restartClosedSince failed.*restartClosedSince broke/);
    // A failed look is taken again from the same point.
    expect(sinces[1]).toEqual(sinces[0]);
  });

  it('a failing reconcileOnce skips not sweepUndispatched; a failing sweep not the next pass', async () => {
    const { calls, errors } = await passes(['reconcileOnce', 'sweepUndispatched']);
    expect(calls.slice(0, 6)).toEqual([
      'restartClosedSince',
      'reconcileOnce',
      'sweepUndispatched',
      'restartClosedSince',
      'reconcileOnce',
      'sweepUndispatched',
    ]);
    expect(errors[0]).toMatch(/Reconciler step reconcileOnce failed.*reconcileOnce broke/);
    expect(errors[1]).toMatch(/Reconciler step sweepUndispatched failed.*sweepUndispatched broke/);
  });

  it('when every step works, the look for closed workflows moves on', async () => {
    const { errors, sinces } = await passes([]);
    expect(errors).toEqual([]);
    expect(sinces[1].getTime()).toBeGreaterThan(sinces[0].getTime());
  });
});
