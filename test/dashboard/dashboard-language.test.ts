// The dashboard speaks the merchant's language (#31): headless Chromium walks its pages in pt-AO against the real
// stack (test mode, the manual test courier moved by the test helpers) and asserts that the text a person sees holds
// no raw code (`courier_rejected`, `fleet_webhook`, `delivery.created`) and none of the API's English sentences: the
// sign-in with a wrong password, the deliveries list, a delivery pending, stalled, failed with a reason, with cash on
// delivery, the settings, and a cancel the API refuses. Money reads `1 800,00 Kz` and weight in kg, as on the widget
// and the tracking page (shared/format/units.ts).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ERROR_CATALOG } from '../../src/http/error-catalog.js';
import type { Role } from '../../src/users/roles.js';
import { createUser } from '../../src/users/service.js';
import { createTenant } from '../../src/tenants/service.js';
import { en } from '../../web/dashboard/src/i18n/en.js';
import { pt } from '../../web/dashboard/src/i18n/pt.js';
import { formatAoa } from '../../shared/format/units.js';
import { launchChromium } from '../helpers/dashboard-browser.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith, until } from '../helpers/test-mode.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const PASSWORD = 'palavra-passe muito segura';
const COURIER = 'test-manual';
const OWNER = 'dona@kianda-lingua.ao';

let stack: Stack;
let browser: Browser;
let key: string;
const d: Record<'pending' | 'stalled' | 'failed' | 'cod' | 'refused', { id: string; reference: string }> = {} as any;

/**
 * Words a user must never read in the Portuguese dashboard: every `detail` example of the error catalog, and every
 * English sentence of the dashboard's own that differs from its Portuguese (long enough not to be a shared word).
 */
const ENGLISH = [
  ...Object.values(ERROR_CATALOG).map((e) => e.example),
  'Wrong email or password',
  'cannot be cancelled',
  ...Object.entries(en)
    .filter(([k, text]) => text !== pt[k as keyof typeof pt] && text.length >= 16)
    .map(([, text]) => text.replace(/\{\w+\}.*$/, '').trim())
    .filter((text) => text.length >= 12),
];
/** A code as the API writes it: snake_case (`courier_rejected`) or an event type (`delivery.created`). */
const RAW_CODE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b(?:delivery|cod)\.[a-z_]+\b/g;

