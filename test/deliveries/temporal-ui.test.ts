// The operator's view in the Temporal UI: docs/operations.md's saved query for live stalled deliveries lists the live
// one with its summary (reference, shop, courier) and not the test one, and a workflow's page shows its summary and
// details. The tests' own Temporal is headless: this file starts a dev server with its Web UI and a stack on it.
// Screenshots go to test-results/temporal-ui/ (and docs/images/ with SCREENSHOTS_TO_DOCS=1).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT_DIR } from '../../src/platform/config.js';
import { freePort } from '../../scripts/lib/net.js';
import { startTemporalDevServer, type DevServer } from '../../scripts/lib/temporal-cli.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import { updateTenantPageSettings } from '../../src/tenants/repository.js';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, waitForStatus } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith, until } from '../helpers/test-mode.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const ARTIFACTS = path.join(ROOT_DIR, 'test-results', 'temporal-ui');
const DOCS_IMAGES = path.join(ROOT_DIR, 'docs', 'images');

let temporal: DevServer;
let stack: Stack;
let sim: Simulator;
let browser: Browser;
beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  temporal = await startTemporalDevServer({
    port,
    uiPort: await freePort(),
    logFile: path.join(ROOT_DIR, '.build', 'test-temporal-ui.log'),
  });
  sim = await startSimulator();
  stack = await startStack({ temporalAddress: temporal.address });
  browser = await chromium.launch({
    executablePath: chromiumSetup.path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await sim?.close();
  await temporal?.stop();
});

const shot = async (page: Page, name: string) => {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  if (process.env.SCREENSHOTS_TO_DOCS === '1') {
    fs.mkdirSync(DOCS_IMAGES, { recursive: true });
    fs.copyFileSync(path.join(ARTIFACTS, `${name}.png`), path.join(DOCS_IMAGES, `${name}.png`));
  }
};

describe('Temporal UI: live stalled deliveries', () => {
  it('the saved query lists live stalled deliveries with their summary, not test ones; the workflow page shows summary and details', async () => {
    const rejecting = simCompany({ reject_bookings: true, name: 'Kandengue Express' });
    const accepting = simCompany({ booking_status: 'accepted', name: 'Rápido Express' });
    const m = await merchantWith(stack, sim, [rejecting, accepting]);
    await updateTenantPageSettings(stack.pool, m.tenant.tenant_id, { display_name: 'Loja Kianda' });
    const live = await createDeliveryFor(stack, m, {}, rejecting.slug);
    const moving = await createDeliveryFor(stack, m, {}, accepting.slug);
    await waitForStatus(stack, m.tenant.secret_key, live.id, 'stalled');
    await waitForStatus(stack, m.tenant.secret_key, moving.id, 'assigned');
    const testKey = m.tenant.test_secret_key;
    const test = await deliveryWith(stack, testKey, 'test-manual');
    await until(stack, testKey, test.id, (d) => d.status === 'assigned');
    expect((await stack.request('POST', `/v1/test_helpers/deliveries/${test.id}/stall`, { key: testKey })).status).toBe(
      200,
    );

    const query = 'DeliveryStatus = "stalled" AND DeliveryLivemode = true';
    // Visibility lags behind the workflow: wait until Temporal itself lists the live delivery before asking the UI
    // (on a loaded CI machine that lag alone has outlasted the UI's reload loop).
    const listedIds = async () => {
      const ids: string[] = [];
      for await (const wf of stack.temporal.workflow.list({ query })) ids.push(wf.workflowId);
      return ids;
    };
    await expect.poll(listedIds, { timeout: 60_000, interval: 500 }).toContain(deliveryWorkflowId(live.id));
    const page = await browser.newPage({ viewport: { width: 1920, height: 760 } });
    await page.goto(`${temporal.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
    // The UI's list may still come from before: reload until the live delivery is listed.
    const liveRow = page.getByRole('link', { name: deliveryWorkflowId(live.id) });
    await expect
      .poll(
        async () => {
          if (await liveRow.count()) return true;
          await page.reload();
          await page.waitForTimeout(1000);
          return (await liveRow.count()) > 0;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    expect(await page.getByRole('link', { name: deliveryWorkflowId(test.id) }).count()).toBe(0);
    expect(await page.getByRole('link', { name: deliveryWorkflowId(moving.id) }).count()).toBe(0);

    // The columns docs/operations.md suggests, through the table's "Configure Columns" drawer.
    await page.getByTestId('workflows-summary-table-configuration-button').click();
    for (const column of ['Run ID', 'Type', 'End'])
      await page.getByTestId(`orderable-list-item-${column}-remove-button`).click();
    for (const column of ['DeliveryReference', 'TenantId', 'CourierSlug', 'DeliveryLivemode'])
      await page.getByTestId(`orderable-list-item-${column}-add-button`).click();
    await page.getByTestId('drawer-close-button').click();
    await page.getByTestId('drawer-close-button').waitFor({ state: 'hidden' });
    await page.waitForTimeout(500);
    await expect.poll(() => page.getByRole('cell', { name: live.reference }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('cell', { name: rejecting.slug }).count()).toBeGreaterThan(0);
    await shot(page, 'temporal-ui-stalled-live');

    // The workflow's page: summary and details under User Metadata (the UI renders markdown in a sandboxed frame).
    await liveRow.click();
    await page.getByText('User Metadata', { exact: true }).first().click();
    const shown = async () => {
      const texts = await Promise.all(page.frames().map((f) => f.content().catch(() => '')));
      return texts.join('\n');
    };
    await expect.poll(shown, { timeout: 15_000 }).toContain(`${live.reference} · Loja Kianda · Kandengue Express`);
    await expect.poll(shown, { timeout: 15_000 }).toContain('Luanda → Luanda');
    await page.waitForTimeout(1000);
    fs.writeFileSync(path.join(ARTIFACTS, 'wf.html'), await shown());
    await shot(page, 'temporal-ui-delivery');
    await page.close();
  }, 240_000);
});
