// Browser tests: headless Debian Chromium driven by playwright-core, against the real stack (API, Temporal
// worker, Postgres) and the courier simulator. A merchant's checkout page is served by a small node:http
// server on 127.0.0.1 (an origin the publishable key allows, and one it does not); it embeds the widget
// exactly as docs/widget.md says. Screenshots land in test-results/ (gitignored; CI keeps them as artifacts); the
// ones docs/ shows (the widget at 375 px, the live tracking page) are written to docs/images/ when
// SCREENSHOTS_TO_DOCS=1 (`SCREENSHOTS_TO_DOCS=1 npx vitest run test/pages/browser.test.ts` refreshes them).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Simulator } from '../../simulator/server.js';
import { ROOT_DIR } from '../../src/platform/config.js';
import {
  DESTINATION,
  ORIGIN,
  createDeliveryFor,
  merchantWith,
  quoteBody,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { updateTenantPageSettings } from '../../src/tenants/repository.js';

// test/global-setup.ts finds or installs Chromium (scripts/lib/chromium.ts); without one this file fails, never skips.
const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const CHROMIUM = chromiumSetup.path;
const ARTIFACTS = path.join(ROOT_DIR, 'test-results', 'browser');

interface HostPage {
  origin: string;
  close(): Promise<void>;
}

/** A merchant's checkout page: one script tag and one element, plus a log of the widget's DOM events. */
function hostHtml(api: string, params: URLSearchParams): string {
  const attr = (name: string, value: string | null) =>
    value === null ? '' : ` ${name}="${value.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`)}"`;
  const pageFields = params.get('fields') === 'page';
  return `<!doctype html>
<html lang="pt"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Loja de teste</title>
<script>
  window.__events = [];
  for (const type of ['quote-selected', 'delivery-created', 'error']) {
    document.addEventListener(type, (e) => window.__events.push({ type: e.type, detail: e.detail, composed: e.composed, bubbles: e.bubbles }));
  }
</script>
<script src="${api}/widget.js" defer></script>
</head><body style="font-family:sans-serif;max-width:40rem;margin:1rem auto;padding:0 1rem">
<h1>Finalizar compra</h1>
${
  pageFields
    ? `<p><label>Morada <input id="ship-address"></label> <label>Cidade <input id="ship-city"></label> <label>Província <input id="ship-province"></label>
<label>Nome <input id="ship-name"></label> <label>Telefone <input id="ship-phone"></label></p>`
    : ''
}
<delivery-widget${attr('publishable-key', params.get('key'))}${attr('api-base', api)}${attr('lang', params.get('lang'))}${attr('mode', params.get('mode'))}${attr(
    'heading',
    params.get('heading'),
  )}
  origin-address-line="${ORIGIN.address_line}" origin-city="${ORIGIN.city}" origin-province="${ORIGIN.province}"
  origin-contact-name="${ORIGIN.contact.name}" origin-contact-phone="${ORIGIN.contact.phone}" order-id="A-100"${
    pageFields
      ? ' address-line-from="#ship-address" city-from="#ship-city" province-from="#ship-province" recipient-name-from="#ship-name" recipient-phone-from="#ship-phone" weight-grams="1200" parcel-description="Sapatos"'
      : ''
  }></delivery-widget>
</body></html>`;
}

async function serveHost(api: string): Promise<HostPage> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (url.pathname !== '/') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostHtml(api, url.searchParams));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let allowed: HostPage;
let disallowed: HostPage;
let browser: Browser;
let pinCompany: string;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startStack();
  sim = await startSimulator();
  [allowed, disallowed] = await Promise.all([serveHost(stack.url), serveHost(stack.url)]);
  const company = simCompany({ name: 'Kamba Express', require_delivery_pin: true });
  pinCompany = company.slug;
  m = await merchantWith(stack, sim, [company], [], [allowed.origin]);
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
});

afterAll(async () => {
  await browser?.close();
  await allowed?.close();
  await disallowed?.close();
  await stack?.close();
  await sim?.close();
});

async function newPage(
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 480, height: 900 }, locale: 'pt-AO', ...options });
  const page = await context.newPage();
  return { context, page };
}

const events = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { __events: { type: string; detail: any; composed: boolean; bubbles: boolean }[] })
        .__events,
  );
