// The replay gate (docs/workflow-versioning.md): every history of the release's baseline (test/fixtures/histories,
// recorded by the fast tests with RECORD_HISTORIES=1: every path of the state table, the flooded run, continue-as-new)
// must replay against today's workflow bundle without nondeterminism. A change that breaks one needs a patch() or a
// new Worker Deployment Version, not a new recording.
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { HISTORIES_DIR } from '../helpers/fast-delivery.js';

const files = fs.existsSync(HISTORIES_DIR)
  ? (fs.readdirSync(HISTORIES_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.history.bin')).sort()
  : [];

describe.skipIf(process.env.RECORD_HISTORIES)('the release baseline replays', () => {
  it(`all ${files.length} recorded histories replay against the current bundle`, async () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
    const histories = files.map((f) => ({
      workflowId: f,
      history: temporal.api.history.v1.History.decode(fs.readFileSync(path.join(HISTORIES_DIR, f))),
    }));
    const failed: string[] = [];
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('bundlePath') } },
      histories,
    )) {
      if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failed).toEqual([]);
  }, 120_000);
});
