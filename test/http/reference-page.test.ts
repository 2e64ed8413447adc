// The API reference at /docs (issue 31 item 3), on the real stack and in headless Chromium: Scalar's page (HTML to a
// browser, the OpenAPI JSON to anyone else), branded, with its exact Content-Security-Policy and no violation of it,
// no request leaving this origin, search, and request samples in curl, Python and JavaScript (the typed client); a
// signed-in developer's test key filled in (a test key of their tenant, bound to their session), and nothing for a
// visitor, a viewer or a cross-site visit. `SCREENSHOTS_TO_DOCS=1` also writes docs/images/reference-*.png.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT_DIR } from '../../src/platform/config.js';
import { dashboardSession } from '../helpers/dashboard-session.js';
import { startStack, type Stack } from '../helpers/stack.js';
import type { CreatedTenant } from '../../src/tenants/service.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const ARTIFACTS = path.join(ROOT_DIR, 'test-results', 'reference');
const DOCS_IMAGES = path.join(ROOT_DIR, 'docs', 'images');
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let stack: Stack;
let tenant: CreatedTenant;
let browser: Browser;
beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startStack();
  tenant = await stack.tenant();
  browser = await chromium.launch({
    executablePath: chromiumSetup.path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const page = (headers: Record<string, string> = {}) => fetch(`${stack.url}/docs`, { headers: { ...HTML, ...headers } });
const keyIn = (html: string) => /sk_(?:test|live)_[0-9A-Za-z]{32}/.exec(html)?.[0] ?? null;

describe('GET /docs', () => {
  it('answers a browser with the branded reference page under its exact CSP, anyone else with the OpenAPI JSON', async () => {
    const res = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        `font-src 'self' data:; connect-src 'self' ${new URL(stack.url).origin}; base-uri 'none'; form-action 'none'; ` +
        "frame-ancestors 'none'",
    );
    const html = await res.text();
    expect(html).toContain('<title>delivery service API · reference</title>');
    expect(html).toContain('<script src="/docs/js/scalar.js"></script>');
    expect(html).not.toMatch(/<script>|<script[^>]*>[^<]+<\/script>/); // no inline script
    expect(keyIn(html)).toBeNull();

    const json = await stack.request('GET', '/docs');
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.body).toEqual((await stack.request('GET', '/v1/openapi.json')).body);
    expect((await page()).headers.get('vary')).toContain('Accept');

    const script = await fetch(`${stack.url}/docs/js/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    // From disk (src/http/reference-asset.ts), gzip to a browser that takes it, and a 304 for the copy it has.
    expect(script.headers.get('content-encoding')).toBe('gzip');
    const etag = script.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect((await fetch(`${stack.url}/docs/js/scalar.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);

    // The document's downloads, as Scalar's plugin offers them.
    const json2 = await fetch(`${stack.url}/docs/openapi.json`);
    expect(json2.headers.get('content-disposition')).toBe('filename=delivery-service-api.json');
    expect(await json2.json()).toEqual((await stack.request('GET', '/v1/openapi.json')).body);
    const yaml = await fetch(`${stack.url}/docs/openapi.yaml`);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await yaml.text()).toMatch(/^openapi: 3\.1/);
  });

  it('every merchant operation has a JavaScript sample with the typed client; fleet and health routes none', async () => {
    const doc = (await stack.request('GET', '/v1/openapi.json')).body;
    const quote = doc.paths['/v1/quotes'].post['x-codeSamples'];
    expect(quote).toEqual([
      expect.objectContaining({ lang: 'javascript', label: 'JavaScript (@delivery-api/client)' }),
    ]);
    expect(quote[0].source).toContain("import { createClient } from '@delivery-api/client';");
    expect(quote[0].source).toContain("await api.POST('/v1/quotes', {");
    expect(quote[0].source).toContain('"city": "Luanda"');
    expect(doc.paths['/v1/widget/couriers'].get['x-codeSamples'][0].source).toContain('DELIVERY_API_PUBLISHABLE_KEY');
    expect(doc.paths['/v1/deliveries/{id}'].get['x-codeSamples'][0].source).toContain(
      'api.GET(\'/v1/deliveries/{id}\', {\n  params: {"path":{"id":',
    );
    expect(doc.paths['/healthz'].get['x-codeSamples']).toBeUndefined();
    expect(doc.paths['/v1/fleet/{courier_slug}/events'].post['x-codeSamples']).toBeUndefined();
  });
});

