// How a request the contract refuses is answered (src/http/plugins/errors.ts, src/http/plugins/strict-requests.ts): 422
// validation_failed with one field error per problem, each with our documented code at its JSON Pointer (body) or
// parameter (query), never zod's own codes; a malformed path id is 404; Fastify's body errors are problems too.
// A bare Fastify app with only those plugins and the real schemas, called in-process (inject): no database.
import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateDeliveryBody, ListQuery } from '../../src/deliveries/schemas.js';
import { ApiError, FIELD_ERROR_CODES } from '../../src/http/problem.js';
import errorsPlugin from '../../src/http/plugins/errors.js';
import strictRequestsPlugin from '../../src/http/plugins/strict-requests.js';
import { IdParam } from '../../src/http/schemas.js';
import { CreateEndpointBody } from '../../src/webhooks/schemas.js';

const BASE = 'https://api.example.test';
let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  await app.register(errorsPlugin, { baseUrl: BASE });
  await app.register(strictRequestsPlugin);
  app.post('/v1/deliveries', { schema: { body: CreateDeliveryBody } }, async () => ({ ok: true }));
  app.get('/v1/deliveries', { schema: { querystring: ListQuery } }, async () => ({ ok: true }));
  app.get('/v1/deliveries/:id', { schema: { params: IdParam } }, async () => ({ ok: true }));
  app.post('/v1/webhook_endpoints', { schema: { body: CreateEndpointBody } }, async () => ({ ok: true }));
  app.post('/v1/deliveries/:id/cancel', { schema: { params: IdParam } }, async () => ({ ok: true })); // no body schema
  app.get('/v1/couriers', async () => ({ ok: true })); // no query schema
  app.get('/v1/conflict', async () => {
    throw new ApiError(
      409,
      'delivery_not_cancellable',
      'Too late.',
      undefined,
      { 'retry-after': '3' },
      {
        current_status: 'delivered',
      },
    );
  });
  app.get('/v1/boom', async () => {
    throw new Error('SELECT secret FROM somewhere');
  });
  await app.ready();
});
afterAll(() => app?.close());

const origin = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const delivery = (change: Record<string, unknown> = {}) => ({
  quote_id: randomUUID(),
  origin,
  destination: { ...origin, city: 'Viana' },
  parcel: { weight_grams: 2500 },
  ...change,
});

async function call(method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await app.inject({ method, url, payload: payload as object });
  return { status: res.statusCode, type: res.headers['content-type'], headers: res.headers, body: res.json() };
}

/** The field errors of a 422 as `pointer code` (or `parameter code`) lines. */
async function fieldCodes(method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await call(method, url, payload);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toMatchObject({ error: 'validation_failed', type: `${BASE}/errors/validation_failed` });
  for (const e of res.body.errors) expect(FIELD_ERROR_CODES).toContain(e.code);
  return (res.body.errors as { pointer?: string; parameter?: string; code: string }[]).map(
    (e) => `${e.pointer ?? e.parameter} ${e.code}`,
  );
}

