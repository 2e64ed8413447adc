// The reference a merchant reads (issue 19, items 1 and 2), on the real stack: every request and response body of
// the OpenAPI document has an example and the request examples work against the API; the reference at /docs
// shows the merchant, widget and tracking routes, the fleet and health routes have their own document; every error
// `type` URI resolves to a page (HTML or JSON) saying what the code means and what to do, with the same text as
// docs/errors.md; a malformed key is called malformed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../src/http/error-catalog.js';
import { ERROR_CODES } from '../../src/http/problem.js';
import type { Simulator } from '../../simulator/server.js';
import { merchantWith, simCompany, startSimulator, type Merchant } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let doc: any;
beforeAll(async () => {
  [stack, sim] = await Promise.all([startStack(), startSimulator()]);
  m = await merchantWith(stack, sim, [simCompany()]);
  doc = (await stack.request('GET', '/v1/openapi.json')).body;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

/** Every operation of a document: `METHOD path`, the operation. */
const operations = (document: any): [string, any][] =>
  Object.entries<any>(document.paths).flatMap(([p, item]) =>
    Object.entries<any>(item).map(([method, op]): [string, any] => [`${method.toUpperCase()} ${p}`, op]),
  );

describe('examples in the OpenAPI document', () => {
  it('every request body and every response body has one; problem answers name the codes the operation answers with', () => {
    const missing: string[] = [];
    for (const [name, op] of operations(doc)) {
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
        if (media.example === undefined && media.examples === undefined) missing.push(`${name} request ${type}`);
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          const examples = media.examples
            ? Object.values<any>(media.examples).map((e) => e.value)
            : media.example !== undefined
              ? [media.example]
              : [];
          if (examples.length === 0) missing.push(`${name} ${status} ${type}`);
          if (type === 'application/problem+json') {
            for (const problem of examples) {
              expect(problem, `${name} ${status}`).toMatchObject({
                status: Number(status),
                type: `${stack.url}/errors/${problem.error}`,
              });
              expect(ERROR_CODES).toContain(problem.error);
            }
          }
        }
      }
    }
    expect(missing).toEqual([]);
    // Specific codes where they belong, and only there.
    const problemCodes = (p: string, method: string, status: string) =>
      Object.keys(doc.paths[p][method].responses[status].content['application/problem+json'].examples);
    expect(problemCodes('/v1/deliveries', 'post', '422')).toEqual(
      expect.arrayContaining(['validation_failed', 'quote_expired', 'quote_payload_mismatch']),
    );
    expect(problemCodes('/v1/deliveries/{id}', 'delete', '409')).toContain('delivery_not_cancellable');
    expect(problemCodes('/v1/quotes', 'post', '422')).not.toContain('quote_expired');
    expect(problemCodes('/v1/quotes', 'post', '503')).toEqual(['no_courier_configured']);
  });

  it('the request examples work as they are: the Luanda quote prices, and the delivery example books it', async () => {
    const requestExample = (p: string) => doc.paths[p].post.requestBody.content['application/json'].example;
    const quoteExample = requestExample('/v1/quotes');
    expect(quoteExample.origin.city).toBe('Luanda');
    const quotes = await stack.request('POST', '/v1/quotes', { key: m.tenant.secret_key, body: quoteExample });
    expect(quotes.status, JSON.stringify(quotes.body)).toBe(200);
    expect(quotes.body.data.length).toBeGreaterThan(0);

    const deliveryExample = requestExample('/v1/deliveries');
    const created = await stack.request('POST', '/v1/deliveries', {
      key: m.tenant.secret_key,
      body: { ...deliveryExample, quote_id: quotes.body.data[0].quote_id },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', metadata: deliveryExample.options.metadata });
  });
});

describe('the merchant reference and the platform reference', () => {
  it('/docs/merchant.json has the merchant, widget and tracking routes; fleet and health are in /docs/platform.json; /v1/openapi.json has all', async () => {
    const merchant = (await stack.request('GET', '/docs/merchant.json')).body;
    const platform = (await stack.request('GET', '/docs/platform.json')).body;
    const tagsOf = (document: any) => new Set(operations(document).flatMap(([, op]) => op.tags));
    expect([...tagsOf(merchant)].sort()).toEqual([
      'api_keys',
      'cash_on_delivery',
      'couriers',
      'deliveries',
      'quotes',
      'settings',
      'test_helpers',
      'tracking',
      'users',
      'webhooks',
      'widget',
    ]);
    expect([...tagsOf(platform)].sort()).toEqual(['fleet', 'system']);
    expect(Object.keys(merchant.paths)).not.toContain('/v1/fleet/{courier_slug}/events');
    expect(Object.keys(platform.paths).sort()).toEqual([
      '/healthz',
      '/readyz',
      '/v1/fleet/{courier_slug}/events',
      '/v1/fleet/{courier_slug}/remittances',
    ]);
    expect(operations(merchant).length + operations(platform).length).toBe(operations(doc).length);
    // The reference page offers both, the merchants' first.
    const page = await fetch(`${stack.url}/docs`, { headers: { accept: 'text/html' } }).then((r) => r.text());
    expect(page.indexOf('/docs/merchant.json')).toBeGreaterThan(0);
    expect(page.indexOf('/docs/platform.json')).toBeGreaterThan(page.indexOf('/docs/merchant.json'));
  });
});

describe('error type URIs resolve', () => {
  it('GET /errors/<code> answers JSON (what it means, what to do) for every code, and an HTML page to a browser', async () => {
    for (const code of ERROR_CODES) {
      const json = await stack.request('GET', `/errors/${code}`);
      expect(json.status, code).toBe(200);
      expect(json.body).toEqual({
        type: `${stack.url}/errors/${code}`,
        code,
        status: ERROR_CATALOG[code].status,
        title: expect.any(String),
        meaning: ERROR_CATALOG[code].meaning,
        what_to_do: ERROR_CATALOG[code].todo,
        example_detail: ERROR_CATALOG[code].example,
      });
    }
    const html = await fetch(`${stack.url}/errors/quote_expired`, {
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await html.text();
    expect(page).toContain('<code>quote_expired</code>');
    expect(page).toContain('the quote is past its <code>valid_until</code>');
    expect(page).toContain('request a new quote');
    const index = await fetch(`${stack.url}/errors`, { headers: { accept: 'text/html' } }).then((r) => r.text());
    for (const code of ERROR_CODES) expect(index).toContain(`href="errors/${code}"`);
    expect((await stack.request('GET', '/errors')).body.data).toHaveLength(ERROR_CODES.length);
  });

  it('the type of a real problem resolves; an unknown code is 404 problem+json', async () => {
    const problem = await stack.request('GET', '/v1/deliveries');
    expect(problem.status).toBe(401);
    const resolved = await fetch(problem.body.type);
    expect(resolved.status).toBe(200);
    expect(((await resolved.json()) as { code: string }).code).toBe('unauthorized');
    stack.expectProblem(await stack.request('GET', '/errors/no_such_code'), 404, 'not_found');
    // A browser is told so on a page (issue 31 item 3); anyone else keeps the problem+json.
    const unknownPage = await fetch(`${stack.url}/errors/no_such_code`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(unknownPage.status).toBe(404);
    expect(unknownPage.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await unknownPage.text()).toContain('has no error code <code>no_such_code</code>');
    const typical = await fetch(`${stack.url}/errors/quote_expired`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(typical.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await typical.text()).toContain('<title>quote_expired: delivery service API error</title>');
    stack.expectProblem(await stack.request('GET', '/errors/constructor'), 404, 'not_found');
  });
});

describe('a malformed key', () => {
  it('is called malformed, saying what a key looks like; a well-formed key of the other kind is named as such', async () => {
    const malformed = await stack.request('GET', '/v1/couriers', { key: 'sk_live_WRONGKEY' });
    stack.expectProblem(malformed, 401, 'unauthorized');
    expect(malformed.body.detail).toMatch(
      /^The API key is malformed: a secret key is sk_live_ followed by 32 letters and digits/,
    );
    const widget = await stack.request('GET', '/v1/widget/couriers', {
      key: 'pk_live_short',
      headers: { origin: 'http://shop.test' },
    });
    expect(widget.body.detail).toMatch(/^The API key is malformed: a publishable key is pk_live_/);
    const otherKind = await stack.request('GET', '/v1/couriers', { key: m.tenant.publishable_key });
    expect(otherKind.body.detail).toBe('This endpoint takes a secret key (sk_live_...), not a publishable key.');
    const unknown = await stack.request('GET', '/v1/couriers', { key: `sk_live_${'0'.repeat(32)}` });
    expect(unknown.body.detail).toBe('Invalid or revoked API key.');
  });
});
