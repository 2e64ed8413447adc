// How many workflows the worker keeps in its sticky cache (Temporal's `maxCachedWorkflows`), sized from the machine.
// A cached workflow answers its next task without replaying its history; an evicted one is replayed (CPU, not
// correctness). Temporal's own default follows the V8 heap limit alone (600 per GiB: about 2,400 on a machine with
// 16 GiB or more), which lets a worker grow far past its memory budget as deliveries wait for their couriers.
// Measured (heap snapshots, docs/operations.md "Production build and memory"): a cached delivery workflow holds about
// 330 KB of the workflow thread's heap; with the old generation's headroom, 0.5 MB each.
import os from 'node:os';
import v8 from 'node:v8';

export const MB = 1024 * 1024;
/** Memory one cached workflow costs the worker, headroom included. */
export const CACHED_WORKFLOW_BYTES = 0.5 * MB;
export const MIN_CACHED_WORKFLOWS = 10;
export const MAX_CACHED_WORKFLOWS = 2000;

/** The memory this process may use: the container's limit (cgroup) when there is one, else the machine's. */
export function machineMemoryBytes(): number {
  const total = os.totalmem();
  const constrained = process.constrainedMemory();
  return constrained > 0 && constrained < total ? constrained : total;
}

/**
 * The cache size: the smaller of a sixteenth of the machine's (or container's) memory and a fifth of the V8 heap
 * limit (start:worker sets --max-old-space-size=512), at 0.5 MB per workflow, between 10 and 2,000.
 */
export function defaultMaxCachedWorkflows(
  machineBytes = machineMemoryBytes(),
  heapLimitBytes = v8.getHeapStatistics().heap_size_limit,
): number {
  const budget = Math.min(machineBytes / 16, heapLimitBytes / 5);
  return Math.min(MAX_CACHED_WORKFLOWS, Math.max(MIN_CACHED_WORKFLOWS, Math.floor(budget / CACHED_WORKFLOW_BYTES)));
}
