// The workflow bundle is built once (npm run build:workflows, the dev command, the test setup) and
// reused by every worker start. A worker finding it missing or older than workflows/ rebuilds it.
import { bundleWorkflowCode } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from './config.js';

export const WORKFLOWS_ENTRY = path.join(ROOT_DIR, 'workflows', 'index.ts');
/** Interceptors of every workflow: log attributes and OpenTelemetry tracing (workflows/lib/observability.ts). */
const WORKFLOW_INTERCEPTORS = path.join(ROOT_DIR, 'workflows', 'lib', 'observability.ts');
/** Preloaded into the sandbox by the lean bundle: workflow code captures no stack frames (the module says why). */
const NO_STACK_TRACES = path.join(ROOT_DIR, 'workflows', 'lib', 'stack-traces.ts');
export const BUNDLE_PATH = path.join(ROOT_DIR, '.build', 'workflow-bundle.js');
/** How the name of the bundle with stack traces ends (bundleVariant). */
const TRACED = '-traced.js';

/**
 * The bundle a worker runs: the lean one (no stack frames in workflow code), or with `stackTraces` (the worker's
 * WORKFLOW_STACK_TRACES) its sibling built with them, `<name>-traced.js` beside it.
 */
export function bundleVariant(bundlePath: string, stackTraces: boolean): string {
  return stackTraces ? bundlePath.replace(/(\.js)?$/, TRACED) : bundlePath;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export function bundleIsFresh(bundlePath = BUNDLE_PATH): boolean {
  if (!fs.existsSync(bundlePath)) return false;
  const bundled = fs.statSync(bundlePath).mtimeMs;
  return (
    bundled >= newestMtime(path.join(ROOT_DIR, 'workflows')) &&
    bundled >= newestMtime(path.join(ROOT_DIR, 'shared')) && // the state table and the definitions are bundled too
    bundled >= newestMtime(path.join(ROOT_DIR, 'activities'))
  );
}

/** Builds the bundle at `bundlePath`: lean, or with stack traces when its name says so (bundleVariant). */
export async function buildWorkflowBundle(bundlePath = BUNDLE_PATH): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_ENTRY,
    workflowInterceptorModules: [WORKFLOW_INTERCEPTORS],
    preloadModules: bundlePath.endsWith(TRACED) ? [] : [NO_STACK_TRACES],
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
  });
  fs.mkdirSync(path.dirname(bundlePath), { recursive: true });
  const tmp = `${bundlePath}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, bundlePath);
  return bundlePath;
}

/** The bundle's path, building it first when missing or stale. */
export async function ensureWorkflowBundle(bundlePath = BUNDLE_PATH): Promise<string> {
  if (bundleIsFresh(bundlePath)) return bundlePath;
  return buildWorkflowBundle(bundlePath);
}
