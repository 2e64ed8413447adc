// What an operator sees of a delivery in Temporal: each workflow starts with a static summary and details and the
// DeliveryLivemode search attribute, and the saved query of docs/operations.md finds the live stalled ones only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { deliveryWorkflowId, fleetEventSignal, type FleetEvent } from '../../shared/deliveries/definitions.js';
import { DeliveryLivemodeKey, DeliveryStatusKey } from '../../shared/search-attributes.js';
import { updateTenantPageSettings } from '../../src/tenants/repository.js';
import type { Simulator } from '../../simulator/server.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith, until } from '../helpers/test-mode.js';

let stack: Stack;
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
  // A run continues as new after 150 history events, so that a few dozen ignored fleet events show what travels.
  stack = await startStack({ workflowHistoryLimit: 150 });
});
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const describeWorkflow = (deliveryId: string) =>
  stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).describe();

/** The workflow ids a visibility query lists (the dev server's visibility lags a moment behind). */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of stack.temporal.workflow.list({ query })) ids.push((wf as WorkflowExecutionInfo).workflowId);
  return ids.sort();
}

/** A live delivery its courier refuses (stalled, courier_rejected) and a test one stalled by the test helper. */
async function stalledPair(): Promise<{ m: Merchant; live: any; test: any; courierName: string }> {
  const rejecting = simCompany({ reject_bookings: true, name: 'Rápido Express' });
  const m = await merchantWith(stack, sim, [rejecting]);
  await updateTenantPageSettings(stack.pool, m.tenant.tenant_id, { display_name: 'Loja Kianda' });
  const live = await createDeliveryFor(stack, m, { payment_method: 'cod', cash_collect_aoa: 2_500_000 });
  await waitForStatus(stack, m.tenant.secret_key, live.id, 'stalled');
  const testKey = m.tenant.test_secret_key;
  const test = await deliveryWith(stack, testKey, 'test-manual');
  await until(stack, testKey, test.id, (d) => d.status === 'assigned');
  const stalled = await stack.request('POST', `/v1/test_helpers/deliveries/${test.id}/stall`, { key: testKey });
  expect(stalled.status, JSON.stringify(stalled.body)).toBe(200);
  return { m, live, test, courierName: 'Rápido Express' };
}

describe('delivery workflows: static summary and details, DeliveryLivemode', () => {
  it('a live and a test delivery: summary, markdown details and the mode, through describe; the saved query lists the live one', async () => {
    const { m, live, test } = await stalledPair();

    const liveWf = await describeWorkflow(live.id);
    expect(await liveWf.staticSummary()).toBe(`${live.reference} · Loja Kianda · Rápido Express`);
    const details = await liveWf.staticDetails();
    expect(details).toContain(`**Shop** Loja Kianda · tenant \`${m.tenant.tenant_id}\``);
    expect(details).toContain('**Mode** live');
    expect(details).toContain('**Route** Luanda → Luanda');
    expect(details).toContain(`**Fee** `);
    expect(details).toContain('cash on delivery, **25 000,00 Kz** to collect');
    expect(details).toContain(`**Delivery** \`${live.id}\``);
    expect(details).not.toMatch(/Rua|Avenida|Ana Silva|\+244/); // no personal data in Temporal
    expect(liveWf.typedSearchAttributes.get(DeliveryLivemodeKey)).toBe(true);

    const testWf = await describeWorkflow(test.id);
    expect(await testWf.staticSummary()).toMatch(new RegExp(`^\\[TEST\\] ${test.reference} · Loja Kianda · `));
    expect(await testWf.staticDetails()).toContain('**Mode** test');
    expect(testWf.typedSearchAttributes.get(DeliveryLivemodeKey)).toBe(false);
    await expect
      .poll(async () => (await describeWorkflow(test.id)).typedSearchAttributes.get(DeliveryStatusKey))
      .toBe('stalled');

    // docs/operations.md's saved query, narrowed to this tenant: the live one only; and the test one with false.
    const tenant = `TenantId = "${m.tenant.tenant_id}"`;
    await expect
      .poll(() => listed(`DeliveryStatus = "stalled" AND DeliveryLivemode = true AND ${tenant}`), {
        timeout: 15_000,
        interval: 300,
      })
      .toEqual([deliveryWorkflowId(live.id)]);
    await expect
      .poll(() => listed(`DeliveryStatus = "stalled" AND DeliveryLivemode = false AND ${tenant}`), {
        timeout: 15_000,
        interval: 300,
      })
      .toEqual([deliveryWorkflowId(test.id)]);
  });

  it('after a continue-as-new the next run keeps DeliveryLivemode (search attributes travel; the summary does not)', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ booking_status: 'accepted' })]);
    const d = await createDeliveryFor(stack, m);
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));
    const first = await handle.describe();
    // `delivered` without a PIN check from assigned is ignored (recorded as such): enough of them pass the limit.
    const ignored = (i: number): FleetEvent => ({
      eventType: 'delivered',
      occurredAt: new Date().toISOString(),
      payload: { note: `flood ${i}` },
      pinVerified: false,
      webhookId: `summary-flood-${i}`,
    });
    for (let start = 0; start < 300; start += 10)
      await Promise.all(Array.from({ length: 10 }, (_, j) => handle.signal(fleetEventSignal, ignored(start + j))));
    await expect
      .poll(async () => (await handle.describe()).runId, { timeout: 120_000, interval: 500 })
      .not.toBe(first.runId);
    const next = await handle.describe();
    expect(next.typedSearchAttributes.get(DeliveryLivemodeKey)).toBe(true);
    expect(await first.staticSummary()).toMatch(new RegExp(`^${d.reference} · `));
    // Temporal carries no static summary across a continue-as-new (the SDK's continueAsNew takes none): the later run
    // of a flooded delivery (10,000 history events) shows its search attributes only, as docs/operations.md says.
    expect(await next.staticSummary()).toBeUndefined();
  }, 180_000);
});
