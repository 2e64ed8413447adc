// npm run build: the production build. Bundles the API, the worker, the admin command and the two database steps
// (migrations, the application role) into .build/dist (the project's TypeScript; packages stay in node_modules, and
// must be production `dependencies`: test/platform/production.test.ts runs these bundles with nothing else installed),
// the workflow bundle into .build/workflow-bundle.js (and its sibling with stack traces, workflow-bundle-traced.js),
// the widget into .build/widget.js and the merchant dashboard into .build/dashboard (Vite; scripts/lib/dashboard.ts),
// and Scalar's script for /docs into .build/scalar.js. The processes then start with plain `node` (npm run start:api /
// start:worker): no compiler, no dev dependency at run time.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../src/platform/config.js';
import { writeWidget } from '../src/pages/widget-asset.js';
import { writeScalarScript } from '../src/http/reference-asset.js';
import { buildDashboard } from './lib/dashboard.js';
import { BUNDLE_PATH, buildWorkflowBundle, bundleVariant } from '../src/platform/workflow-bundle.js';

const started = Date.now();
const outdir = path.join(ROOT_DIR, '.build', 'dist');
const result = await build({
  entryPoints: {
    server: 'src/server.ts',
    worker: 'src/worker.ts',
    admin: 'src/cli/index.ts',
    migrate: 'scripts/migrate.ts',
    'create-role': 'scripts/create-role.ts',
    // Loaded before the worker's bundle (--import): source maps for the project's own code only.
    'source-maps': 'src/platform/source-maps.ts',
  },
  absWorkingDir: ROOT_DIR,
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});
// What each bundle imports from node_modules (checked by test/platform/production.test.ts).
fs.writeFileSync(path.join(outdir, 'metafile.json'), JSON.stringify(result.metafile));
console.log(`API, worker, admin, migrate and create-role bundled into .build/dist in ${Date.now() - started} ms.`);
await writeWidget();
console.log('Widget written to .build/widget.js.');
await writeScalarScript();
console.log(
  "The reference's script written to .build/scalar.js (the API serves it from there: src/http/reference-asset.ts).",
);
await buildDashboard();
// The worker's bundle, and its sibling with stack traces (WORKFLOW_STACK_TRACES: the image has no source to build it).
await Promise.all([buildWorkflowBundle(), buildWorkflowBundle(bundleVariant(BUNDLE_PATH, true))]);
console.log(
  `Workflow bundles written to .build/workflow-bundle.js and workflow-bundle-traced.js; total ${((Date.now() - started) / 1000).toFixed(1)} s.`,
);
