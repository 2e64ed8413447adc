// The worker's workflow cache size (src/platform/workflow-cache.ts): sized from the machine's (or container's) memory
// and the worker's heap limit, WORKER_MAX_CACHED_WORKFLOWS when set.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import {
  MB,
  defaultMaxCachedWorkflows,
  machineMemoryBytes,
  MAX_CACHED_WORKFLOWS,
  MIN_CACHED_WORKFLOWS,
} from '../../src/platform/workflow-cache.js';

const GB = 1024 * MB;

describe('defaultMaxCachedWorkflows', () => {
  it("takes a fifth of the worker's heap limit at 0.5 MB per workflow on a large machine", () => {
    // start:worker's --max-old-space-size=512 (V8 reports about 536 MB with the young generation).
    expect(defaultMaxCachedWorkflows(24 * GB, 536 * MB)).toBe(214);
    // Temporal's own default would be about 2,400 here: V8's limit without the flag is about 4 GB.
    expect(defaultMaxCachedWorkflows(24 * GB, 4288 * MB)).toBe(1715);
  });

  it("takes a sixteenth of a small machine's or container's memory", () => {
    expect(defaultMaxCachedWorkflows(1 * GB, 536 * MB)).toBe(128);
    expect(defaultMaxCachedWorkflows(512 * MB, 536 * MB)).toBe(64);
  });

  it('stays between its floor and its ceiling', () => {
    expect(defaultMaxCachedWorkflows(64 * MB, 536 * MB)).toBe(MIN_CACHED_WORKFLOWS);
    expect(defaultMaxCachedWorkflows(1024 * GB, 64 * GB)).toBe(MAX_CACHED_WORKFLOWS);
  });

  it("reads this machine's memory (a container's limit when lower)", () => {
    const bytes = machineMemoryBytes();
    expect(bytes).toBeGreaterThan(0);
    expect(defaultMaxCachedWorkflows()).toBeGreaterThanOrEqual(MIN_CACHED_WORKFLOWS);
  });
});

describe('WORKER_MAX_CACHED_WORKFLOWS', () => {
  it('is unset by default (sized from the machine) and takes a whole number, 0 included', () => {
    expect(loadConfig({}).workerMaxCachedWorkflows).toBeUndefined();
    expect(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '300' }).workerMaxCachedWorkflows).toBe(300);
    expect(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '0' }).workerMaxCachedWorkflows).toBe(0);
    expect(() => loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '-1' })).toThrow(/WORKER_MAX_CACHED_WORKFLOWS/);
  });
});
