// The dashboard's SMS to recipients (#30) in headless Chromium against the real stack: the "Notificações SMS" section of
// the settings page (the defaults of each mode, a change saved through PUT /v1/settings/notifications, a sender id the
// API refuses shown as its error), and a delivery's message log (statuses and reasons in words, never the raw codes;
// the phone masked; the length in SMS); a viewer reads the settings and cannot change them. axe-core at desktop width
// and at 375 px. The log's rows are written here as the outbox writes them (docs/recipients.md "The outbox").
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Role } from '../../src/users/roles.js';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { bothWidths, dashboardUser, launchChromium, signInDashboard } from '../helpers/dashboard-browser.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith } from '../helpers/test-mode.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const PASSWORD = 'palavra-passe muito segura';

let stack: Stack;
let tenant: CreatedTenant;
let browser: Browser;
const users = { owner: 'dona@loja-sms.ao', viewer: 'leitor@loja-sms.ao' };

const userWith = (role: Role, email: string) => dashboardUser(stack, tenant.tenant_id, role, email, PASSWORD);

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.tenant();
  await userWith('owner', users.owner);
  await userWith('viewer', users.viewer);
  browser = await launchChromium(chromiumSetup.path);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const signedIn = (email: string) => signInDashboard(browser, stack.url, email, PASSWORD);

const settingsOf = async (key: string) => (await stack.request('GET', '/v1/settings/notifications', { key })).body;

