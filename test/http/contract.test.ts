// The contract as a generated client sees it (issue 15, items 1 and 2), on the real stack: the served OpenAPI
// document carries formats and enums (timestamps date-time, URLs uri, ids uuid; statuses, event types, payment
// methods and error codes as enums), names each schema once, and lists every error code; error bodies use only
// those codes, validation errors our own field codes (never zod's), and quote_payload_mismatch names the part.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, FIELD_ERROR_CODES } from '../../src/http/problem.js';
import { signFleetEvent, type CompanyConfig, type Simulator } from '../../simulator/server.js';
import { EVENT_TYPES, PAYMENT_METHODS, STATUSES } from '../../shared/deliveries/vocabulary.js';
import {
  DESTINATION,
  ORIGIN,
  PARCEL,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let company: CompanyConfig;
let doc: any;
beforeAll(async () => {
  [stack, sim] = await Promise.all([startStack(), startSimulator()]);
  company = simCompany();
  m = await merchantWith(stack, sim, [company]);
  doc = (await stack.request('GET', '/v1/openapi.json')).body;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const key = () => m.tenant.secret_key;

/** Every property schema of the document's components, by name: `[name, schema]` for each string branch. */
function properties(): [string, string, any][] {
  const out: [string, string, any][] = [];
  const visit = (where: string, schema: any) => {
    if (!schema || typeof schema !== 'object') return;
    for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
      // A nullable property is anyOf [its schema, null]: the name applies to each branch.
      for (const branch of prop.anyOf ?? [prop])
        if (branch.type === 'string') out.push([`${where}.${name}`, name, branch]);
      visit(`${where}.${name}`, prop);
      for (const branch of prop.anyOf ?? []) visit(`${where}.${name}`, branch);
    }
    if (schema.items) visit(`${where}[]`, schema.items);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas)) visit(name, schema);
  return out;
}

describe('the OpenAPI document', () => {
  it('documents every timestamp as date-time, every URL as uri, every id as uuid', () => {
    const props = properties();
    const wrong = props.flatMap(([where, name, schema]) => {
      if (/(_at|_until)$/.test(name) && schema.format !== 'date-time')
        return [`${where}: ${schema.format} (date-time)`];
      if (/(^|_)url$/.test(name) && schema.format !== 'uri') return [`${where}: ${schema.format} (uri)`];
      // message_id is the webhook-id (msg_<event id>), not a uuid; sender_id is an SMS sender (docs/recipients.md).
      if (/(^|_)id$/.test(name) && !/^(message_id|(effective_)?sender_id)$/.test(name) && schema.format !== 'uuid')
        return [`${where}: ${schema.format} (uuid)`];
      return [];
    });
    expect(wrong).toEqual([]);
    // Not vacuous: the walk reached the nullable and nested ones.
    const names = props.map(([where]) => where);
    expect(names).toEqual(
      expect.arrayContaining([
        'Delivery.sla_deadline_at',
        'DeliveryEvent.occurred_at',
        'WebhookEndpoint.secret_rotated_until',
      ]),
    );
    expect(names).toEqual(
      expect.arrayContaining(['Delivery.tracking_url', 'Courier.logo_url', 'Problem.type', 'WebhookAttempt.event_id']),
    );
  });

  it('has enums for statuses, event types, payment methods and error codes', () => {
    const enumOf = (where: string) => properties().find(([w]) => w === where)?.[2].enum;
    expect(enumOf('Delivery.status')).toEqual([...STATUSES]);
    expect(enumOf('TrackingView.events[].event_type')).toEqual([...EVENT_TYPES]);
    expect(enumOf('DeliveryEvent.event_type')).toEqual([...EVENT_TYPES]);
    expect(
      enumOf('WebhookEndpoint.events[]') ??
        doc.components.schemas.WebhookEndpoint.properties.events.anyOf[0].items.enum,
    ).toEqual([...EVENT_TYPES]);
    expect(enumOf('WebhookAttempt.event_type')).toEqual([...EVENT_TYPES]);
    expect(enumOf('Delivery.payment_method')).toEqual([...PAYMENT_METHODS]);
    expect(enumOf('Problem.error')).toEqual([...ERROR_CODES]);
    expect(enumOf('FieldError.code')).toEqual([...FIELD_ERROR_CODES]);
    const unenumerated = properties().filter(
      ([, name, s]) => /^(status|event_type|payment_method|error|code|trigger)$/.test(name) && !s.enum,
    );
    expect(unenumerated.map(([where]) => where).filter((w) => w !== 'WebhookAttempt.error')).toEqual([]);
  });

  it('names each schema once: no ...Input twin, and request bodies use the shared components', () => {
    expect(Object.keys(doc.components.schemas).filter((name) => name.endsWith('Input'))).toEqual([]);
    const quoteRequest = doc.paths['/v1/quotes'].post.requestBody.content['application/json'].schema;
    expect(quoteRequest).toEqual({ $ref: '#/components/schemas/QuoteRequest' });
    expect(doc.components.schemas.QuoteRequest.properties.origin).toEqual({ $ref: '#/components/schemas/Address' });
    expect(JSON.stringify(doc.paths['/v1/deliveries'].post.responses['201'])).toContain(
      '#/components/schemas/Delivery"',
    );
  });
});

/** The codes an error body carries are documented ones: `error` from ERROR_CODES, `errors[].code` from FIELD_ERROR_CODES. */
function expectDocumentedCodes(res: { status: number; body: any }) {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(ERROR_CODES).toContain(res.body.error);
  for (const e of res.body.errors ?? []) expect(FIELD_ERROR_CODES, JSON.stringify(e)).toContain(e.code);
}

describe('error codes', () => {
  it('every error body of a sample across statuses carries a documented code', async () => {
    const id = randomUUID();
    const answers = await Promise.all([
      stack.request('GET', '/v1/deliveries'), // 401
      stack.request('GET', `/v1/deliveries/${id}`, { key: key() }), // 404
      stack.request('GET', '/v1/nothing-here', { key: key() }), // 404 route
      stack.request('POST', '/v1/quotes', {
        key: key(),
        body: '{"origin":',
        headers: { 'content-type': 'application/json' },
      }), // 400
      stack.request('POST', '/v1/quotes', { key: key(), body: 'hi', headers: { 'content-type': 'text/plain' } }), // 415
      stack.request('POST', '/v1/quotes', { key: key(), body: {} }), // 422
      stack.request('POST', '/v1/deliveries', { key: key(), body: { ...quoteBody() } }), // 422 quote_id_required
      stack.request('POST', '/v1/deliveries', { key: key(), body: { quote_id: randomUUID(), ...quoteBody() } }), // 422 quote_not_found
      stack.request('GET', '/v1/deliveries?status=lost', { key: key() }), // 422 query
    ]);
    expect(answers.map((r) => r.status)).toEqual([401, 404, 404, 400, 415, 422, 422, 422, 422]);
    for (const res of answers) expectDocumentedCodes(res);
  });

  /** POST a body and return its field errors as `pointer code` (or `parameter code`) lines. */
  async function fieldCodes(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const res = await stack.request(method, url, { key: key(), body, headers });
    stack.expectProblem(res, 422, 'validation_failed');
    expectDocumentedCodes(res);
    return (res.body.errors as { pointer?: string; parameter?: string; code: string }[]).map(
      (e) => `${e.pointer ?? e.parameter} ${e.code}`,
    );
  }
  const parcel = (change: Record<string, unknown>) => ({ ...quoteBody(), parcel: { ...PARCEL, ...change } });
  const delivery = (change: Record<string, unknown>) => ({ quote_id: randomUUID(), ...quoteBody(), ...change });

  it('missing, wrong type, too small, too large', async () => {
    expect(await fieldCodes('POST', '/v1/quotes', { origin: ORIGIN, destination: DESTINATION })).toEqual([
      '/parcel required',
    ]);
    expect(await fieldCodes('POST', '/v1/quotes', parcel({ weight_grams: 'heavy' }))).toEqual([
      '/parcel/weight_grams invalid_type',
    ]);
    expect(await fieldCodes('POST', '/v1/quotes', parcel({ weight_grams: 0 }))).toEqual([
      '/parcel/weight_grams too_small',
    ]);
    expect(await fieldCodes('POST', '/v1/quotes', parcel({ weight_grams: 2_000_000 }))).toEqual([
      '/parcel/weight_grams too_large',
    ]);
    expect(await fieldCodes('POST', '/v1/quotes', { ...quoteBody(), origin: { ...ORIGIN, city: '' } })).toEqual([
      '/origin/city too_small',
    ]);
    expect(await fieldCodes('GET', '/v1/deliveries?limit=0')).toEqual(['limit too_small']);
  });

  it('bad enum and bad format', async () => {
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ payment_method: 'barter' }))).toEqual([
      '/payment_method invalid_enum',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ company_id: 'acme' }))).toEqual([
      '/company_id invalid_format',
    ]);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ scheduled_pickup_at: 'tomorrow' }))).toEqual([
      '/scheduled_pickup_at invalid_format',
    ]);
    expect(await fieldCodes('GET', '/v1/deliveries?status=lost')).toEqual(['status invalid_enum']);
    expect(
      await fieldCodes('POST', '/v1/webhook_endpoints', {
        url: 'https://hooks.shop.test/x',
        events: ['delivery.teleported'],
      }),
    ).toEqual(['/events/0 invalid_enum']);
  });

  it('refinements use our codes, never custom', async () => {
    expect(
      await fieldCodes('POST', '/v1/deliveries', delivery({ payment_method: 'prepaid', cash_collect_aoa: 500 })),
    ).toEqual(['/cash_collect_aoa not_allowed']);
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ payment_method: 'cod' }))).toEqual([
      '/cash_collect_aoa required',
    ]);
    expect(
      await fieldCodes(
        'POST',
        '/v1/deliveries',
        delivery({ scheduled_pickup_at: '2030-01-02T10:00:00Z', scheduled_delivery_at: '2030-01-01T10:00:00Z' }),
      ),
    ).toEqual(['/scheduled_delivery_at invalid']);
    const metadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect(await fieldCodes('POST', '/v1/deliveries', delivery({ options: { metadata } }))).toEqual([
      '/options/metadata too_large',
    ]);
    expect(await fieldCodes('POST', '/v1/webhook_endpoints', { url: 'https://hooks.shop.test/x', events: [] })).toEqual(
      ['/events too_small'],
    );
  });

  it('a value no member of a union takes (fleet event pin) is invalid_type, not invalid_union', async () => {
    const raw = JSON.stringify({
      tracking_ref: 'TRK-1',
      event_type: 'delivered',
      occurred_at: new Date().toISOString(),
      payload: { pin: { digits: 1234 } },
    });
    const headers = {
      'content-type': 'application/json',
      ...signFleetEvent(company.fleet_secret, raw, `msg_${randomUUID()}`),
    };
    const res = await stack.request('POST', `/v1/fleet/${company.slug}/events`, { body: raw, headers });
    stack.expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/payload/pin', code: 'invalid_type' })]);
  });
});