const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const DOCS_IMAGES = path.join(ROOT_DIR, 'docs', 'images');
/** A screenshot docs/ shows: into test-results/, and into docs/images/ when SCREENSHOTS_TO_DOCS=1. */
const docShot = async (page: Page, name: string) => {
  await shot(page, name);
  if (process.env.SCREENSHOTS_TO_DOCS === '1') {
    fs.mkdirSync(DOCS_IMAGES, { recursive: true });
    fs.copyFileSync(path.join(ARTIFACTS, `${name}.png`), path.join(DOCS_IMAGES, `${name}.png`));
  }
};
/** The shopper's part of the form: recipient and parcel, then "get prices". */
async function fillRecipient(page: Page) {
  await page.getByLabel('Nome').fill(DESTINATION.contact.name);
  await page.getByLabel('Telefone').fill(DESTINATION.contact.phone);
  await page.getByLabel('Morada (rua, número, bairro)').fill(DESTINATION.address_line);
  await page.getByLabel('Cidade').fill(DESTINATION.city);
  await page.getByLabel('Província').fill(DESTINATION.province);
  await page.getByLabel('Peso (kg)').fill('1,2');
  await page.getByLabel('Descrição (opcional)').fill('Sapatos');
  await page.getByRole('button', { name: 'Ver preços de entrega' }).click();
}
/** Whether the element is wholly inside the viewport. */
const inView = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
  });
const formatAoa = (page: Page, centavos: number) =>
  page.evaluate(
    (c) => new Intl.NumberFormat('pt-AO', { style: 'currency', currency: 'AOA' }).format(c / 100),
    centavos,
  );

describe('GET /widget.js', () => {
  it('is JavaScript any origin can load: CORP cross-origin, long cache, ETag, 304, gzip', async () => {
    const res = await fetch(`${stack.url}/widget.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toMatch(/public, max-age=86400/);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const code = await res.text();
    expect(code).toContain('delivery-widget');

    const again = await fetch(`${stack.url}/widget.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const versioned = await fetch(`${stack.url}/widget.js?v=${etag.slice(1, -1)}`);
    expect(versioned.headers.get('cache-control')).toContain('immutable');

    const raw = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(`${stack.url}/widget.js`, { headers: { 'accept-encoding': 'gzip' } }, resolve),
    );
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.headers.vary).toContain('Accept-Encoding');
    raw.resume();
  });
});