describe('validation errors carry our field codes', () => {
  it('a valid body passes', async () => {
    expect((await call('POST', '/v1/deliveries', delivery())).status).toBe(200);
  });

  it('unknown fields: one unknown_field per field at its own pointer, nested ones too, ~ and / escaped', async () => {
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ payment_methd: 'cod', colour: 'red' }))).toEqual([
      '/payment_methd unknown_field',
      '/colour unknown_field',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ origin: { ...origin, floor: 3 } }))).toEqual([
      '/origin/floor unknown_field',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ 'a/b~c': 1 }))).toEqual(['/a~1b~0c unknown_field']);
    expect(await fieldCodes('GET', '/v1/deliveries?page=2')).toEqual(['page unknown_field']);
  });

  it('routes without a body or query schema refuse any field or parameter (strict requests)', async () => {
    expect(await fieldCodes('POST', `/v1/deliveries/${randomUUID()}/cancel`, { reason: 'x' })).toEqual([
      '/reason unknown_field',
    ]);
    expect(await fieldCodes('GET', '/v1/couriers?limit=5')).toEqual(['limit unknown_field']);
    expect((await call('POST', `/v1/deliveries/${randomUUID()}/cancel`, {})).status).toBe(200);
  });

  it('missing, wrong type, too small, too large, bad enum, bad format', async () => {
    const { parcel: _parcel, ...noParcel } = delivery();
    expect(await fieldCodes('POST', '/v1/deliveries', noParcel)).toEqual(['/parcel required']);
    const parcel = (p: Record<string, unknown>) => delivery({ parcel: { weight_grams: 1, ...p } });
    expect(await fieldCodes('POST', '/v1/deliveries', parcel({ weight_grams: 'heavy' }))).toEqual([
      '/parcel/weight_grams invalid_type',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', parcel({ weight_grams: 0 }))).toEqual([
      '/parcel/weight_grams too_small',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', parcel({ weight_grams: 2_000_000 }))).toEqual([
      '/parcel/weight_grams too_large',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ payment_method: 'barter' }))).toEqual([
      '/payment_method invalid_enum',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ company_id: 'acme' }))).toEqual([
      '/company_id invalid_format',
    ]);
    expect(await fieldCodes('GET', '/v1/deliveries?status=lost')).toEqual(['status invalid_enum']);
    expect(await fieldCodes('GET', '/v1/deliveries?limit=0')).toEqual(['limit too_small']);
  });

  it('dates out of range are out_of_range; refinements name their own code, never custom', async () => {
    expect(
      await fieldCodes('POST', '/v1/deliveries', delivery({ scheduled_pickup_at: '1969-12-31T23:59:59Z' })),
    ).toEqual(['/scheduled_pickup_at out_of_range']);
    expect(await fieldCodes('GET', '/v1/deliveries?inserted_at_lte=10000-01-01T00:00:00Z')).toEqual([
      'inserted_at_lte invalid_format',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ payment_method: 'cod' }))).toEqual([
      '/cash_collect_aoa required',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ cash_collect_aoa: 5 }))).toEqual([
      '/cash_collect_aoa not_allowed',
    ]);
    expect(
      await fieldCodes(
        'POST',
        '/v1/deliveries',
        delivery({ scheduled_pickup_at: '2030-01-02T10:00:00Z', scheduled_delivery_at: '2030-01-01T10:00:00Z' }),
      ),
    ).toEqual(['/scheduled_delivery_at invalid']);
    expect(
      await fieldCodes('POST', '/v1/webhook_endpoints', { url: 'https://hooks.shop.test/x', events: ['x.y'] }),
    ).toEqual(['/events/0 invalid_enum']);
  });

  it('the query detail names the parameters; the body detail joins the field details', async () => {
    const query = await call('GET', '/v1/deliveries?status=lost&page=1');
    expect(query.body.detail).toMatch(/^Invalid query parameter: /);
    const body = await call('POST', '/v1/deliveries', delivery({ colour: 'red' }));
    expect(body.body.detail).toBe('colour is not a field of this request; check its spelling against the reference.');
  });
});

describe('other errors are problems too', () => {
  it('a malformed path id is 404 not_found, like an unknown one', async () => {
    expect(await call('GET', '/v1/deliveries/not-a-uuid')).toMatchObject({
      status: 404,
      type: 'application/problem+json; charset=utf-8',
      body: { error: 'not_found', title: 'Not found' },
    });
  });

  it('an unknown route is 404 naming it; malformed JSON 400; a form body 415', async () => {
    expect((await call('GET', '/v1/nothing')).body).toMatchObject({
      error: 'not_found',
      detail: 'No route GET /v1/nothing.',
    });
    const broken = await app.inject({
      method: 'POST',
      url: '/v1/deliveries',
      payload: '{"origin":',
      headers: { 'content-type': 'application/json' },
    });
    expect([broken.statusCode, broken.json().error]).toEqual([400, 'invalid_json']);
    const form = await app.inject({
      method: 'POST',
      url: '/v1/deliveries',
      payload: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([form.statusCode, form.json().error]).toEqual([415, 'unsupported_media_type']);
  });

  it('an ApiError keeps its status, headers and extensions', async () => {
    const res = await call('GET', '/v1/conflict');
    expect(res.status).toBe(409);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body).toEqual({
      type: `${BASE}/errors/delivery_not_cancellable`,
      title: 'Conflict',
      status: 409,
      detail: 'Too late.',
      error: 'delivery_not_cancellable',
      current_status: 'delivered',
    });
  });

  it('anything else is 500 internal_error without the internals', async () => {
    const res = await call('GET', '/v1/boom');
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('SELECT');
  });
});
