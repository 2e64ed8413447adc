// A Temporal worker for the fast workflow tier: the run's real dev server and workflow bundle
// (test/global-setup.ts), on a task queue of its own, with the delivery activities replaced by the
// in-memory fakes of fake-activities.ts. No API, no Postgres, no courier simulator.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { FakeDeliveryActivities } from './fake-activities.js';

export interface FakeWorker {
  client: Client;
  taskQueue: string;
  fakes: FakeDeliveryActivities;
  close(): Promise<void>;
}

/** `bundlePath`: the workflow bundle to run (default: the run's, test/global-setup.ts). */
export async function startFakeWorker(bundlePath: string = inject('bundlePath')): Promise<FakeWorker> {
  // ERROR only: the activity failures the fakes throw on purpose would fill the output as warnings.
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch {
    // installed already by another helper in this process
  }
  const address = inject('temporalAddress');
  const taskQueue = `fast-${randomUUID()}`;
  const fakes = new FakeDeliveryActivities();
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    activities: { ...fakes.activities, ...fakes.codActivities },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  return {
    client,
    taskQueue,
    fakes,
    async close() {
      worker.shutdown();
      await running.catch(() => {});
      await nativeConnection.close();
      await connection.close();
    },
  };
}