describe('widget on an allowed origin', () => {
  it('quotes and books end to end: fee in kwanza, PIN, reference and tracking link, DOM events, Idempotency-Key', async () => {
    const { context, page } = await newPage();
    const bookingHeaders: Record<string, string>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/widget/deliveries'))
        bookingHeaders.push(request.headers());
    });
    await page.goto(`${allowed.origin}/?key=${m.tenant.publishable_key}`);
    await fillRecipient(page);

    const option = page.getByRole('radio', { name: /Kamba Express/ });
    await expect.poll(() => option.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('1 opção de entrega encontrada.');
    await option.check();
    const selected = (await events(page)).find((e) => e.type === 'quote-selected');
    expect(selected?.detail.quote).toMatchObject({ company_slug: pinCompany, require_delivery_pin: true });
    expect(selected?.bubbles && selected.composed).toBe(true);
    const fee: number = selected!.detail.quote.fee_aoa;
    const formatted = await formatAoa(page, fee);
    expect(formatted).toMatch(/Kz/);
    expect(await page.locator('delivery-widget label.q').textContent()).toContain(formatted);
    await shot(page, 'widget-quotes');

    await page.getByRole('button', { name: 'Marcar entrega' }).click();
    await page.getByRole('heading', { name: 'Entrega marcada' }).waitFor({ timeout: 20_000 });
    const created = (await events(page)).find((e) => e.type === 'delivery-created')!;
    expect(created.detail).toMatchObject({ status: 'pending', fee_aoa: fee, company_name: 'Kamba Express' });
    expect(created.detail.reference).toMatch(/^DLV-/);
    expect(created.detail.delivery_pin).toMatch(/^\d{4}$/);
    expect(created.detail.tracking_url).toBe(`${stack.url}/track/${created.detail.id}`);
    await expect
      .poll(() => page.locator('delivery-widget [data-v=reference]').textContent())
      .toBe(created.detail.reference);
    expect(await page.locator('delivery-widget [data-v=pin]').textContent()).toContain(created.detail.delivery_pin);
    expect(await page.getByRole('link', { name: /Acompanhar a entrega/ }).getAttribute('href')).toBe(
      created.detail.tracking_url,
    );
    await shot(page, 'widget-booked');

    // The page reads the PIN again only with the client secret of the creation answer (cross-origin, as the widget would).
    expect(created.detail.client_secret).toMatch(new RegExp(`^${created.detail.id}_secret_`));
    const read = (secret?: string) =>
      page.evaluate(
        async ([url, key]) => (await fetch(url, { headers: { Authorization: `Bearer ${key}` }, mode: 'cors' })).json(),
        [
          `${stack.url}/v1/widget/deliveries/${created.detail.id}${secret ? `?client_secret=${secret}` : ''}`,
          m.tenant.publishable_key,
        ],
      );
    expect(await read(created.detail.client_secret)).toMatchObject({
      id: created.detail.id,
      delivery_pin: created.detail.delivery_pin,
    });
    expect(await read()).not.toHaveProperty('delivery_pin');

    expect(bookingHeaders).toHaveLength(1);
    expect(bookingHeaders[0]['idempotency-key']).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(bookingHeaders[0].authorization).toBe(`Bearer ${m.tenant.publishable_key}`);

    // What the merchant sees: the quoted addresses and parcel, tagged as a widget delivery.
    const d = (await stack.request('GET', `/v1/deliveries/${created.detail.id}`, { key: m.tenant.secret_key })).body;
    expect(d).toMatchObject({
      quoted_fee_aoa: fee,
      destination: {
        address_line: DESTINATION.address_line,
        city: 'Luanda',
        province: 'Luanda',
        contact: DESTINATION.contact,
      },
      origin: { address_line: ORIGIN.address_line, contact: ORIGIN.contact },
      parcel: { weight_grams: 1200, description: 'Sapatos' },
      metadata: { order_id: 'A-100', source: 'widget' },
    });
    await context.close();
  });

  it('reads the recipient from page fields named by attributes', async () => {
    const { context, page } = await newPage();
    const quoteBodies: any[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/widget/quotes'))
        quoteBodies.push(request.postDataJSON());
    });
    await page.goto(`${allowed.origin}/?key=${m.tenant.publishable_key}&fields=page`);
    await page.locator('delivery-widget').getByRole('heading', { name: 'Entrega' }).waitFor();
    // Only the page's fields: the widget shows no inputs of its own.
    expect(await page.locator('delivery-widget input').count()).toBe(0);
    await page.getByRole('button', { name: 'Ver preços de entrega' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Verifique os campos assinalados');
    expect((await events(page)).at(-1)).toMatchObject({ type: 'error', detail: { code: 'invalid_input' } });

    await page.locator('#ship-address').fill(DESTINATION.address_line);
    await page.locator('#ship-city').fill('Luanda');
    await page.locator('#ship-province').fill('Luanda');
    await page.locator('#ship-name').fill('Ana Silva');
    await page.locator('#ship-phone').fill('+244 912 345 678');
    await page.getByRole('button', { name: 'Ver preços de entrega' }).click();
    await expect.poll(() => page.getByRole('radio').count(), { timeout: 15_000 }).toBe(1);
    expect(quoteBodies.at(-1)).toEqual({
      origin: { address_line: ORIGIN.address_line, city: 'Luanda', province: 'Luanda', contact: ORIGIN.contact },
      destination: {
        address_line: DESTINATION.address_line,
        city: 'Luanda',
        province: 'Luanda',
        contact: { name: 'Ana Silva', phone: '+244 912 345 678' },
      },
      parcel: { weight_grams: 1200, description: 'Sapatos' },
    });
    // Changing a page field after quoting makes the quotes stale: they disappear.
    await page.locator('#ship-city').fill('Benguela');
    await expect.poll(() => page.getByRole('radio').count()).toBe(0);
    await context.close();
  });
});

