// The dashboard's cash-on-delivery page ("Dinheiro (COD)") and a delivery's cash line, in headless Chromium against
// the real stack (API, worker, Postgres). The cash is made the way an integration makes it in test mode: test
// deliveries with payment_method cod, the advance helper to delivered (one collects less than expected), and the
// courier's report through POST /v1/test_helpers/cod/remit. An owner confirms one remittance, disputes another with a
// reason, sees the API's 409 on one settled meanwhile, downloads the CSV statement (the same bytes the API answers);
// a viewer sees no action; pt-AO and English; axe at desktop width and at 375 px. `SCREENSHOTS_TO_DOCS=1` also
// writes the screenshots docs/dashboard.md shows into docs/images/.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import axe from 'axe-core';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { ROOT_DIR } from '../../src/platform/config.js';
import type { Role } from '../../src/users/roles.js';
import { createTenant } from '../../src/tenants/service.js';
import { ensureDashboard } from '../../scripts/lib/dashboard.js';
import { launchChromium, dashboardUser } from '../helpers/dashboard-browser.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith, quoteFrom } from '../helpers/test-mode.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const ARTIFACTS = path.join(ROOT_DIR, 'test-results', 'dashboard');
const DOCS_IMAGES = path.join(ROOT_DIR, 'docs', 'images');
const PASSWORD = 'palavra-passe muito segura';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };
const COURIER = 'test-manual';

let stack: Stack;
let browser: Browser;
let key: string;
let companyId: string;
let tenantId: string;
const d: Record<'a' | 'b' | 'short' | 'e' | 'f' | 'h' | 'waiting', { id: string; reference: string }> = {} as any;
const r: Record<'first' | 'second' | 'third', { id: string; remittance_ref: string }> = {} as any;

const api = async (method: string, url: string, body?: unknown) => {
  const res = await stack.request(method, url, { key, body });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A test cod delivery, advanced to delivered with `collected` (the expected cash when absent) unless `deliver` is false. */
async function codDelivery(cash: number, collected?: number, deliver = true) {
  const created = await deliveryWith(stack, key, COURIER, { payment_method: 'cod', cash_collect_aoa: cash });
  if (!deliver) return created;
  await api('POST', `/v1/test_helpers/deliveries/${created.id}/advance`, { to: 'in_transit' });
  const cashSent = collected === undefined ? {} : { cash_collected_aoa: collected };
  await api('POST', `/v1/test_helpers/deliveries/${created.id}/advance`, { to: 'delivered', ...cashSent });
  return created;
}

const remit = () => api('POST', '/v1/test_helpers/cod/remit', { company_id: companyId });

const userWith = (role: Role, email: string) => dashboardUser(stack, tenantId, role, email, PASSWORD);

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await ensureDashboard(() => {});
  stack = await startStack();
  const tenant = await createTenant(stack.pool, 'Loja Kianda Dinheiro');
  tenantId = tenant.tenant_id;
  key = tenant.test_secret_key;
  companyId = (await quoteFrom(stack, key, COURIER)).company_id;
  await userWith('owner', 'dona@kianda-cod.ao');
  await userWith('viewer', 'leitor@kianda-cod.ao');

  // Three collected (one short by 1.000 Kz), remitted together; one more, remitted alone; a third remittance the
  // test settles through the API behind the page's back; one collected and overdue; one still on its way.
  [d.a, d.b, d.short] = await Promise.all([
    codDelivery(150_000),
    codDelivery(200_000),
    codDelivery(1_000_000, 900_000),
  ]);
  r.first = await remit();
  d.e = await codDelivery(500_000);
  r.second = await remit();
  d.h = await codDelivery(300_000);
  r.third = await remit();
  d.f = await codDelivery(700_000);
  // Its remittance terms (48 h) ran out: the collection was due an hour ago.
  await stack.pool.query(`UPDATE cod_collections SET due_at = now() - interval '1 hour' WHERE delivery_id = $1`, [
    d.f.id,
  ]);
  d.waiting = await codDelivery(250_000, undefined, false);

  browser = await launchChromium(chromiumSetup.path);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A page signed in as `email`, in test mode, on the COD page. */
async function codPage(email: string): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'pt-AO', acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${stack.url}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Palavra-passe').fill(PASSWORD);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
  await page.getByRole('switch', { name: 'Modo de teste' }).check();
  await page.getByRole('link', { name: 'Dinheiro (COD)' }).click();
  await page.getByRole('heading', { name: 'Dinheiro (COD)', level: 1 }).waitFor();
  await page.locator('[data-company]').first().waitFor();
  return page;
}