/** A message of the log, as the outbox stores it, for a test delivery of the tenant. */
async function insertMessage(deliveryId: string, fields: Record<string, unknown>) {
  const row = {
    id: randomUUID(),
    tenant_id: tenant.tenant_id,
    livemode: false,
    delivery_id: deliveryId,
    event_id: randomUUID(),
    kind: 'created',
    recipient: '244912345678',
    language: 'pt-AO',
    sender_id: 'Entregas',
    body: 'Loja: a sua encomenda vem a caminho.',
    encoding: 'gsm7',
    segments: 1,
    status: 'queued',
    ...fields,
  };
  const columns = Object.keys(row);
  await stack.pool.query(
    `INSERT INTO notifications (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    Object.values(row),
  );
}

describe('SMS notifications on the dashboard (#30)', () => {
  let owner: { context: BrowserContext; page: Page };
  beforeAll(async () => {
    owner = await signedIn(users.owner);
  }, 120_000);
  afterAll(async () => owner?.context.close());

  it('settings: off by default in live mode; turned on, in English, with a sender id; a bad sender id refused', async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'Definições' }).click();
    const section = page.getByRole('region', { name: 'Notificações SMS' });
    await section.waitFor();
    const enabled = section.getByLabel('Enviar SMS aos destinatários');
    expect(await enabled.isChecked()).toBe(false);
    expect(await section.getByLabel('Língua das mensagens').inputValue()).toBe('pt-AO');
    const sender = section.getByLabel('Remetente (nome que o destinatário vê)');
    expect(await sender.inputValue()).toBe('');
    const serviceSender = (await settingsOf(tenant.secret_key)).effective_sender_id;
    expect(await sender.getAttribute('placeholder')).toBe(serviceSender);
    await bothWidths(page, 'settings with SMS');

    await sender.fill('Loja-Kianda!');
    await section.getByRole('button', { name: 'Guardar as notificações' }).click();
    // The refusal in words, at the field's label (never the pointer or the API's English detail).
    const alert = section.getByRole('alert');
    expect(await alert.locator('li[data-pointer="/sender_id"]').innerText()).toContain('Remetente');
    expect(await alert.innerText()).not.toContain('sender_id');
    expect(await settingsOf(tenant.secret_key)).toMatchObject({ sms_enabled: false, sender_id: null });

    await enabled.check();
    await section.getByLabel('Língua das mensagens').selectOption({ label: 'Inglês' });
    await sender.fill('LojaKianda');
    await section.getByRole('button', { name: 'Guardar as notificações' }).click();
    await section.getByText('Guardado.').waitFor();
    expect(await settingsOf(tenant.secret_key)).toMatchObject({
      livemode: true,
      sms_enabled: true,
      language: 'en',
      sender_id: 'LojaKianda',
    });
    // Test mode keeps its own: on by default, the service's sender.
    expect(await settingsOf(tenant.test_secret_key)).toMatchObject({ sms_enabled: true, sender_id: null });
    await page.reload();
    await expect
      .poll(() => section.getByLabel('Remetente (nome que o destinatário vê)').inputValue())
      .toBe('LojaKianda');
    expect(await section.getByLabel('Enviar SMS aos destinatários').isChecked()).toBe(true);

    // Emptying the sender goes back to the service's.
    await section.getByLabel('Remetente (nome que o destinatário vê)').fill('');
    await section.getByRole('button', { name: 'Guardar as notificações' }).click();
    await section.getByText('Guardado.').waitFor();
    expect(await settingsOf(tenant.secret_key)).toMatchObject({ sender_id: null, language: 'en', sms_enabled: true });

    // In test mode the section shows the test settings: on.
    await page.getByRole('switch', { name: 'Modo de teste' }).check();
    await page.getByRole('note').filter({ hasText: 'Modo de teste' }).waitFor();
    await expect.poll(() => section.getByLabel('Enviar SMS aos destinatários').isChecked()).toBe(true);
    expect(await section.innerText()).toContain('simulador');
    expect(await section.getByLabel('Língua das mensagens').inputValue()).toBe('pt-AO');
  }, 120_000);

  it("the delivery page's message log: in words, the phone masked, the length in SMS", async () => {
    const { page } = owner; // in test mode since the test above
    const d = await deliveryWith(stack, tenant.test_secret_key, 'test-manual');
    await insertMessage(d.id, {
      kind: 'out_for_delivery',
      body: 'LojaKianda: a sua encomenda saiu para entrega. PIN de entrega: 4821.',
      status: 'delivered',
      attempts: 1,
      created_at: new Date(Date.now() - 60_000),
      submitted_at: new Date(Date.now() - 59_000),
      delivered_at: new Date(Date.now() - 58_000),
    });
    await insertMessage(d.id, {
      kind: 'attempt_failed',
      body: 'LojaKianda: não o encontrámos. Escolha outra hora: https://exemplo.ao/track/1?r=x — até já',
      encoding: 'ucs2',
      segments: 2,
      status: 'failed',
      reason: 'undeliverable:001',
      created_at: new Date(Date.now() - 30_000),
    });
    // A retried refusal that ran out of tries, and a reason the dashboard does not know: words all the same.
    await insertMessage(d.id, {
      kind: 'out_for_delivery',
      status: 'failed',
      reason: 'ESME_RTHROTTLED (after 8 tries)',
      attempts: 8,
      created_at: new Date(Date.now() - 50_000),
    });
    await insertMessage(d.id, {
      kind: 'out_for_delivery',
      status: 'failed',
      reason: 'something_new',
      created_at: new Date(Date.now() - 40_000),
    });
    // A queued message keeps its last try's error: not shown as a reason while it may still go.
    await insertMessage(d.id, {
      kind: 'out_for_delivery',
      status: 'queued',
      reason: 'ESME_RSYSERR',
      attempts: 1,
      created_at: new Date(Date.now() - 20_000),
    });
    await insertMessage(d.id, {
      kind: 'delivered',
      status: 'not_sent',
      reason: 'opted_out',
      created_at: new Date(Date.now() - 10_000),
    });

    await page.goto(`${stack.url}/dashboard/deliveries/${d.id}`);
    const log = page.getByRole('region', { name: 'Mensagens ao destinatário' });
    await log.locator('li[data-kind="delivered"]').waitFor();
    const kinds = await log.locator('li[data-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    expect(kinds.filter((k) => k !== 'created')).toEqual([
      'out_for_delivery',
      'out_for_delivery',
      'out_for_delivery',
      'attempt_failed',
      'out_for_delivery',
      'delivered',
    ]);

    const sent = await log.locator('li[data-kind="out_for_delivery"][data-status="delivered"]').innerText();
    expect(sent).toContain('Saiu para entrega');
    expect(sent).toContain('Chegou ao telemóvel');
    expect(sent).toContain('Para +244 *** *** 678');
    expect(sent).toContain('1 SMS (texto simples)');
    expect(sent).toContain('PIN de entrega: 4821');
    const failed = await log.locator('li[data-kind="attempt_failed"]').innerText();
    expect(failed).toContain('Não chegou');
    expect(failed).toContain('2 SMS (com caracteres especiais)');
    expect(failed).toContain('Porquê: a operadora não a conseguiu entregar');
    const gaveUp = log.locator('li[data-status="failed"]', { hasText: 'depois de várias tentativas' });
    expect(await gaveUp.count()).toBe(1);
    const unknown = log.locator('li[data-status="failed"]', {
      hasText: 'Porquê: um motivo que o serviço não descreveu',
    });
    expect(await unknown.count()).toBe(1);
    const queued = await log.locator('li[data-status="queued"][data-kind="out_for_delivery"]').innerText();
    expect(queued).toContain('Na fila para envio');
    expect(queued).not.toContain('Porquê');
    const optedOut = await log.locator('li[data-kind="delivered"]').innerText();
    expect(optedOut).toContain('Não enviada');
    expect(optedOut).toContain('o destinatário respondeu PARAR');

    const text = await log.innerText();
    for (const raw of ['opted_out', 'not_sent', 'ESME_', 'undeliverable', 'something_new', 'gsm7', 'ucs2', '912345678'])
      expect(text).not.toContain(raw);
    await bothWidths(page, 'delivery with messages');

    // In English.
    await page.getByLabel('Idioma').selectOption('en');
    await log.page().getByRole('region', { name: 'Messages to the recipient' }).waitFor();
    const english = await page.getByRole('region', { name: 'Messages to the recipient' }).innerText();
    expect(english).toContain('Reached the phone');
    expect(english).toContain('Why: the recipient replied STOP');
    expect(english).toContain('2 SMS (with special characters)');
    await page.getByLabel('Language').selectOption('pt');
  }, 120_000);
});

describe('a viewer', () => {
  it('reads the SMS settings and is offered no change', async () => {
    const { context, page } = await signedIn(users.viewer);
    try {
      await page.goto(`${stack.url}/dashboard/settings`);
      const section = page.getByRole('region', { name: 'Notificações SMS' });
      await section.getByLabel('Enviar SMS aos destinatários').waitFor();
      expect(await section.getByLabel('Enviar SMS aos destinatários').isDisabled()).toBe(true);
      expect(await section.getByLabel('Remetente (nome que o destinatário vê)').isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: /^Guardar/ }).count()).toBe(0);
      await bothWidths(page, 'SMS settings as a viewer');
    } finally {
      await context.close();
    }
  }, 120_000);
});
