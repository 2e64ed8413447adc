// The merchant dashboard in headless Debian Chromium (playwright-core), against the real stack (API, Temporal worker,
// Postgres) and the courier simulator: an owner signs in, finds a delivery by search, opens it and cancels it (and
// sees the API's real 409 and 422 when it refuses), creates a webhook endpoint and sees an attempt arrive, replays
// it, creates a delivery, creates and revokes a key; a viewer cannot do what is not theirs (the pages hide it and the
// API refuses it); CSRF and session expiry. Every page passes axe-core with no serious or critical violation at
// desktop width and at 375 px, keyboard use is checked, and the first page stays within its 150 kB gzip budget.
// Screenshots land in test-results/dashboard/; `SCREENSHOTS_TO_DOCS=1 npx vitest run test/dashboard/dashboard.test.ts` also
// writes the ones docs/dashboard.md shows into docs/images/.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import axe from 'axe-core';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Simulator } from '../../simulator/server.js';
import { ROOT_DIR } from '../../src/platform/config.js';
import type { Role } from '../../src/users/roles.js';
import { createUser } from '../../src/users/service.js';
import { FIRST_PAGE_BUDGET_BYTES, firstPageWeight } from '../../scripts/lib/dashboard.js';
import {
  createDeliveryFor,
  merchantWith,
  quoteBody,
  simCompany,
  startSimulator,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const CHROMIUM = chromiumSetup.path;
const ARTIFACTS = path.join(ROOT_DIR, 'test-results', 'dashboard');
const DOCS_IMAGES = path.join(ROOT_DIR, 'docs', 'images');
const PASSWORD = 'palavra-passe muito segura';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let browser: Browser;
const users: Record<'owner' | 'viewer', string> = { owner: '', viewer: '' };
const deliveries: Record<'search' | 'inTransit' | 'refused' | 'live', any> = {} as any;

/** A webhook receiver on 127.0.0.1 that answers 200 and remembers the webhook-id of each message. */
const received: string[] = [];
let receiver: http.Server;
let receiverUrl: string;

async function userWith(role: Role, email: string) {
  const created = await createUser(stack.pool, stack.config.dashboard, stack.url, {
    tenantId: m.tenant.tenant_id,
    email,
    role,
  });
  const token = new URL(created.set_password_url).hash.replace(/^#token=/, '');
  const res = await stack.request('POST', '/dashboard/api/password', { body: { token, password: PASSWORD } });
  expect(res.status).toBe(204);
  return email;
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  [stack, sim] = await Promise.all([startStack(), startSimulator()]);
  const kamba = simCompany({ name: 'Kamba Express' });
  const teimosa = simCompany({
    name: 'Teimosa Entregas',
    refuse_cancellation: true,
    pricing: { base_fee_aoa: 250_000, per_km_aoa: 10_000, base_eta_minutes: 90 },
  });
  m = await merchantWith(stack, sim, [kamba, teimosa]);
  await stack.pool.query(`UPDATE tenants SET name = 'Loja Kianda' WHERE id = $1`, [m.tenant.tenant_id]);
  users.owner = await userWith('owner', 'dona@loja-kianda.ao');
  users.viewer = await userWith('viewer', 'leitor@loja-kianda.ao');

  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

  // Seventeen older deliveries first, so the list has a second page of 20 (and the four below stay on the first).
  for (let i = 0; i < 17; i += 6) {
    await Promise.all(Array.from({ length: Math.min(6, 17 - i) }, () => createDeliveryFor(stack, m, {}, kamba.slug)));
  }
  // Four deliveries: one to find and cancel, one already in transit (409), one whose courier refuses (422), one that moves.
  deliveries.search = await createDeliveryFor(
    stack,
    m,
    { options: { metadata: { order_id: 'KIANDA-1042' } } },
    kamba.slug,
  );
  deliveries.inTransit = await createDeliveryFor(stack, m, {}, kamba.slug);
  deliveries.refused = await createDeliveryFor(stack, m, {}, teimosa.slug);
  deliveries.live = await createDeliveryFor(stack, m, {}, kamba.slug);
  for (const d of Object.values(deliveries)) await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
  await sim.control.sendEvent(kamba.slug, {
    tracking_ref: (await courierRef(deliveries.inTransit.id))!,
    event_type: 'in_transit',
  });
  await waitForStatus(stack, m.tenant.secret_key, deliveries.inTransit.id, 'in_transit');

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.close();
  await sim?.close();
});

async function courierRef(id: string): Promise<string | null> {
  return (
    (await stack.request('GET', `/v1/deliveries/${id}`, { key: m.tenant.secret_key })).body.courier?.tracking_ref ??
    null
  );
}

async function newPage(viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale: 'pt-AO', timezoneId: 'Europe/Lisbon' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

async function signIn(page: Page, email: string) {
  await page.goto(`${stack.url}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Palavra-passe').fill(PASSWORD);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
}

/** axe-core on the page as it is: no serious or critical violation. */
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

/** A screenshot into test-results/ (and docs/images/ with SCREENSHOTS_TO_DOCS=1), after axe has looked at the page. */
async function capture(page: Page, name: string) {
  await checkA11y(page, name);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  if (process.env.SCREENSHOTS_TO_DOCS === '1') {
    fs.mkdirSync(DOCS_IMAGES, { recursive: true });
    fs.copyFileSync(file, path.join(DOCS_IMAGES, `${name}.png`));
  }
}

/** The page at desktop width and at 375 px: axe on both, a screenshot of both, nothing wider than the screen at 375. */
async function bothWidths(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await capture(page, `dashboard-${name}-desktop`);
  await page.setViewportSize(PHONE);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} at 375 px is ${overflow} px too wide`).toBeLessThanOrEqual(0);
  await capture(page, `dashboard-${name}-375`);
  await page.setViewportSize(DESKTOP);
}

const alertText = (page: Page) => page.getByRole('alert').first().innerText();

describe('the dashboard as served', () => {
  it('the first page is within its 150 kB gzip budget; the app is served with a strict CSP, assets cached for a year', async () => {
    const weight = firstPageWeight();
    expect(weight.totalGzip).toBeLessThanOrEqual(FIRST_PAGE_BUDGET_BYTES);
    // A production build even here (Vitest sets NODE_ENV=test): no development JSX carrying this machine's paths.
    const entry = Object.keys(weight.files).find((f) => f.endsWith('.js'))!;
    expect(fs.readFileSync(path.join(ROOT_DIR, '.build', 'dashboard', entry), 'utf8')).not.toContain(ROOT_DIR);
    const html = await fetch(`${stack.url}/dashboard/deliveries/anything`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(html.headers.get('cache-control')).toBe('no-cache');
    const asset = (await html.text()).match(/src="(\/dashboard\/assets\/[^"]+\.js)"/)![1];
    const js = await fetch(stack.url + asset);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${stack.url}/dashboard/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });
});

describe('an owner', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newPage());
  });
  afterAll(() => context?.close());

  it('signs in (in Portuguese by default, keyboard only), finds a delivery by search, opens it and sees every field, the courier and the timeline', async () => {
    await page.goto(`${stack.url}/dashboard`);
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('pt-AO');
    await bothWidths(page, 'sign-in');
    // Keyboard only: Tab to the email field, type, Tab, type, Enter.
    await page.getByLabel('Email').focus();
    await page.keyboard.type(users.owner);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
    await page.locator('tr[data-delivery]').first().waitFor();

    await page.getByLabel('Pesquisar').fill(deliveries.search.reference);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBe(1);
    expect(page.url()).toContain(`search=${deliveries.search.reference}`);
    const row = page.locator(`tr[data-delivery="${deliveries.search.id}"]`);
    expect(await row.innerText()).toMatch(/\d{1,3}(\u00a0\d{3})*,\d{2}\u00a0Kz/); // money as 1 500,00 Kz
    await page.getByRole('button', { name: 'Limpar' }).click();
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBeGreaterThanOrEqual(4);
    await bothWidths(page, 'deliveries');

    await page.getByLabel('Pesquisar').fill(deliveries.search.reference);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBe(1);
    await page.getByRole('link', { name: deliveries.search.reference }).click();
    await page.getByRole('heading', { name: new RegExp(`Entrega ${deliveries.search.reference}`) }).waitFor();
    const text = await page.locator('main').innerText();
    expect(text).toContain('Kamba Express'); // the courier
    expect(text).toContain(deliveries.search.destination.address_line);
    expect(text).toContain('KIANDA-1042'); // metadata
    expect(text).toMatch(/\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}:\d{2}/); // a date-time
    expect(await page.locator('.timeline li[data-event="delivery.created"]').count()).toBe(1);
    expect(await page.locator('.timeline li[data-event="delivery.assigned"]').count()).toBe(1);
    // Dates are Luanda's, whatever the browser's zone (this one is Lisbon's): the creation time as Luanda writes it.
    const luanda = new Intl.DateTimeFormat('pt-AO', {
      timeZone: 'Africa/Luanda',
      ...{
        day: '2-digit',
        month: '2-digit',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      },
    } as const).format(new Date(deliveries.search.inserted_at));
    expect(text).toContain(luanda);
    await bothWidths(page, 'delivery');
  });

  it('creates a webhook endpoint (the secret shown once), cancels the delivery, sees the attempt arrive and replays it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Endpoints de webhook' }).waitFor();
    await page.getByLabel('URL').fill(receiverUrl);
    await page.getByLabel('Descrição').fill('Loja Kianda');
    await page.getByRole('button', { name: 'Adicionar endpoint' }).click();
    const secret = page.locator('input[data-secret]');
    await secret.waitFor();
    const firstSecret = await secret.inputValue();
    expect(firstSecret).toMatch(/^whsec_/);
    expect(await page.locator('.secret').innerText()).toContain('não volta a ser mostrado');
    await bothWidths(page, 'webhooks');

    // Cancel the delivery found above: a delivery.cancelled message goes to the endpoint.
    await page.goto(`${stack.url}/dashboard/deliveries/${deliveries.search.id}`);
    await page.getByRole('button', { name: 'Cancelar entrega' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.innerText()).toContain(`Cancelar a entrega ${deliveries.search.reference}?`);
    await dialog.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Entrega cancelada.').waitFor();
    await page.locator('h1 [data-status="cancelled"]').waitFor();
    await page.locator('.timeline li[data-event="delivery.cancelled"]').waitFor();

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: receiverUrl }).click();
    const first = page.locator('tr[data-trigger="event"]');
    await first.first().waitFor({ timeout: 30_000 }); // the log refreshes by itself
    const rowText = await first.first().innerText();
    expect(rowText).toContain('Cancelada');
    expect(rowText).toContain('200');
    expect(rowText).toMatch(/\d+ ms/);
    const messageId = await first.first().getAttribute('data-message');
    expect(received).toContain(messageId);
    await bothWidths(page, 'webhook-endpoint');

    await page.getByRole('button', { name: `Reenviar a mensagem ${messageId}` }).click();
    await page.getByText('1 mensagem(ns) a reenviar.').waitFor();
    await page.locator(`tr[data-trigger="replay"][data-message="${messageId}"]`).waitFor({ timeout: 30_000 });
    expect(received.filter((id) => id === messageId)).toHaveLength(2); // the same webhook-id: receivers dedupe

    // Rotate the secret: the new one is shown once, and it is not the first.
    const endpointId = page.url().split('/').pop()!;
    await page.getByRole('button', { name: 'Rodar segredo' }).click();
    await page.getByRole('dialog', { name: 'Rodar segredo' }).getByRole('button', { name: 'Confirmar' }).click();
    const rotated = page.locator('input[data-secret]');
    await rotated.waitFor();
    const newSecret = await rotated.inputValue();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(firstSecret);
    const stored = (
      await stack.pool.query('SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1', [endpointId])
    ).rows[0];
    expect(stored).toEqual({ secret: newSecret, previous_secret: firstSecret });
    const endpoint = () =>
      stack.request('GET', `/v1/webhook_endpoints/${endpointId}`, { key: m.tenant.secret_key }).then((r) => r.body);
    expect(Date.parse((await endpoint()).secret_rotated_until) - Date.now()).toBeGreaterThan(23 * 3_600_000); // both signatures for 24 h

    // Disable: the badge says so, the API agrees, replays are not offered; enable again.
    const status = page.locator('.facts .badge');
    await page.getByRole('button', { name: 'Desativar' }).click();
    await expect.poll(() => status.innerText()).toBe('Desativado');
    expect((await endpoint()).status).toBe('disabled');
    expect(await page.getByRole('button', { name: 'Reenviar intervalo' }).isDisabled()).toBe(true);
    // One row per attempt (the first and the replay): every one of them offers no replay now.
    const replayOne = page.getByRole('button', { name: `Reenviar a mensagem ${messageId}` });
    expect(await replayOne.count()).toBe(2);
    expect(await replayOne.evaluateAll((buttons) => buttons.map((b) => (b as HTMLButtonElement).disabled))).toEqual([
      true,
      true,
    ]);
    await page.getByRole('button', { name: 'Ativar' }).click();
    await expect.poll(() => status.innerText()).toBe('Ativo');
    expect((await endpoint()).status).toBe('enabled');

    // Replay by range (Luanda's wall-clock time, from an hour ago): the message goes out a third time.
    const hourAgo = new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'Africa/Luanda',
      ...{ year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
    } as const)
      .format(new Date(Date.now() - 3_600_000))
      .replace(' ', 'T');
    await page.getByLabel('Desde (hora de Luanda)').fill(hourAgo);
    await page.getByRole('button', { name: 'Reenviar intervalo' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^[1-9]\d* mensagem\(ns\) a reenviar\.$/ })
      .waitFor();
    await expect
      .poll(() => page.locator(`tr[data-trigger="replay"][data-message="${messageId}"]`).count(), { timeout: 30_000 })
      .toBe(2);
    expect(received.filter((id) => id === messageId)).toHaveLength(3);

    // Health (docs/webhooks.md "Endpoint health"): every attempt failed for 25 h shows red "A falhar" instead of the
    // green "Ativo", on the list and on the endpoint's page with since when; 5 days later, disabled with reason failing.
    await stack.pool.query("UPDATE webhook_endpoints SET failing_since = now() - interval '25 hours' WHERE id = $1", [
      endpointId,
    ]);
    await page.goto(`${stack.url}/dashboard/webhooks`);
    const listed = page.locator(`tr[data-endpoint="${endpointId}"] .badge`);
    await expect.poll(() => listed.innerText()).toBe('A falhar');
    expect(await listed.getAttribute('class')).toContain('bad');
    await page.goto(`${stack.url}/dashboard/webhooks/${endpointId}`);
    await expect.poll(() => status.innerText()).toBe('A falhar');
    expect(await page.locator('.facts').innerText()).toContain('todas as tentativas falham desde');
    await stack.pool.query(
      "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing' WHERE id = $1",
      [endpointId],
    );
    await page.reload();
    await expect.poll(() => status.innerText()).toBe('Desativado');
    expect(await page.locator('.facts').innerText()).toContain('desativado após 5 dias de tentativas falhadas');
  }, 180_000);

  it('offers Cancel only where the API cancels: never in transit, out for delivery or stalled (#27)', async () => {
    // One more delivery out for delivery, and one stalled (its courier rejects the booking: courier_rejected).
    const outForDelivery = await createDeliveryFor(stack, m, {}, m.slug);
    await waitForStatus(stack, m.tenant.secret_key, outForDelivery.id, 'assigned');
    for (const event_type of ['in_transit', 'out_for_delivery']) {
      await sim.control.sendEvent(m.slug, { tracking_ref: (await courierRef(outForDelivery.id))!, event_type });
      await waitForStatus(stack, m.tenant.secret_key, outForDelivery.id, event_type);
    }
    sim.control.configure(m.slug, { reject_bookings: 422 });
    let stalled: any;
    try {
      stalled = await createDeliveryFor(stack, m, {}, m.slug);
      await waitForStatus(stack, m.tenant.secret_key, stalled.id, 'stalled');
    } finally {
      sim.control.reset(m.slug);
    }
    for (const d of [deliveries.inTransit, outForDelivery, stalled]) {
      await page.goto(`${stack.url}/dashboard/deliveries/${d.id}`);
      await page.getByRole('heading', { name: new RegExp(`Entrega ${d.reference}`) }).waitFor();
      // A stalled delivery has its recovery panel instead (test/dashboard/dashboard-last-mile.test.ts).
      if (d !== stalled) await page.getByText('Só se cancela até a transportadora ser atribuída').waitFor();
      expect(await page.getByRole('button', { name: 'Cancelar entrega' }).count(), d.id).toBe(0);
      // And the API refuses it indeed.
      stack.expectProblem(
        await stack.request('DELETE', `/v1/deliveries/${d.id}`, { key: m.tenant.secret_key }),
        409,
        'delivery_not_cancellable',
      );
    }
  });

  it('a cancel the API refuses shows its answer: 422 when the courier will not release the booking', async () => {
    await page.goto(`${stack.url}/dashboard/deliveries/${deliveries.refused.id}`);
    await page.getByRole('button', { name: 'Cancelar entrega' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('alert').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('alert').first().getAttribute('data-problem')).toBe('cancellation_rejected');
    expect(await alertText(page)).toContain('O cancelamento foi recusado: a transportadora não libertou a reserva');
    expect(await alertText(page)).not.toContain('cancellation_rejected'); // the code only behind "Detalhes técnicos"
    await page.getByRole('alert').first().getByText('Detalhes técnicos').click();
    expect(await alertText(page)).toContain('HTTP 422 · cancellation_rejected');
    expect(
      (await stack.request('GET', `/v1/deliveries/${deliveries.refused.id}`, { key: m.tenant.secret_key })).body.status,
    ).toBe('assigned');
  });

  it('sees status change live on the list', async () => {
    await page.goto(`${stack.url}/dashboard/deliveries`);
    const badge = page.locator(`tr[data-delivery="${deliveries.live.id}"] [data-status]`);
    expect(await badge.getAttribute('data-status')).toBe('assigned');
    await sim.control.sendEvent(m.slug, {
      tracking_ref: (await courierRef(deliveries.live.id))!,
      event_type: 'pickup_ready',
    });
    await expect.poll(() => badge.getAttribute('data-status'), { timeout: 15_000 }).toBe('pickup_ready');
    expect(await badge.innerText()).toBe('Pronta para recolha');
  });

  it('filters the list by status and by day (in Luanda), and pages through it 20 at a time', async () => {
    await page.goto(`${stack.url}/dashboard/deliveries`);
    const rows = page.locator('tr[data-delivery]');
    await expect.poll(() => rows.count()).toBe(20);

    // Pages: the next one holds the rest and offers no further page; back to the first.
    const pager = page.getByRole('navigation', { name: 'Paginação' });
    expect(await pager.getByRole('button', { name: 'Anterior' }).isDisabled()).toBe(true);
    const firstPage = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delivery')));
    await pager.getByRole('button', { name: 'Seguinte' }).click();
    await expect.poll(() => page.url()).toContain('offset=20');
    const total = (await stack.request('GET', '/v1/deliveries?limit=100', { key: m.tenant.secret_key })).body.data
      .length;
    await expect.poll(() => rows.count()).toBe(total - 20);
    expect(await pager.innerText()).toContain(`Entregas 21–${total}`);
    expect(await pager.getByRole('button', { name: 'Seguinte' }).isDisabled()).toBe(true);
    const secondPage = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delivery')));
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    await pager.getByRole('button', { name: 'Anterior' }).click();
    await expect.poll(() => page.url()).not.toContain('offset=');
    await expect.poll(() => rows.count()).toBe(20);

    // Status: only the delivery in transit, kept in the address.
    await page.getByLabel('Estado').selectOption('in_transit');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-delivery')).toBe(deliveries.inTransit.id);
    expect(page.url()).toContain('status=in_transit');
    await page.reload();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByLabel('Estado').inputValue()).toBe('in_transit');
    await page.getByRole('button', { name: 'Limpar' }).click();
    await expect.poll(() => rows.count()).toBe(20);

    // Days, as Luanda counts them: from the day of the first delivery, all; from the day after the last, or up to
    // the day before the first, none.
    const luandaDay = (iso: string, days = 0) =>
      new Intl.DateTimeFormat('sv-SE', {
        timeZone: 'Africa/Luanda',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      }).format(new Date(Date.parse(iso) + days * 86_400_000));
    const all = (await stack.request('GET', '/v1/deliveries?limit=100', { key: m.tenant.secret_key })).body.data as {
      inserted_at: string;
    }[];
    const oldest = all.map((d) => d.inserted_at).sort()[0];
    const newest = all.map((d) => d.inserted_at).sort()[all.length - 1];
    await page.getByLabel('Desde').fill(luandaDay(oldest));
    await page.getByLabel('Até').fill(luandaDay(newest));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => page.url()).toContain(`from=${luandaDay(oldest)}`);
    expect(page.url()).toContain(`to=${luandaDay(newest)}`);
    await expect.poll(() => rows.count()).toBe(20);
    await page.getByLabel('Desde').fill(luandaDay(newest, 1));
    await page.getByLabel('Até').fill('');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Nenhuma entrega encontrada.').waitFor();
    expect(await rows.count()).toBe(0);
    await page.getByLabel('Desde').fill('');
    await page.getByLabel('Até').fill(luandaDay(oldest, -1));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => page.url()).toContain(`to=${luandaDay(oldest, -1)}`);
    await page.getByText('Nenhuma entrega encontrada.').waitFor();
    await page.getByRole('button', { name: 'Limpar' }).click();
    await expect.poll(() => rows.count()).toBe(20);
  }, 120_000);

  it('creates a delivery: quote, pick a company, create', async () => {
    await page.getByRole('link', { name: 'Nova entrega', exact: true }).first().click();
    await page.getByRole('heading', { name: 'Nova entrega' }).waitFor();
    const origin = page.locator('fieldset', { hasText: 'Origem' });
    await origin.getByLabel('Morada').fill('Rua Rainha Ginga 29, Ingombota');
    await origin.getByLabel('Nome do contacto').fill('Loja Kianda');
    const destination = page.locator('fieldset', { hasText: 'Destino' });
    await destination.getByLabel('Morada').fill('Rua Comandante Gika 225, Alvalade');
    await destination.getByLabel('Nome do contacto').fill('Ana Domingos');
    await destination.getByLabel('Telefone').fill('+244 912 345 678');
    await page.getByLabel('Peso (kg)').fill('1,2');
    await page.getByLabel('Descrição').fill('Sapatos');
    await page.getByLabel('Valor declarado (Kz)').fill('25.000,00');
    await page.getByRole('button', { name: 'Obter preços' }).click();
    await page.getByRole('heading', { name: 'Escolha a transportadora' }).waitFor();
    expect(await page.getByRole('radio').count()).toBe(2);
    await page.getByRole('radio', { name: /Teimosa Entregas/ }).check();
    expect(await page.locator('.quote.chosen').innerText()).toMatch(/\d,\d{2}\u00a0Kz/);
    await bothWidths(page, 'new-delivery');
    await page.getByRole('button', { name: 'Criar entrega' }).click();
    await page.getByRole('heading', { name: /^Entrega DLV-/ }).waitFor();
    const id = page.url().split('/').pop()!;
    const created = (await stack.request('GET', `/v1/deliveries/${id}`, { key: m.tenant.secret_key })).body;
    expect(created).toMatchObject({
      parcel: { weight_grams: 1200, declared_value_aoa: 2_500_000, description: 'Sapatos' },
      destination: {
        address_line: 'Rua Comandante Gika 225, Alvalade',
        contact: { name: 'Ana Domingos', phone: '+244 912 345 678' },
      },
    });
  });

  it('creates a key (shown once), revokes it (it then gets 401), and sees test keys in test mode', async () => {
    await page.getByRole('link', { name: 'Chaves de API' }).click();
    await page.getByRole('heading', { name: 'Chaves de API' }).waitFor();
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const secret = page.locator('input[data-secret]');
    await secret.waitFor();
    const key = await secret.inputValue();
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect((await stack.request('GET', '/v1/couriers', { key })).status).toBe(200);
    const row = page.locator('tr', { hasText: `${key.slice(0, 12)}…` });
    await row.waitFor();
    await bothWidths(page, 'keys');

    await row.getByRole('button', { name: 'Revogar' }).click();
    await row.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    await expect.poll(() => row.getAttribute('data-status')).toBe('revoked');
    expect((await stack.request('GET', '/v1/couriers', { key })).status).toBe(401);

    // A publishable key for one shop origin, then its allowed origins edited: the widget routes follow.
    await page.getByLabel('Tipo').selectOption('publishable');
    await page.getByRole('textbox', { name: 'Origens permitidas' }).fill('https://loja-kianda.ao');
    await page.getByRole('button', { name: 'Criar chave' }).click();
    await expect.poll(() => page.locator('input[data-secret]').inputValue()).toMatch(/^pk_live_/);
    const publishable = await page.locator('input[data-secret]').inputValue();
    // A publishable key is listed whole (it is public), with a copy button.
    const pkRow = page.locator('tr', { hasText: publishable });
    await pkRow.waitFor();
    expect(await pkRow.locator('[data-publishable-key]').innerText()).toBe(publishable);
    expect(await pkRow.innerText()).toContain('https://loja-kianda.ao');
    const widgetQuote = (origin: string) =>
      stack
        .request('POST', '/v1/widget/quotes', { key: publishable, body: quoteBody(), headers: { origin } })
        .then((r) => r.status);
    expect(await widgetQuote('https://www.loja-kianda.ao')).toBe(401);
    await pkRow.getByRole('button', { name: 'Editar origens' }).click();
    await pkRow
      .getByRole('textbox', { name: 'Origens permitidas' })
      .fill('https://loja-kianda.ao\nhttps://www.loja-kianda.ao');
    await pkRow.getByRole('button', { name: 'Guardar' }).click();
    await expect
      .poll(() => pkRow.locator('span.mono.wrap').innerText())
      .toBe('https://loja-kianda.ao, https://www.loja-kianda.ao');
    const stored = (await stack.request('GET', '/v1/api_keys?limit=100', { key: m.tenant.secret_key })).body.data.find(
      (k: { prefix: string }) => k.prefix === publishable.slice(0, 12),
    );
    expect(stored.allowed_origins).toEqual(['https://loja-kianda.ao', 'https://www.loja-kianda.ao']);
    expect(await widgetQuote('https://www.loja-kianda.ao')).toBe(200);

    await page.getByRole('switch', { name: 'Modo de teste' }).check();
    await page.getByRole('note').filter({ hasText: 'Modo de teste' }).waitFor();
    await expect
      .poll(() => page.locator('tr[data-key]').allInnerTexts())
      .toContainEqual(expect.stringContaining('sk_test_'));
    expect(await page.locator('main').innerText()).not.toContain(key.slice(0, 12));
    await page.getByRole('switch', { name: 'Modo de teste' }).uncheck();
  }, 120_000);

  it('manages users (owner only), in English when asked', async () => {
    await page.getByRole('link', { name: 'Utilizadores' }).click();
    await page.getByRole('heading', { name: 'Utilizadores' }).waitFor();
    await page.locator('tr[data-user]').first().waitFor();
    expect(await page.locator('tr[data-user]').count()).toBe(2);
    await page.getByLabel('Email').fill('nova@loja-kianda.ao');
    await page.getByRole('button', { name: 'Convidar' }).click();
    const link = page.locator('input[data-secret]');
    await link.waitFor();
    const invite = await link.inputValue();
    expect(invite).toMatch(new RegExp(`^${stack.url}/dashboard/set-password#token=`));
    await bothWidths(page, 'users');

    // The invited user opens the link in a browser of their own: the set-password page, then sign-in works.
    const invited = await newPage();
    try {
      await invited.page.goto(invite);
      await invited.page.getByRole('heading', { name: 'Definir a palavra-passe' }).waitFor();
      expect(await invited.page.title()).toBe('Definir a palavra-passe · Painel de entregas');
      expect(await invited.page.locator('.boot').count()).toBe(0); // the boot message of index.html is gone
      await bothWidths(invited.page, 'set-password');
      await invited.page.getByLabel('Nova palavra-passe').fill(PASSWORD);
      await invited.page.getByLabel('Repita a palavra-passe').fill(PASSWORD);
      await invited.page.getByRole('button', { name: 'Guardar palavra-passe' }).click();
      await invited.page.getByRole('status').filter({ hasText: 'Palavra-passe guardada. Já pode entrar.' }).waitFor();
      expect(invited.page.url()).toBe(`${stack.url}/dashboard/set-password`); // the spent token is out of the address bar
      await invited.page.getByRole('link', { name: 'Ir para a entrada' }).click();
      await invited.page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
      await signIn(invited.page, 'nova@loja-kianda.ao');
    } finally {
      await invited.context.close();
    }

    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
    await capture(page, 'dashboard-deliveries-en');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt');
    await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
  }, 120_000);

  it('when the session expires, the next call sends it to sign-in saying so', async () => {
    await page.goto(`${stack.url}/dashboard/deliveries`);
    await page.locator('tr[data-delivery]').first().waitFor();
    const session = await page.evaluate(() => fetch('/dashboard/api/session').then((r) => r.json()));
    await stack.pool.query(
      `UPDATE dashboard_sessions SET idle_expires_at = now() - interval '1 second' WHERE user_id = $1`,
      [session.user.id],
    );
    // The list's live refresh is the next call.
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('status').first().innerText()).toBe('A sua sessão terminou. Entre de novo.');
  });

  it('signs out: back to sign-in, and the session is gone (its cookie gets 401)', async () => {
    await signIn(page, users.owner);
    const cookie = (await context.cookies(stack.url)).find((c) => c.name === 'dashboard_session')!;
    expect(cookie).toBeDefined();
    const withCookie = () =>
      stack.request('GET', '/v1/deliveries?limit=1', { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect((await withCookie()).status).toBe(200);
    await page.getByRole('button', { name: 'Terminar sessão' }).click();
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    stack.expectProblem(await withCookie(), 401, 'unauthorized');
    await page.goto(`${stack.url}/dashboard/deliveries`);
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
  });
});