async function checkA11y(page: Page, name: string) {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
}

/** axe and a screenshot at desktop width and at 375 px, where nothing may be wider than the screen. */
async function bothWidths(page: Page, name: string) {
  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['375', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await checkA11y(page, `${name} at ${width}`);
    if (width === '375') {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} at 375 px is ${overflow} px too wide`).toBeLessThanOrEqual(0);
    }
    const file = path.join(ARTIFACTS, `dashboard-${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
    if (process.env.SCREENSHOTS_TO_DOCS === '1') fs.copyFileSync(file, path.join(DOCS_IMAGES, path.basename(file)));
  }
  await page.setViewportSize(DESKTOP);
}

const remittanceRow = (page: Page, id: string) => page.locator(`tr[data-remittance="${id}"]`);

describe('Dinheiro (COD)', () => {
  it('shows what the courier owes and what is overdue (the API’s balances, in Kz), and the remittances to confirm', async () => {
    const page = await codPage('dona@kianda-cod.ao');
    const balances = (await api('GET', '/v1/cod/balances')).data;
    expect(balances).toHaveLength(1);
    const b = balances[0];
    // Collected 1.500 + 2.000 + 9.000 (short) + 5.000 + 3.000 + 7.000 Kz; 7.000 Kz outstanding, all of it overdue.
    expect(b).toMatchObject({ collected_aoa: 2_750_000, outstanding_aoa: 700_000, overdue_aoa: 700_000 });
    const row = page.locator(`tr[data-company="${companyId}"]`);
    const text = await row.innerText();
    expect(text).toContain(b.company_name);
    expect(text).toContain('27\u00a0500,00\u00a0Kz');
    expect(text).toContain('20\u00a0500,00\u00a0Kz');
    expect(await row.locator('[data-overdue] .badge.bad').innerText()).toBe('7\u00a0000,00\u00a0Kz');
    expect(await row.locator('[data-outstanding]').innerText()).toBe('7\u00a0000,00\u00a0Kz');

    for (const x of Object.values(r)) await remittanceRow(page, x.id).waitFor();
    const first = await remittanceRow(page, r.first.id).innerText();
    expect(first).toContain(r.first.remittance_ref);
    expect(first).toContain('Transferência bancária');
    expect(first).toContain('12\u00a0500,00\u00a0Kz');
    await bothWidths(page, 'cod');
    await page.context().close();
  });

  it('confirms one remittance, disputes another with a reason, and shows the 409 of one settled meanwhile', async () => {
    const page = await codPage('dona@kianda-cod.ao');
    // Confirm: asked first, then the row leaves the list and the API says confirmed.
    await remittanceRow(page, r.first.id).getByRole('button', { name: 'Confirmar' }).click();
    const ask = page.getByRole('dialog', { name: 'Confirmar' });
    expect(await ask.innerText()).toContain(`Confirmar que recebeu 12\u00a0500,00\u00a0Kz`);
    await ask.getByRole('button', { name: 'Confirmar' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Remessa ${r.first.remittance_ref} confirmada.` })
      .waitFor();
    await remittanceRow(page, r.first.id).waitFor({ state: 'detached' });
    expect((await api('GET', `/v1/cod/remittances/${r.first.id}`)).status).toBe('confirmed');

    // Dispute: the reason is required (the dialog stays open without one), then sent as typed.
    await remittanceRow(page, r.second.id)
      .getByRole('button', { name: /^Contestar a remessa/ })
      .click();
    const dialog = page.getByRole('dialog', { name: /^Contestar a remessa/ });
    await dialog.getByRole('button', { name: 'Contestar remessa' }).click();
    expect(await dialog.isVisible()).toBe(true);
    await checkA11y(page, 'the dispute dialog');
    await dialog.getByLabel('Motivo').fill('Só chegaram 4.000 Kz à conta.');
    await dialog.getByRole('button', { name: 'Contestar remessa' }).click();
    await page.getByRole('status').filter({ hasText: 'contestada' }).waitFor();
    const disputed = await api('GET', `/v1/cod/remittances/${r.second.id}`);
    expect(disputed).toMatchObject({ status: 'disputed', dispute_reason: 'Só chegaram 4.000 Kz à conta.' });
    // Its 5.000 Kz is outstanding again: 12.000 Kz in the balances row, refreshed.
    await page
      .locator(`tr[data-company="${companyId}"] [data-outstanding]`)
      .filter({ hasText: '12\u00a0000,00\u00a0Kz' })
      .waitFor();

    // Settled through the API while the page shows it: the page's confirm gets the API's real 409.
    await api('POST', `/v1/cod/remittances/${r.third.id}/confirm`);
    await remittanceRow(page, r.third.id).getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('dialog', { name: 'Confirmar' }).getByRole('button', { name: 'Confirmar' }).click();
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    // In words; the status and the code only behind "Detalhes técnicos".
    expect(await alert.getAttribute('data-problem')).toBe('remittance_not_reported');
    expect(await alert.innerText()).toContain('Esta remessa já foi confirmada ou contestada.');
    expect(await alert.innerText()).not.toContain('remittance_not_reported');
    await page.context().close();
  });

  it('downloads the CSV statement the API answers to Accept: text/csv', async () => {
    const page = await codPage('dona@kianda-cod.ao');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descarregar CSV' }).click(),
    ]);
    const file = await download.path();
    const csv = fs.readFileSync(file!, 'utf8');
    const res = await stack.request('GET', '/v1/cod/remittances', { key, headers: { accept: 'text/csv' } });
    expect(res.status).toBe(200);
    expect(csv).toBe(res.body);
    expect(csv.split('\r\n')[0]).toMatch(/^remittance_id,remittance_ref,/);
    for (const x of [d.a, d.b, d.short, d.e, d.h]) expect(csv).toContain(x.reference);
    expect(csv).not.toContain(d.f.reference);
    await page.getByRole('status').filter({ hasText: 'Extrato descarregado.' }).waitFor();
    await page.context().close();
  });

  it('a delivery’s page shows its cash line: expected, collected, remitted, fee, status', async () => {
    const page = await codPage('dona@kianda-cod.ao');
    const cashOf = async (id: string) => {
      await page.goto(`${stack.url}/dashboard/deliveries/${id}`);
      const card = page.locator('section[data-cod]');
      await card.waitFor();
      return card;
    };
    let card = await cashOf(d.short.id);
    let text = await card.innerText();
    expect(text).toContain('Dinheiro à cobrança');
    expect(text).toMatch(/A cobrar\s+10\u00a0000,00\u00a0Kz/);
    expect(text).toMatch(/Cobrado\s+9\u00a0000,00\u00a0Kz/);
    expect(text).toMatch(/Remetido\s+9\u00a0000,00\u00a0Kz/);
    expect(text).toMatch(/Taxa retida\s+0,00\u00a0Kz/);
    expect(await card.locator('[data-cod-status]').getAttribute('data-cod-status')).toBe('confirmed');
    expect(text).toContain(r.first.id);
    expect(await page.locator('.timeline').innerText()).toContain('Dinheiro cobrado difere do esperado');
    await bothWidths(page, 'delivery-cash');

    card = await cashOf(d.e.id);
    expect(await card.locator('[data-cod-status]').innerText()).toBe('Cobrado, por remeter');
    card = await cashOf(d.waiting.id);
    text = await card.innerText();
    expect(text).toContain('Por cobrar');
    expect(text).toMatch(/Cobrado\s+—/);
    await page.context().close();
  });

  it('in English, and for a viewer without confirm or dispute', async () => {
    await codDelivery(400_000);
    const waiting = await remit();
    const page = await codPage('leitor@kianda-cod.ao');
    // Everything outstanding: the new 4.000 Kz, the overdue 7.000 and the disputed 5.000 Kz.
    expect(await remittanceRow(page, waiting.id).innerText()).toMatch(/\t3\t16\u00a0000,00\u00a0Kz/);
    expect(await page.getByRole('button', { name: 'Confirmar' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Contestar/ }).count()).toBe(0);
    await page.getByText('O seu papel (leitor) não permite esta ação.').waitFor();
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('heading', { name: 'Cash on delivery', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Cash (COD)' }).count()).toBe(1);
    await page.getByRole('heading', { name: 'Per courier' }).waitFor();
    await page.getByRole('button', { name: 'Download CSV' }).waitFor();
    await bothWidths(page, 'cod-en');
    await page.context().close();
  });
});
