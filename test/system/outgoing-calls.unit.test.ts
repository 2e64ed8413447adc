// docs/operations.md's table of outgoing calls (timeouts and retries of every call the service makes) is the one
// generated from the code (src/system/outgoing-calls.ts), so the two cannot drift.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { duration, outgoingCallsTable } from '../../src/system/outgoing-calls.js';

describe('outgoing calls', () => {
  it('docs/operations.md holds the table generated from the code', () => {
    const doc = readFileSync(path.join(ROOT_DIR, 'docs/operations.md'), 'utf8');
    expect(doc).toContain(outgoingCallsTable());
  });

  it('durations are written in the largest whole-ish unit', () => {
    expect([500, 2000, 1500, 300_000, 3_600_000, 86_400_000].map(duration)).toEqual([
      '500 ms',
      '2 s',
      '1.5 s',
      '5 min',
      '1 h',
      '24 h',
    ]);
  });
});