describe('quote_payload_mismatch names the part that differs', () => {
  const mismatch = async (body: Record<string, unknown>) => {
    const q = await quote(stack, m);
    const res = await stack.request('POST', '/v1/deliveries', {
      key: key(),
      body: { quote_id: q.quote_id, ...quoteBody(), ...body },
    });
    stack.expectProblem(res, 422, 'quote_payload_mismatch');
    return res.body.errors.map((e: { pointer: string; code: string }) => `${e.pointer} ${e.code}`);
  };

  it('origin', async () => {
    expect(await mismatch({ origin: { ...ORIGIN, city: 'Benguela' } })).toEqual(['/origin quote_payload_mismatch']);
  });
  it('destination', async () => {
    expect(await mismatch({ destination: { ...DESTINATION, address_line: 'Rua 2' } })).toEqual([
      '/destination quote_payload_mismatch',
    ]);
  });
  it('parcel', async () => {
    expect(await mismatch({ parcel: { ...PARCEL, weight_grams: 5000 } })).toEqual(['/parcel quote_payload_mismatch']);
  });
  it('two parts at once: both, in order', async () => {
    expect(
      await mismatch({ origin: { ...ORIGIN, province: 'Huíla' }, parcel: { ...PARCEL, description: 'Livros' } }),
    ).toEqual(['/origin quote_payload_mismatch', '/parcel quote_payload_mismatch']);
  });
  it('whitespace the schema trims is no difference', async () => {
    const q = await quote(stack, m);
    const res = await stack.request('POST', '/v1/deliveries', {
      key: key(),
      body: { quote_id: q.quote_id, ...quoteBody(), origin: { ...ORIGIN, city: '  Luanda ' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
