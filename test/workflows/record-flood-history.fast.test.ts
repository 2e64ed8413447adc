// Records test/fixtures/histories/bbac359/flooded.history.bin: a delivery workflow run of commit bbac359's code (the
// version deployed when the automatic-failover fixes came) that takes more than LOCAL_RECORDS_MAX (50) fleet signals in
// one run, so that from the 51st on its events are written by regular activities, with no patch marker. Today's code
// must replay it; the fixture replay test in test/lifecycle.test.ts does. Skipped unless RECORD_FLOOD_HISTORY=1, and it
// needs the git history:
//   RECORD_FLOOD_HISTORY=1 nice -n 19 npx vitest run test/workflows/record-flood-history.fast.test.ts
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { fleetEventSignal } from '../../shared/deliveries/definitions.js';
import { DeliveryStatusKey } from '../../shared/search-attributes.js';
import { FakeDeliveryActivities } from '../helpers/fake-activities.js';
import { fastDeliveryInput } from '../helpers/fast-delivery.js';

const OLD_COMMIT = 'bbac3593be4503a603617771c49b7b4187944070';
const SIGNALS = 60;

describe.skipIf(!process.env.RECORD_FLOOD_HISTORY)('record a flooded history of bbac359', () => {
  it('runs the old workflow code with 60 fleet signals and keeps its history', async () => {
    const dir = path.join(ROOT_DIR, '.build', 'old-workflows');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', OLD_COMMIT, 'workflows'], { cwd: ROOT_DIR });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(dir, 'workflows', 'index.ts'),
      // Commits before b631c27 had no workflow interceptors (workflows/lib/observability.ts came then).
      workflowInterceptorModules: [path.join(dir, 'workflows', 'lib', 'observability.ts')].filter((f) =>
        fs.existsSync(f),
      ),
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
    });
    const address = inject('temporalAddress');
    const taskQueue = `old-${randomUUID()}`;
    const fakes = new FakeDeliveryActivities();
    const native = await NativeConnection.connect({ address });
    const worker = await Worker.create({
      connection: native,
      taskQueue,
      workflowBundle: { code },
      activities: fakes.activities,
    });
    const running = worker.run();
    const connection = await Connection.connect({ address });
    const client = new Client({ connection });
    try {
      const input = fastDeliveryInput({ reference: 'DLV-FLOOD00000' });
      const { deliveryId } = input;
      fakes.script(deliveryId, {});
      const handle = await client.workflow.start('deliveryWorkflow', {
        taskQueue,
        workflowId: `delivery-${deliveryId}`,
        args: [input],
        typedSearchAttributes: [{ key: DeliveryStatusKey, value: 'pending' }],
      });
      await fakes.waitForEvent(deliveryId, 'delivery.assigned', {});
      // One at a time, each recorded before the next: every one is an event of its own (an ignored `assigned`).
      for (let i = 0; i < SIGNALS; i++) {
        await handle.signal(fleetEventSignal, {
          eventType: 'assigned',
          occurredAt: new Date().toISOString(),
          payload: {},
          pinVerified: true,
        });
        await fakes.waitForEvents(deliveryId, (events) => events.length >= 3 + i);
      }
      for (const eventType of ['pickup_ready', 'in_transit', 'delivered'] as const) {
        await handle.signal(fleetEventSignal, {
          eventType,
          occurredAt: new Date().toISOString(),
          payload: {},
          pinVerified: true,
        });
      }
      await expect(handle.result()).resolves.toEqual({ status: 'delivered' });
      const history = await handle.fetchHistory();
      const folder = path.join(ROOT_DIR, 'test', 'fixtures', 'histories', 'bbac359');
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(
        path.join(folder, 'flooded.history.bin'),
        temporal.api.history.v1.History.encode(history).finish(),
      );
    } finally {
      worker.shutdown();
      await running.catch(() => {});
      await native.close();
      await connection.close();
    }
  }, 300_000);
});
