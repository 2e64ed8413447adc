// npm run docs:lifecycle: writes the lifecycle table of docs/deliveries.md from the state table.
import { LIFECYCLE_DOC, writeLifecycleDoc } from './lib/lifecycle-table.js';

console.log(writeLifecycleDoc() ? `${LIFECYCLE_DOC}: lifecycle table written.` : `${LIFECYCLE_DOC}: up to date.`);
