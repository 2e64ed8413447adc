// npm run build: the production build. Bundles the API and the worker (the project's TypeScript; packages
// stay in node_modules) into .build/dist, and the workflow bundle into .build/workflow-bundle.js, so the
// processes start with plain `node` (npm run start:api / start:worker), without compiling at run time.
import { build } from 'esbuild';
import path from 'node:path';
import { ROOT_DIR } from '../src/config.js';
import { buildWorkflowBundle } from '../src/workflow-bundle.js';

const started = Date.now();
await build({
  entryPoints: { server: 'src/server.ts', worker: 'src/worker.ts', admin: 'src/cli/admin.ts' },
  absWorkingDir: ROOT_DIR,
  outdir: path.join(ROOT_DIR, '.build', 'dist'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
console.log(`API, worker and admin bundled into .build/dist in ${Date.now() - started} ms.`);
await buildWorkflowBundle();
console.log(`Workflow bundle written to .build/workflow-bundle.js; total ${((Date.now() - started) / 1000).toFixed(1)} s.`);
