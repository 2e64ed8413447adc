// The workflow bundles' names (src/platform/workflow-bundle.ts): the worker's, and its sibling with stack traces that
// WORKFLOW_STACK_TRACES picks (docs/operations.md "Workflow stack traces"). Building and running both:
// test/workflows/stack-traces.fast.test.ts.
import { describe, expect, it } from 'vitest';
import { bundleVariant } from '../../src/platform/workflow-bundle.js';

describe('bundleVariant', () => {
  it("names the bundle with stack traces beside the worker's, and leaves the worker's as it is", () => {
    expect(bundleVariant('/app/.build/workflow-bundle.js', true)).toBe('/app/.build/workflow-bundle-traced.js');
    expect(bundleVariant('/app/.build/workflow-bundle.js', false)).toBe('/app/.build/workflow-bundle.js');
    expect(bundleVariant('/tmp/bundle', true)).toBe('/tmp/bundle-traced.js');
  });
});
