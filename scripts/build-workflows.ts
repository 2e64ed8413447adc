import { buildWorkflowBundle } from '../src/platform/workflow-bundle.js';

const started = Date.now();
console.log('Bundling workflows...');
const file = await buildWorkflowBundle();
console.log(`Workflow bundle written to ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