describe('a viewer', () => {
  it('reads, but the pages offer no change and the API refuses one made anyway (403 forbidden); no CSRF token or another site: 403', async () => {
    const { context, page } = await newPage(PHONE);
    await signIn(page, users.viewer);
    // At 375 px the navigation is behind the menu button, which works from the keyboard.
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.focus();
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    const nav = page.getByRole('navigation', { name: 'Menu' });
    expect(await nav.getByRole('link', { name: 'Utilizadores' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Nova entrega' }).count()).toBe(0);
    await nav.getByRole('link', { name: 'Webhooks' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Endpoints de webhook' }).waitFor();
    expect(await page.getByText('O seu papel (leitor) não permite esta ação.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Adicionar endpoint' }).count()).toBe(0);

    await page.goto(`${stack.url}/dashboard/deliveries/${deliveries.live.id}`);
    await page.getByRole('heading', { name: new RegExp(`Entrega ${deliveries.live.reference}`) }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancelar entrega' }).count()).toBe(0);
    await page.goto(`${stack.url}/dashboard/keys`);
    await page.getByText('Só proprietários gerem chaves de produção').waitFor();
    expect(await page.getByRole('button', { name: 'Criar chave' }).count()).toBe(0);
    await page.goto(`${stack.url}/dashboard/users`);
    await page.getByText('Só proprietários gerem utilizadores.').waitFor();

    // The API refuses what the page hides, even with the session's CSRF token.
    const tries = await page.evaluate(async (deliveryId) => {
      const session = await fetch('/dashboard/api/session').then((r) => r.json());
      const post = (path: string, body: unknown, token?: string) =>
        fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { 'x-csrf-token': token } : {}) },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      return {
        webhook: await post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/x' }, session.csrf_token),
        key: await post('/v1/api_keys', { kind: 'secret' }, session.csrf_token),
        users: await fetch('/v1/users').then((r) => r.status),
        cancel: await fetch(`/v1/deliveries/${deliveryId}`, {
          method: 'DELETE',
          headers: { 'x-csrf-token': session.csrf_token },
        }).then((r) => r.json()),
        noToken: await post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/x' }),
        read: await fetch('/v1/deliveries?limit=1').then((r) => r.status),
      };
    }, deliveries.live.id);
    expect(tries.webhook).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(tries.key).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(tries.users).toBe(403);
    expect(tries.cancel.error).toBe('forbidden');
    expect(tries.noToken).toMatchObject({ status: 403, body: { error: 'csrf_token_invalid' } });
    expect(tries.read).toBe(200);

    // Another site (another port is another origin) posting with the viewer's cookie gets nothing done.
    const evil = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>x</title>'),
    );
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const before = (await stack.request('GET', '/v1/webhook_endpoints', { key: m.tenant.secret_key })).body.data.length;
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    // The request goes out (a no-cors POST with the cookie: same site, another origin); its answer is unreadable here.
    await page.evaluate(async (api) => {
      await fetch(`${api}/v1/webhook_endpoints`, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        body: '{"url":"http://127.0.0.1:9/evil"}',
      }).catch(() => null);
    }, stack.url);
    expect((await stack.request('GET', '/v1/webhook_endpoints', { key: m.tenant.secret_key })).body.data.length).toBe(
      before,
    );
    await new Promise((resolve) => evil.close(resolve));
    await context.close();
  });
});

describe('a person in two teams', () => {
  it('signs in with the email and password both accounts share, chooses the team from the list, and lands in that team', async () => {
    const other = await stack.tenant();
    const email = 'ambas@loja-kianda.ao';
    await userWith('viewer', email);
    const created = await createUser(stack.pool, stack.config.dashboard, stack.url, {
      tenantId: other.tenant_id,
      email,
      role: 'owner',
    });
    const token = new URL(created.set_password_url).hash.replace(/^#token=/, '');
    expect(
      (await stack.request('POST', '/dashboard/api/password', { body: { token, password: PASSWORD } })).status,
    ).toBe(204);
    const otherName = (
      await stack.pool.query<{ name: string }>('SELECT name FROM tenants WHERE id = $1', [other.tenant_id])
    ).rows[0].name;

    const { context, page } = await newPage();
    await page.goto(`${stack.url}/dashboard`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Palavra-passe').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Escolha a equipa' }).waitFor();
    expect(await page.getByRole('list', { name: 'Escolha a equipa' }).getByRole('button').count()).toBe(2);
    await checkA11y(page, 'choose a team');
    await page.getByRole('button', { name: otherName }).click();
    await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
    const session = await page.evaluate(() => fetch('/dashboard/api/session').then((r) => r.json()));
    expect(session).toMatchObject({ tenant: { id: other.tenant_id }, user: { email, role: 'owner' } });
    await context.close();
  });
});