const helper = async (id: string, action: string, body: unknown) => {
  const res = await stack.request('POST', `/v1/test_helpers/deliveries/${id}/${action}`, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
};

beforeAll(async () => {
  stack = await startStack();
  const tenant = await createTenant(stack.pool, 'Loja Kianda Língua');
  key = tenant.test_secret_key;
  const created = await createUser(stack.pool, stack.config.dashboard, stack.url, {
    tenantId: tenant.tenant_id,
    email: OWNER,
    role: 'owner' as Role,
  });
  const token = new URL(created.set_password_url).hash.replace(/^#token=/, '');
  expect((await stack.request('POST', '/dashboard/api/password', { body: { token, password: PASSWORD } })).status).toBe(
    204,
  );

  [d.pending, d.stalled, d.failed, d.cod, d.refused] = await Promise.all([
    deliveryWith(stack, key, COURIER),
    deliveryWith(stack, key, COURIER),
    deliveryWith(stack, key, COURIER),
    deliveryWith(stack, key, COURIER, { payment_method: 'cod', cash_collect_aoa: 180_000 }),
    deliveryWith(stack, key, COURIER),
  ]);
  await Promise.all(
    [d.pending, d.stalled, d.failed, d.cod, d.refused].map((x) =>
      until(stack, key, x.id, (v) => v.status === 'assigned'),
    ),
  );
  await helper(d.stalled.id, 'stall', { reason: 'courier_rejected' });
  await helper(d.failed.id, 'advance', { to: 'in_transit' });
  await helper(d.failed.id, 'advance', { to: 'attempt_failed', reason: 'recipient_refused' });
  await helper(d.cod.id, 'advance', { to: 'in_transit' });
  await until(stack, key, d.stalled.id, (v) => v.status === 'stalled');
  await until(stack, key, d.failed.id, (v) => v.status === 'failed');

  browser = await launchChromium(chromiumSetup.path);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/**
 * The text a person sees: every visible text node (not inside a closed <details>, hidden or display:none), the
 * choices of the selects, and the title. Merchant-typed identifiers set in monospace (references, ids, metadata) are
 * the merchant's own and left out.
 */
const visibleText = (page: Page) =>
  page.evaluate(() => {
    const parts: string[] = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest('code, .mono, script, style')) continue;
      if (el.closest('option')) parts.push(node.textContent ?? '');
      else if (el.checkVisibility({ visibilityProperty: true, opacityProperty: false }))
        parts.push(node.textContent ?? '');
    }
    return parts.join('\n');
  });

/** Nothing raw and nothing English on the page as it is now. */
async function speaksPortuguese(page: Page, name: string) {
  const text = await visibleText(page);
  const codes = (text.match(RAW_CODE) ?? []).filter((c) => !/^(sk|pk)_(live|test)$/.test(c));
  expect(codes, `raw codes on ${name}`).toEqual([]);
  for (const sentence of ENGLISH) expect(text, `English on ${name}`).not.toContain(sentence);
  return text;
}

async function open(page: Page, x: { id: string; reference: string }) {
  await page.goto(`${stack.url}/dashboard/deliveries/${x.id}`);
  await page.getByRole('heading', { name: new RegExp(`Entrega ${x.reference}`) }).waitFor();
  await page.locator('.timeline li').first().waitFor();
}

describe('the dashboard in pt-AO shows no raw code and no English sentence', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-AO' });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(() => context?.close());

  it('sign-in with a wrong password: the sentence in Portuguese', async () => {
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel('Palavra-passe').fill('não é esta a palavra-passe');
    await page.getByRole('button', { name: 'Entrar' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toBe('Email ou palavra-passe errados.');
    await speaksPortuguese(page, 'sign-in');

    await page.getByLabel('Palavra-passe').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
    await page.getByRole('switch', { name: 'Modo de teste' }).check();
    await page.locator(`tr[data-delivery="${d.failed.id}"]`).waitFor();
  });

  it('the deliveries list: statuses in words, money as 1 800,00 Kz', async () => {
    const text = await speaksPortuguese(page, 'deliveries');
    for (const status of ['Atribuída', 'Parada', 'Falhou', 'Em trânsito']) expect(text).toContain(status);
    expect(text).toMatch(/\d,\d{2}\u00a0Kz/);
    expect(text).not.toMatch(/\d\.\d{3},\d{2}\u00a0Kz/); // no more 1.800,00 Kz
  });

  it('a pending delivery: weight in kg, every event and its source in words', async () => {
    await open(page, d.pending);
    const text = await speaksPortuguese(page, 'pending delivery');
    expect(text).toMatch(/Peso\s+[\d,]+\u00a0kg/);
    expect(text).toContain('pela loja (API ou painel)'); // who recorded it: never "origem: api"
    expect(text).toContain('automaticamente');
  });

  it('a stalled delivery: why, in plain words', async () => {
    await open(page, d.stalled);
    await page.locator('[data-recovery]').waitFor();
    const text = await speaksPortuguese(page, 'stalled delivery');
    expect(text).toContain('Porquê: a transportadora recusou o pedido');
    expect(text).toContain('por um teste'); // the test helper stalled it: never "origem: test_helper"
  });

  it('a delivery failed with a reason: the attempt and the reason in words', async () => {
    await open(page, d.failed);
    await page.locator('.timeline li[data-event="delivery.attempt_failed"]').waitFor();
    const text = await speaksPortuguese(page, 'failed delivery');
    expect(text).toContain('o destinatário recusou a encomenda');
    expect(text).toContain('tentativa 1');
  });

  it('a cash-on-delivery delivery: the cash line in words and kwanzas', async () => {
    await open(page, d.cod);
    await page.locator('[data-cod]').waitFor();
    const text = await speaksPortuguese(page, 'cod delivery');
    expect(text).toContain(formatAoa(180_000)); // 1 800,00 Kz, as the widget and the tracking page write it
    expect(text).toContain('Por cobrar');
  });

  it('the tracking page writes the cash to pay as the dashboard does (one formatter); none on a prepaid delivery', async () => {
    const html = async (id: string) => (await fetch(`${stack.url}/track/${id}?lang=pt`)).text();
    expect(await html(d.cod.id)).toContain(
      `<dt>A pagar na entrega</dt><dd data-v="cash-due">${formatAoa(180_000)}</dd>`,
    );
    expect(await html(d.pending.id)).not.toContain('A pagar na entrega');
  });

  it('a cancel the API refuses: its sentence in Portuguese, the code only behind "Detalhes técnicos"', async () => {
    await open(page, d.refused);
    // The page stops its live refresh (it refreshes only while visible), so it still offers Cancel when the delivery
    // moves on behind its back; the API then refuses with 409 delivery_not_cancellable.
    await page.evaluate(() => Object.defineProperty(document, 'visibilityState', { value: 'hidden' }));
    await helper(d.refused.id, 'advance', { to: 'in_transit' });
    await page.getByRole('button', { name: 'Cancelar entrega' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    expect(await alert.getAttribute('data-problem')).toBe('delivery_not_cancellable');
    const text = await speaksPortuguese(page, 'refused cancel');
    expect(text).toContain('Esta entrega já não pode ser cancelada');
    await alert.getByText('Detalhes técnicos').click();
    expect(await alert.innerText()).toContain('HTTP 409 · delivery_not_cancellable');
  });

  it('the settings', async () => {
    await page.getByRole('link', { name: 'Definições' }).click();
    await page.getByRole('heading', { name: 'Definições de envio' }).waitFor();
    await page.locator('form input').first().waitFor();
    await speaksPortuguese(page, 'settings');
  });

  it('and in English, the same stalled delivery in English words', async () => {
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.goto(`${stack.url}/dashboard/deliveries/${d.stalled.id}`);
    await page.locator('[data-recovery]').waitFor();
    const text = await visibleText(page);
    expect(text).toContain('the courier refused the booking');
    expect(text).toContain('by a test');
  });
});
