// The floor's worker, a process of its own as the production worker is (its CPU is counted the same way): the floor
// workflow (bench/floor/workflows.ts) and the writePing activity, on FLOOR_TASK_QUEUE. Prints "ready" once polling.
import { NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createSystemActivities } from '../../activities/system/activities.js';
import { createPool } from '../../src/platform/db.js';

const pool = createPool(process.env.DATABASE_URL!);
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.FLOOR_TASK_QUEUE!,
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities: createSystemActivities(pool),
});
process.on('SIGTERM', () => worker.shutdown());
const running = worker.run();
console.log('ready');
await running;
await connection.close();
await pool.end();
