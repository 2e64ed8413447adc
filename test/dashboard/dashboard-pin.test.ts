// The delivery PIN on the dashboard's delivery page (issue 31 item 6), in headless Chromium against the real stack:
// a test delivery with the PIN courier (test-pin) shows the PIN the recipient would say, with how to give it; a live
// delivery whose courier asks for a PIN never shows it to the merchant's team (the API still gives it to the
// merchant's server, which passes it to the recipient).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, type Merchant } from '../helpers/fixtures.js';
import { dashboardSession } from '../helpers/dashboard-session.js';
import { deliveryWith } from '../helpers/test-mode.js';
import { startStack, type Stack } from '../helpers/stack.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let browser: Browser;
beforeAll(async () => {
  [stack, sim] = await Promise.all([startStack(), startSimulator()]);
  m = await merchantWith(stack, sim, [simCompany({ name: 'Kamba PIN', require_delivery_pin: true })]);
  browser = await chromium.launch({
    executablePath: chromiumSetup.path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await sim?.close();
});

describe('the delivery PIN on the delivery page', () => {
  it('is shown in test mode with how to give it, and never in live mode', async () => {
    const test = await deliveryWith(stack, m.tenant.test_secret_key, 'test-pin');
    expect(test.delivery_pin).toMatch(/^\d{4}$/);
    const live = await createDeliveryFor(stack, m);
    expect(live.delivery_pin).toMatch(/^\d{4}$/);

    const owner = await dashboardSession(stack, m.tenant.tenant_id, 'owner');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-AO' });
    const [name, value] = owner.cookie.split('=');
    await context.addCookies([{ name, value, url: stack.url }]);
    await context.addInitScript(() => localStorage.setItem('dashboard-mode', 'test'));
    const page = await context.newPage();
    await page.goto(`${stack.url}/dashboard/deliveries/${test.id}`);
    const pin = page.locator('[data-pin]');
    await pin.waitFor({ timeout: 20_000 });
    expect(await pin.locator('.mono').textContent()).toBe(test.delivery_pin);
    expect(await pin.textContent()).toContain('o que o destinatário diria ao estafeta');
    await context.close();

    const liveContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-AO' });
    await liveContext.addCookies([{ name, value, url: stack.url }]);
    const livePage = await liveContext.newPage();
    await livePage.goto(`${stack.url}/dashboard/deliveries/${live.id}`);
    await livePage
      .getByText('Pedido na entrega: o destinatário tem-no, a sua equipa não o vê.')
      .waitFor({ timeout: 20_000 });
    expect(await livePage.locator('[data-pin]').count()).toBe(0);
    const row = livePage.locator('dt', { hasText: 'PIN de entrega' }).locator('xpath=following-sibling::dd[1]');
    expect(await row.textContent()).not.toMatch(/\d/);
    await liveContext.close();
  }, 120_000);
});