describe('widget on an origin the key does not allow', () => {
  const fillAndQuote = async (page: Page) => {
    await page.getByLabel('Name').fill('Ana Silva');
    await page.getByLabel('Phone').fill('+244912345678');
    await page.getByLabel('Address (street, number, neighbourhood)').fill(DESTINATION.address_line);
    await page.getByLabel('City').fill('Luanda');
    await page.getByLabel('Province').fill('Luanda');
    await page.getByLabel('Weight (kg)').fill('1.2');
    await page.getByRole('button', { name: 'Get delivery prices' }).click();
  };

  it('the API answers 401 and the widget says clearly that this site is not allowed', async () => {
    // The API's answer to that origin.
    const direct = await stack.request('POST', '/v1/widget/quotes', {
      key: m.tenant.publishable_key,
      body: quoteBody(),
      headers: { origin: disallowed.origin },
    });
    expect(direct.status).toBe(401);
    expect(direct.body.error).toBe('unauthorized');

    // No key allows this origin: the CORS preflight is refused, the browser hides the 401, and the widget
    // tells the two cases apart by fetching its own script (readable from anywhere).
    const { context, page } = await newPage();
    await page.goto(`${disallowed.origin}/?key=${m.tenant.publishable_key}&lang=en`);
    await fillAndQuote(page);
    const alert = page.getByRole('alert');
    await expect
      .poll(() => alert.textContent(), { timeout: 10_000 })
      .toContain(`This site (${disallowed.origin}) is not allowed`);
    expect((await events(page)).at(-1)).toMatchObject({
      type: 'error',
      detail: { code: 'origin_not_allowed', status: 401 },
    });
    expect(await page.getByRole('radio').count()).toBe(0);
    await shot(page, 'widget-origin-not-allowed');
    await context.close();
  });

  it('when another key allows the origin, the browser sees the 401 itself', async () => {
    // A fresh origin: the API remembers refused origins for a few seconds (plugins/cors.ts), and the test above
    // had `disallowed` refused just now.
    const other = await serveHost(stack.url);
    await stack.tenant([other.origin]);
    const { context, page } = await newPage();
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/v1/widget/quotes') && response.request().method() === 'POST')
        statuses.push(response.status());
    });
    await page.goto(`${other.origin}/?key=${m.tenant.publishable_key}&lang=en`);
    await fillAndQuote(page);
    await expect
      .poll(() => page.getByRole('alert').textContent(), { timeout: 10_000 })
      .toContain('is not allowed to use the delivery service with this key');
    expect(statuses).toEqual([401]);
    expect((await events(page)).at(-1)).toMatchObject({
      type: 'error',
      detail: { code: 'unauthorized', status: 401, detail: 'This origin is not allowed for the publishable key.' },
    });
    await context.close();
    await other.close();
  });
});

describe('keyboard only', () => {
  it('books with Tab, typing, Enter and Space; focus follows the steps (English)', async () => {
    const { context, page } = await newPage();
    await page.goto(`${allowed.origin}/?key=${m.tenant.publishable_key}&lang=en`);
    await page.locator('delivery-widget').getByRole('heading', { name: 'Delivery' }).waitFor();
    const focused = () =>
      page.evaluate(() => {
        const el = document.querySelector('delivery-widget')?.shadowRoot?.activeElement as HTMLElement | null;
        return el
          ? { tag: el.tagName.toLowerCase(), id: el.id, type: el.getAttribute('type'), text: el.textContent }
          : null;
      });

    const typeIn = async (id: string, text: string) => {
      await page.keyboard.press('Tab');
      expect((await focused())?.id).toBe(id);
      await page.keyboard.type(text);
    };
    await typeIn('dw-name', 'Ana Silva');
    await typeIn('dw-phone', '+244912345678');
    await typeIn('dw-address_line', DESTINATION.address_line);
    await typeIn('dw-city', 'Luanda');
    await typeIn('dw-province', 'Luanda');
    await typeIn('dw-weight', '0.8');
    await typeIn('dw-description', 'Livros');
    await page.keyboard.press('Enter');

    // Focus moves to the options; Tab reaches the first, Space picks it.
    await expect.poll(async () => (await focused())?.id, { timeout: 15_000 }).toBe('dw-qh');
    await page.keyboard.press('Tab');
    expect((await focused())?.type).toBe('radio');
    await page.keyboard.press('Space');
    expect((await events(page)).some((e) => e.type === 'quote-selected')).toBe(true);
    await page.keyboard.press('Tab');
    expect((await focused())?.text).toBe('Book delivery');
    await page.keyboard.press('Enter');

    await expect.poll(async () => (await focused())?.id, { timeout: 20_000 }).toBe('dw-done');
    expect((await focused())?.text).toBe('Delivery booked');
    const created = (await events(page)).find((e) => e.type === 'delivery-created')!;
    expect(created.detail.reference).toMatch(/^DLV-/);
    expect(await page.getByRole('status').textContent()).toBe(`Delivery booked: ${created.detail.reference}`);
    // The tracking link and "New delivery" are next in the tab order.
    await page.keyboard.press('Tab');
    expect((await focused())?.tag).toBe('a');
    await shot(page, 'widget-keyboard-booked');

    const d = (await stack.request('GET', `/v1/deliveries/${created.detail.id}`, { key: m.tenant.secret_key })).body;
    expect(d.parcel).toEqual({ weight_grams: 800, description: 'Livros' });
    await context.close();
  });
});