describe('the test key filled in', () => {
  it('only for a signed-in developer or owner: a test key of their tenant, the same on each visit, ended with the session', async () => {
    const developer = await dashboardSession(stack, tenant.tenant_id, 'developer');
    const res = await page({ cookie: developer.cookie, 'sec-fetch-site': 'same-origin' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const key = keyIn(await res.text());
    expect(key).toMatch(/^sk_test_/);
    // Typed into the address bar (Sec-Fetch-Site: none): the same key again.
    expect(keyIn(await (await page({ cookie: developer.cookie, 'sec-fetch-site': 'none' })).text())).toBe(key);
    // It is the tenant's test key: test mode, this tenant's keys.
    const keys = await stack.request('GET', '/v1/api_keys', { key: key! });
    expect(keys.status).toBe(200);
    expect(keys.body.data.every((k: any) => k.livemode === false)).toBe(true);
    expect(keys.body.data.map((k: any) => k.prefix)).toContain(key!.slice(0, 12));
    expect(
      (await stack.request('GET', '/v1/api_keys', { key: tenant.test_secret_key })).body.data.map((k: any) => k.id),
    ).toEqual(keys.body.data.map((k: any) => k.id));

    // An owner gets a test key too (never a live one); a viewer, a visitor and a cross-site visit get none.
    const owner = await dashboardSession(stack, tenant.tenant_id, 'owner');
    const ownerKey = keyIn(await (await page({ cookie: owner.cookie })).text());
    expect(ownerKey).toMatch(/^sk_test_/);
    expect(ownerKey).not.toBe(key);
    const viewer = await dashboardSession(stack, tenant.tenant_id, 'viewer');
    expect(keyIn(await (await page({ cookie: viewer.cookie })).text())).toBeNull();
    expect(keyIn(await (await page({ cookie: developer.cookie, 'sec-fetch-site': 'cross-site' })).text())).toBeNull();
    expect(keyIn(await (await page({ cookie: 'dashboard_session=forged' })).text())).toBeNull();

    // Signing out ends the key with the session; a key revoked by hand is not filled in again.
    const out = await developer.request('DELETE', '/dashboard/api/session');
    expect(out.status).toBe(204);
    stack.expectProblem(await stack.request('GET', '/v1/api_keys', { key: key! }), 401, 'unauthorized');
    const ownerKeyId = (await stack.request('GET', '/v1/api_keys', { key: ownerKey! })).body.data.find(
      (k: any) => k.prefix === ownerKey!.slice(0, 12),
    ).id;
    expect(
      (await owner.request('POST', `/v1/api_keys/${ownerKeyId}/revoke`, { headers: { 'dashboard-mode': 'test' } }))
        .status,
    ).toBe(200);
    expect(keyIn(await (await page({ cookie: owner.cookie })).text())).toBeNull();
  });
});

/** A screenshot into test-results/reference/ (and docs/images/ with SCREENSHOTS_TO_DOCS=1). */
async function capture(p: Page, name: string) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await p.screenshot({ path: file, animations: 'disabled' });
  if (process.env.SCREENSHOTS_TO_DOCS === '1') fs.copyFileSync(file, path.join(DOCS_IMAGES, `${name}.png`));
}

describe('in Chromium', () => {
  it('renders without a CSP violation or a request elsewhere, with search, the samples in curl, Python and JavaScript, and the key', async () => {
    const developer = await dashboardSession(stack, tenant.tenant_id, 'developer');
    const key = keyIn(await (await page({ cookie: developer.cookie })).text())!;
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const [name, value] = developer.cookie.split('=');
    await context.addCookies([{ name, value, url: stack.url }]);
    const p = await context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    await p.addInitScript(() => {
      (window as any).__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as any).__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    p.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    p.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    p.on('request', (r) => {
      if (!r.url().startsWith(stack.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    await p.goto(`${stack.url}/docs`);
    await p.getByRole('heading', { name: 'delivery service API' }).first().waitFor({ timeout: 30_000 });
    expect(await p.title()).toBe('delivery service API · reference');
    // The developer's test key is in the Bearer field.
    await expect
      .poll(() => p.locator('input').evaluateAll((inputs) => inputs.map((i) => (i as any).value)))
      .toContain(key);
    await capture(p, 'reference-desktop');

    // Search finds an operation by its words.
    await p
      .getByRole('button', { name: /search/i })
      .first()
      .click();
    await p.keyboard.type('cancel');
    const result = p
      .getByRole('option')
      .filter({ hasText: /cancel/i })
      .first();
    await result.waitFor({ timeout: 10_000 });
    await capture(p, 'reference-search');
    await p.keyboard.press('Escape');

    // The request samples: curl first, then Python and the typed JavaScript client.
    await p.goto(`${stack.url}/docs#tag/quotes/POST/v1/quotes`);
    const picker = p.getByRole('button', { name: /Shell Curl/ }).last();
    await picker.waitFor({ timeout: 20_000 });
    await picker.scrollIntoViewIfNeeded();
    await picker.click();
    const options = await p.getByRole('option').allInnerTexts();
    // Grouped by language (Shell, Python): curl, Python's requests, and the client; no other language.
    expect(options.map((o) => o.trim()).sort()).toEqual(['Curl', 'JavaScript (@delivery-api/client)', 'Requests']);
    await p.getByRole('option', { name: /@delivery-api\/client/ }).click();
    await expect
      .poll(() => p.locator('body').innerText())
      .toContain("import { createClient } from '@delivery-api/client';");
    await capture(p, 'reference-samples');

    expect(await p.evaluate(() => (window as any).__violations)).toEqual([]);
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await context.close();
  }, 120_000);
});
