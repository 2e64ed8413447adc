import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/platform/secrets.js';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { revokeKey } from '../../src/keys/service.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe('authentication', () => {
  it('accepts a secret key on merchant routes', async () => {
    const t = await stack.tenant();
    const res = await stack.request('GET', '/v1/couriers', { key: t.secret_key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it.each([
    ['no header', undefined],
    ['malformed header', 'Basic abc'],
    ['unknown key', 'Bearer sk_live_' + 'a'.repeat(32)],
    ['wrong format', 'Bearer sk_test_123'],
  ])('refuses %s with 401 unauthorized', async (_name, header) => {
    const res = await stack.request('GET', '/v1/couriers', { headers: header ? { authorization: header } : {} });
    stack.expectProblem(res, 401, 'unauthorized');
  });

  it('refuses a revoked key', async () => {
    const t = await stack.tenant();
    expect(await revokeKey(stack.pool, t.secret_key_id)).toBe(t.secret_key_id);
    stack.expectProblem(await stack.request('GET', '/v1/couriers', { key: t.secret_key }), 401, 'unauthorized');
  });

  it('refuses a publishable key on merchant routes and a secret key on widget routes', async () => {
    const t = await stack.tenant(['http://shop.test']);
    stack.expectProblem(await stack.request('GET', '/v1/couriers', { key: t.publishable_key }), 401, 'unauthorized');
    stack.expectProblem(
      await stack.request('GET', '/v1/widget/couriers', { key: t.secret_key, headers: { origin: 'http://shop.test' } }),
      401,
      'unauthorized',
    );
  });

  it('checks the Origin of widget requests against the key', async () => {
    const t = await stack.tenant(['http://shop.test']);
    const ok = await stack.request('GET', '/v1/widget/couriers', {
      key: t.publishable_key,
      headers: { origin: 'http://shop.test' },
    });
    expect(ok.status).toBe(200);
    stack.expectProblem(
      await stack.request('GET', '/v1/widget/couriers', {
        key: t.publishable_key,
        headers: { origin: 'http://evil.test' },
      }),
      401,
      'unauthorized',
    );
    stack.expectProblem(
      await stack.request('GET', '/v1/widget/couriers', { key: t.publishable_key }),
      401,
      'unauthorized',
    );
    stack.expectProblem(
      await stack.request('GET', '/v1/widget/couriers', {
        key: t.publishable_key,
        headers: { origin: 'http://shop.test:8080' },
      }),
      401,
      'unauthorized',
    );
  });

  it('answers CORS preflights only for allowed origins', async () => {
    await stack.tenant(['http://cors.test']);
    const allowed = await fetch(`${stack.url}/v1/widget/couriers`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://cors.test',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://cors.test');
    const denied = await fetch(`${stack.url}/v1/widget/couriers`, {
      method: 'OPTIONS',
      headers: { origin: 'http://nope.test', 'access-control-request-method': 'GET' },
    });
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('stores only hashes of keys', async () => {
    const t = await stack.tenant();
    const { rows } = await stack.pool.query('SELECT key_hash, prefix FROM api_keys WHERE tenant_id = $1', [
      t.tenant_id,
    ]);
    expect(rows).toHaveLength(4); // a live and a test pair (docs/test-mode.md)
    const hashes = rows.map((r) => (r.key_hash as Buffer).toString('hex'));
    for (const key of [t.secret_key, t.publishable_key, t.test_secret_key, t.test_publishable_key])
      expect(hashes).toContain(hashKey(key).toString('hex'));
    const dump = JSON.stringify(rows);
    for (const key of [t.secret_key, t.publishable_key, t.test_secret_key, t.test_publishable_key])
      expect(dump).not.toContain(key);
  });

  it('needs no key for health and docs', async () => {
    expect((await stack.request('GET', '/healthz')).status).toBe(200);
    const ready = await stack.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres: 'ok', temporal: 'ok' });
  });
});

describe('errors are problem+json', () => {
  it('unknown route: 404', async () => {
    stack.expectProblem(await stack.request('GET', '/v1/nothing-here'), 404, 'not_found');
  });
  it('malformed JSON: 400 invalid_json', async () => {
    stack.expectProblem(
      await stack.request('POST', '/v1/diagnostics/round_trip', { key: stack.config.adminToken, body: '{nope' }),
      400,
      'invalid_json',
    );
  });
  it('wrong content type: 415', async () => {
    stack.expectProblem(
      await stack.request('POST', '/v1/diagnostics/round_trip', {
        key: stack.config.adminToken,
        body: 'hello',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
  });
  it('body too large: 413', async () => {
    const huge = JSON.stringify({ pad: 'x'.repeat(stack.config.bodyLimitBytes + 10) });
    stack.expectProblem(
      await stack.request('POST', '/v1/diagnostics/round_trip', { key: stack.config.adminToken, body: huge }),
      413,
      'payload_too_large',
    );
  });
  it('every response carries x-request-id', async () => {
    const res = await stack.request('GET', '/healthz');
    expect(res.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
  });
});

describe('OpenAPI', () => {
  it('is served at /v1/openapi.json and /docs, titled and versioned', async () => {
    for (const path of ['/v1/openapi.json', '/docs']) {
      const res = await stack.request('GET', path);
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(res.body.info).toMatchObject({ title: 'delivery service API', version: '1.0.0' });
      expect(Object.keys(res.body.paths)).toEqual(
        expect.arrayContaining(['/v1/couriers', '/v1/widget/couriers', '/healthz']),
      );
      expect(Object.keys(res.body.components.securitySchemes)).toEqual(['secretKey', 'publishableKey']);
    }
  });
  it('validates against the OpenAPI 3.1 schema', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const doc = (await stack.request('GET', '/v1/openapi.json')).body;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
  it('shows browsers the reference page at /docs itself (test/http/reference-page.test.ts)', async () => {
    const res = await fetch(`${stack.url}/docs`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<html');
  });
});

describe('couriers', () => {
  it('lists only the couriers linked to the tenant, with every Courier field; the widget sees a trimmed form', async () => {
    const t = await stack.tenant(['http://shop.test']);
    const other = await stack.tenant();
    const slug = `c-${Date.now()}`;
    await createCourier(stack.pool, {
      name: 'Test Courier',
      slug,
      adapter: 'rate_card',
      base_fee_aoa: 100_000,
      base_eta_minutes: 30,
      active_drivers: 5,
      service_zones: ['Luanda'],
      operating_hours: { mon: '08-17' },
      max_weight_grams: 5000,
      require_delivery_pin: true,
      bank_transfer_enabled: true,
      bank_iban: 'AO06...',
      logo_url: 'https://cdn.test/logo.png',
    });
    await linkCouriers(stack.pool, t.tenant_id, slug);
    const res = await stack.request('GET', '/v1/couriers', { key: t.secret_key });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      name: 'Test Courier',
      slug,
      logo_url: 'https://cdn.test/logo.png',
      base_fee_aoa: 100_000,
      base_eta_minutes: 30,
      active_drivers: 5,
      service_zones: ['Luanda'],
      operating_hours: { mon: '08-17' },
      capabilities: {
        bank_transfer_enabled: true,
        bank_iban: 'AO06...',
        max_weight_grams: 5000,
        require_delivery_pin: true,
        parcel_types: null,
      },
    });
    expect((await stack.request('GET', '/v1/couriers', { key: other.secret_key })).body.data).toEqual([]);

    const widget = await stack.request('GET', '/v1/widget/couriers', {
      key: t.publishable_key,
      headers: { origin: 'http://shop.test' },
    });
    expect(widget.status).toBe(200);
    expect(widget.body.data[0]).toMatchObject({
      name: 'Test Courier',
      slug,
      capabilities: { require_delivery_pin: true },
    });
    expect(widget.body.data[0]).not.toHaveProperty('active_drivers');
    expect(widget.body.data[0]).not.toHaveProperty('operating_hours');
    expect(widget.body.data[0].capabilities).not.toHaveProperty('bank_iban');
  });
});

describe('round trip', () => {
  it('API -> Temporal -> worker -> activity -> Postgres (operator token)', async () => {
    const res = await stack.request('POST', '/v1/diagnostics/round_trip', { key: stack.config.adminToken });
    expect(res.status).toBe(200);
    const { rows } = await stack.pool.query('SELECT message FROM workflow_pings WHERE id = $1', [res.body.id]);
    expect(rows).toHaveLength(1);
    const handle = stack.temporal.workflow.getHandle(res.body.workflow_id);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });
});

describe('bodies and requests nothing downstream could take', () => {
  it('nesting deeper than 32 levels: 422 with a pointer, before anything else', async () => {
    const t = await stack.tenant();
    let deep: unknown = 1;
    for (let i = 0; i < 3000; i++) deep = [deep];
    const res = await stack.request('POST', '/v1/quotes', {
      key: t.secret_key,
      body: { origin: deep },
      headers: { 'idempotency-key': 'deep' },
    });
    stack.expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors[0]).toMatchObject({ code: 'too_deep' });
  });
  it('NUL characters and unpaired surrogates in text or keys: 422', async () => {
    const t = await stack.tenant();
    for (const body of ['{"origin":{"city":"Lu\\u0000anda"}}', '{"origin":{"city":"\\ud800"}}', '{"\\ud800":1}']) {
      const res = await stack.request('POST', '/v1/quotes', { key: t.secret_key, body });
      stack.expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors[0].code).toBe('invalid_string');
    }
  });
  it('a wrong type is not reported as missing', async () => {
    const t = await stack.tenant();
    const res = await stack.request('POST', '/v1/quotes', { key: t.secret_key, body: [] });
    stack.expectProblem(res, 422, 'validation_failed');
    expect(res.body.detail).not.toMatch(/required/);
  });
  it('a bad percent-escape, an over-long path id and oversized headers are problem+json', async () => {
    stack.expectProblem(await stack.request('GET', '/v1/deliveries/%C0%AF/tracking'), 400, 'invalid_url');
    stack.expectProblem(await stack.request('GET', `/v1/deliveries/${'a'.repeat(300)}/tracking`), 404, 'not_found');
    const big = await stack.request('GET', '/healthz', { headers: { 'x-filler': 'x'.repeat(20_000) } });
    expect(big.status).toBe(431);
    expect(big.headers.get('content-type')).toBe('application/problem+json');
    expect(big.body.error).toBe('headers_too_large');
  });
});