describe('tracking page GET /track/{id}', () => {
  it('shows reference, status and the timeline after fleet events, without JavaScript, in Portuguese and English', async () => {
    const created = await createDeliveryFor(stack, m);
    const assigned = await waitForStatus(stack, m.tenant.secret_key, created.id, 'assigned');
    const ref = assigned.courier.tracking_ref as string;
    for (const event_type of ['pickup_ready', 'in_transit', 'out_for_delivery']) {
      await sim.control.sendEvent(pinCompany, { tracking_ref: ref, event_type });
    }
    // Out of order: recorded as ignored, never shown to the recipient.
    await sim.control.sendEvent(pinCompany, { tracking_ref: ref, event_type: 'pickup_ready' });
    await waitFor(
      stack,
      m.tenant.secret_key,
      created.id,
      (d) => d.status === 'out_for_delivery' && d.events.some((e: any) => e.payload?.ignored),
    );

    const { context, page } = await newPage({
      javaScriptEnabled: false,
      viewport: { width: 375, height: 740 },
      isMobile: true,
    });
    const res = await page.goto(created.tracking_url);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-AO');
    expect(await page.locator('.ref').textContent()).toBe(created.reference);
    expect(await page.locator('.status').textContent()).toBe('Saiu para entrega');
    const timeline = await page.locator('ol.timeline li strong').allTextContents();
    expect(timeline).toEqual([
      'Saiu para entrega',
      'Recolhida e a caminho',
      'Pronta para recolha',
      'Estafeta atribuído',
      'Pedido enviado à transportadora',
      'Pedido de entrega criado',
    ]);
    expect(await page.locator('ol.timeline time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Nothing beyond the public tracking view.
    const html = await page.content();
    for (const secret of [
      created.delivery_pin,
      ref,
      DESTINATION.address_line,
      ORIGIN.address_line,
      DESTINATION.contact.phone,
    ]) {
      expect(html).not.toContain(secret);
    }
    // The courier company's name is shown (not its job reference); without JavaScript a <noscript> refresh keeps it current.
    expect(await page.locator('[data-v=courier]').textContent()).toBe('Kamba Express');
    expect(await page.locator('noscript').count()).toBe(1);
    await shot(page, 'tracking-pt');

    await page.goto(`${created.tracking_url}?lang=en`);
    expect(await page.locator('.status').textContent()).toBe('Out for delivery');
    expect(await page.locator('ol.timeline li strong').first().textContent()).toBe('Out for delivery');
    await shot(page, 'tracking-en');
    await context.close();

    const english = await newPage({
      javaScriptEnabled: false,
      locale: 'en-US',
      extraHTTPHeaders: { 'accept-language': 'en-US,en;q=0.9,pt;q=0.5' },
    });
    await english.page.goto(created.tracking_url);
    expect(await english.page.locator('html').getAttribute('lang')).toBe('en');
    expect(await english.page.locator('h1').textContent()).toBe('Track your delivery');
    await english.context.close();
  });

  it('answers unknown and malformed ids with a friendly 404 page', async () => {
    const { context, page } = await newPage({ javaScriptEnabled: false });
    const unknown = await page.goto(`${stack.url}/track/00000000-0000-4000-8000-000000000000`);
    expect(unknown?.status()).toBe(404);
    expect(unknown?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.locator('h1').textContent()).toBe('Entrega não encontrada');
    await shot(page, 'tracking-404');

    const malformed = await page.goto(`${stack.url}/track/%3Cscript%3Ealert(1)%3C%2Fscript%3E?lang=en`);
    expect(malformed?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Delivery not found');
    expect(await page.content()).not.toContain('<script>alert(1)');
    await context.close();
  });

  it('never answers odd input with a 500', async () => {
    const odd = [
      '/track/',
      '/track/%E0%A4%A',
      '/track/x?lang=en&lang=pt',
      '/track/x?lang[]=en',
      `/track/${'a'.repeat(5000)}`,
      '/widget.js?v=1&v=2',
    ];
    for (const url of odd) {
      const res = await fetch(stack.url + url);
      expect(res.status, url).toBeLessThan(500);
      await res.arrayBuffer();
    }
    const head = await fetch(`${stack.url}/widget.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('widget at 375 px: errors where the shopper looks, the truth about failures, heading, names that fit', () => {
  let shop: Merchant;
  beforeAll(async () => {
    const long = simCompany({
      name: 'Transportes Rápidos de Luanda e Bengo',
      pricing: { base_fee_aoa: 1_234_500, per_km_aoa: 10_000, base_eta_minutes: 45 },
    });
    shop = await merchantWith(stack, sim, [long, simCompany({ name: 'Kamba Express' })], [], [allowed.origin]);
  });
  const phone = { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true };

  it('a lost connection after the shop worked is a retry message under the button that failed, never "site not allowed"', async () => {
    const { context, page } = await newPage(phone);
    await page.goto(`${allowed.origin}/?key=${shop.tenant.publishable_key}&heading=Envio`);
    expect(await page.locator('delivery-widget').getByRole('heading', { level: 2 }).first().textContent()).toBe(
      'Envio',
    );
    await fillRecipient(page);
    await expect.poll(() => page.getByRole('radio').count(), { timeout: 15_000 }).toBe(2);

    // Names and prices fit: a long company name takes at most two lines, and each price is wholly inside its option.
    const layout = await page.locator('delivery-widget label.q').evaluateAll((labels) =>
      labels.map((label) => {
        const name = label.querySelector('.cn')!;
        const lineHeight = parseFloat(getComputedStyle(name).lineHeight) || 20;
        const fee = label.querySelector('.f')!.getBoundingClientRect();
        const box = label.getBoundingClientRect();
        return {
          lines: Math.round(name.getBoundingClientRect().height / lineHeight),
          feeInside: fee.left >= box.left && fee.right <= box.right,
        };
      }),
    );
    expect(
      layout.every((o) => o.lines <= 2 && o.feeInside),
      JSON.stringify(layout),
    ).toBe(true);
    await page.getByRole('radio', { name: /Kamba Express/ }).check();
    await docShot(page, 'widget-375');

    // The network goes: the shopper is told to retry, under "book", in view; the origin is not blamed.
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Marcar entrega' }).click();
    const alert = page.locator('delivery-widget .er', { hasText: 'Sem ligação' });
    await expect.poll(() => alert.count(), { timeout: 10_000 }).toBe(1);
    expect(await alert.textContent()).toContain(
      'Sem ligação ao serviço de entregas. Verifique a sua internet e tente de novo.',
    );
    expect(await page.locator('delivery-widget').textContent()).not.toContain('não está autorizado');
    expect((await events(page)).at(-1)).toMatchObject({ type: 'error', detail: { code: 'network', status: 0 } });
    // Right after the book button, and on screen.
    expect(
      await page.locator('delivery-widget').evaluate((w) => {
        const buttons = [...w.shadowRoot!.querySelectorAll('button')];
        const book = buttons.find((b) => b.textContent === 'Marcar entrega')!;
        return book.nextElementSibling?.classList.contains('er') ?? false;
      }),
    ).toBe(true);
    expect(await inView(page, 'delivery-widget >> .er:has-text("Sem ligação")')).toBe(true);
    await docShot(page, 'widget-375-offline');

    // Back online, "Tentar de novo" books it.
    await context.setOffline(false);
    await page.getByRole('button', { name: 'Tentar de novo' }).click();
    await page.getByRole('heading', { name: 'Entrega marcada' }).waitFor({ timeout: 20_000 });
    await context.close();
  });

  it('a first quote request that hangs is a retry message under "get prices", never "site not allowed": when the network gives up, and at the widget\'s own 30 s', async () => {
    const { context, page } = await newPage(phone);
    await page.clock.install(); // time runs as usual until fastForward
    // The quote request hangs; the first time the network gives up on it after a while (net::ERR_TIMED_OUT), the
    // second time it hangs until the widget's own timeout. Everything else (the origin probe too) reaches the API.
    let quoteRequests = 0;
    await page.route(`${stack.url}/v1/widget/quotes`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      quoteRequests++;
      if (quoteRequests === 1) setTimeout(() => void route.abort('timedout').catch(() => null), 1500);
      // else: never answered
    });
    await page.goto(`${allowed.origin}/?key=${shop.tenant.publishable_key}`);
    await fillRecipient(page);

    /** The error region's text, and whether it sits under the button named `button` (only the status line between). */
    const errorUnder = (button: string) =>
      page.locator('delivery-widget').evaluate((w, name) => {
        const er = [...w.shadowRoot!.querySelectorAll('.er')].find((el) => el.textContent);
        if (!er) return null;
        let before = er.previousElementSibling;
        while (before && before.tagName !== 'BUTTON') before = before.previousElementSibling;
        return {
          text: er.textContent!,
          under: before?.textContent === name,
          retry: er.querySelector('button')?.textContent ?? null,
        };
      }, button);

    await expect.poll(() => errorUnder('Ver preços de entrega'), { timeout: 30_000 }).not.toBeNull();
    expect(await errorUnder('Ver preços de entrega')).toEqual({
      text: 'Sem ligação ao serviço de entregas. Verifique a sua internet e tente de novo.Tentar de novo',
      under: true,
      retry: 'Tentar de novo',
    });
    expect(await page.locator('delivery-widget').textContent()).not.toContain('não está autorizado');
    expect((await events(page)).at(-1)).toMatchObject({ type: 'error', detail: { code: 'network', status: 0 } });

    // "Tentar de novo": this time the request hangs until the widget gives up after 30 s.
    await page.getByRole('button', { name: 'Tentar de novo' }).click();
    await expect.poll(() => quoteRequests).toBe(2);
    await page.clock.fastForward(31_000);
    await expect
      .poll(() => errorUnder('Ver preços de entrega'))
      .toEqual({
        text: 'O serviço de entregas está a demorar a responder. Tente de novo.Tentar de novo',
        under: true,
        retry: 'Tentar de novo',
      });
    expect((await events(page)).at(-1)).toMatchObject({ type: 'error', detail: { code: 'timeout', status: 0 } });
    await shot(page, 'widget-375-quote-timeout');

    // The API answers again: the retry gets the prices.
    await page.unroute(`${stack.url}/v1/widget/quotes`);
    await page.getByRole('button', { name: 'Tentar de novo' }).click();
    await expect.poll(() => page.getByRole('radio').count(), { timeout: 15_000 }).toBe(2);
    expect(await page.locator('delivery-widget').textContent()).not.toContain('não está autorizado');
    await context.close();
  }, 120_000);

  it('an empty heading removes it; the form keeps its name', async () => {
    const { context, page } = await newPage(phone);
    await page.goto(`${allowed.origin}/?key=${shop.tenant.publishable_key}&heading=`);
    await page.getByLabel('Nome').waitFor();
    expect(await page.locator('delivery-widget h2').count()).toBe(0);
    expect(await page.locator('delivery-widget form').getAttribute('aria-label')).toBe('Entrega');
    await context.close();
  });

  it('mode="select": the shopper only picks; quote-selected carries what the shop\'s server books with later', async () => {
    const { context, page } = await newPage(phone);
    const quoteBodies: any[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/widget/quotes'))
        quoteBodies.push(request.postDataJSON());
    });
    const deliveriesBefore = (await stack.request('GET', '/v1/deliveries', { key: shop.tenant.secret_key })).body.data
      .length;
    await page.goto(`${allowed.origin}/?key=${shop.tenant.publishable_key}&mode=select`);
    await fillRecipient(page);
    await expect.poll(() => page.getByRole('radio').count(), { timeout: 15_000 }).toBe(2);
    expect(await page.getByRole('button', { name: 'Marcar entrega' }).count()).toBe(0);
    await page.getByRole('radio', { name: /Kamba Express/ }).check();
    const selected = (await events(page)).filter((e) => e.type === 'quote-selected').at(-1)!;
    const { quote_id, company_id, company_name, fee_aoa, valid_until, origin, destination, parcel } = selected.detail;
    expect({ company_name, origin, destination, parcel }).toEqual({
      company_name: 'Kamba Express',
      ...quoteBodies.at(-1),
    });
    expect(quote_id).toBe(selected.detail.quote.quote_id);
    expect(Date.parse(valid_until)).toBeGreaterThan(Date.now());
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`Escolheu Kamba Express, ${await formatAoa(page, fee_aoa)}.`);
    await docShot(page, 'widget-375-select');
    // Nothing was booked from the browser.
    expect((await stack.request('GET', '/v1/deliveries', { key: shop.tenant.secret_key })).body.data).toHaveLength(
      deliveriesBefore,
    );

    // Later, once the customer paid: the shop's server books exactly that quote with its secret key (docs/widget.md).
    const booked = await stack.request('POST', '/v1/deliveries', {
      key: shop.tenant.secret_key,
      body: { quote_id, company_id, origin, destination, parcel, options: { metadata: { order_id: 'A-200' } } },
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect(booked.body).toMatchObject({ quoted_fee_aoa: fee_aoa, company_id, courier: { name: 'Kamba Express' } });
    await context.close();
  });
});

describe('tracking page: live, with the shop, the courier, the expected time and a help contact', () => {
  it('updates by itself while open; the JSON tracking view keeps its three fields', async () => {
    const company = simCompany({ name: 'Kamba Express', booking_status: 'accepted' });
    const shop = await merchantWith(stack, sim, [company]);
    await updateTenantPageSettings(stack.pool, shop.tenant.tenant_id, {
      display_name: 'Loja Kianda',
      help_email: 'ajuda@loja-kianda.ao',
      help_phone: '+244 923 000 111',
      help_url: 'https://loja-kianda.ao/ajuda',
    });
    const created = await createDeliveryFor(stack, shop);
    const assigned = await waitForStatus(stack, shop.tenant.secret_key, created.id, 'assigned');

    const { context, page } = await newPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    const res = await page.goto(created.tracking_url);
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'sha256-[^']+'/);
    expect(await page.locator('[data-v=shop]').textContent()).toBe('Loja Kianda');
    expect(await page.locator('[data-v=courier]').textContent()).toBe('Kamba Express');
    expect(await page.locator('[data-v=expected] time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.getByRole('link', { name: 'ajuda@loja-kianda.ao' }).getAttribute('href')).toBe(
      'mailto:ajuda@loja-kianda.ao',
    );
    expect(await page.getByRole('link', { name: '+244 923 000 111' }).getAttribute('href')).toBe('tel:+244923000111');
    expect(await page.locator('.status').textContent()).toBe('Estafeta atribuído');
    const scriptErrors: string[] = [];
    page.on('pageerror', (err) => scriptErrors.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && scriptErrors.push(msg.text()));

    // The courier picks it up and says when it arrives: the open page shows it, no reload, and says so aloud.
    const eta = new Date(Date.now() + 42 * 60_000);
    await sim.control.sendEvent(company.slug, {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'in_transit',
      payload: { eta: eta.toISOString() },
    });
    await expect.poll(() => page.locator('.status').textContent(), { timeout: 30_000 }).toBe('A caminho');
    expect(await page.locator('#live').textContent()).toBe('A caminho');
    expect(await page.locator('[data-v=expected] time').getAttribute('datetime')).toBe(eta.toISOString());
    expect(await page.locator('ol.timeline li strong').first().textContent()).toBe('Recolhida e a caminho');
    expect(scriptErrors).toEqual([]);
    await docShot(page, 'tracking-live');
    await context.close();

    // The public JSON route is the spec's view, exactly.
    const json = await stack.request('GET', `/v1/deliveries/${created.id}/tracking`);
    expect(Object.keys(json.body).sort()).toEqual(['events', 'reference', 'status']);
    expect(json.body.events.every((e: object) => Object.keys(e).sort().join() === 'event_type,occurred_at')).toBe(true);
  });
});

describe('widget with a test key', () => {
  it('shows the TESTE badge in words (TEST in English), read as a note; none with a live key', async () => {
    const { context, page } = await newPage();
    await page.goto(`${allowed.origin}/?key=${m.tenant.test_publishable_key}`);
    const note = page.locator('delivery-widget').getByRole('note');
    await expect.poll(() => note.textContent()).toBe('TESTE Modo de teste: nenhuma entrega real é marcada.');
    // Not colour alone: the word itself, bordered, ahead of the form.
    expect(await note.locator('strong').textContent()).toBe('TESTE');
    await docShot(page, 'widget-test-mode');

    await page.goto(`${allowed.origin}/?key=${m.tenant.test_publishable_key}&lang=en`);
    await expect.poll(() => note.textContent()).toBe('TEST Test mode: no real delivery is booked.');

    await page.goto(`${allowed.origin}/?key=${m.tenant.publishable_key}`);
    await page.getByLabel('Nome').waitFor();
    expect(await note.count()).toBe(0);
    expect(await page.locator('delivery-widget').evaluate((el) => el.shadowRoot!.textContent)).not.toMatch(/TESTE/);
    await context.close();
  });
});
