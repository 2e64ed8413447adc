// Strict requests and safe dates (#27), on the real stack: a field the contract does not name is refused (422
// validation_failed, one `unknown_field` item per field) on every surface instead of being dropped, so a misspelled
// `payment_method` can never book a prepaid delivery; a date-time outside 1970-01-01 .. 9999-12-31 UTC is 422
// `out_of_range` and changes nothing; the SLA deadline of a far-future pickup is capped, so every read of it
// answers; and the database refuses such dates itself.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signFleetEvent, type Simulator } from '../../simulator/server.js';
import {
  createDeliveryFor,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  waitFor,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let fleetSecret: string;

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack();
  const company = simCompany();
  fleetSecret = company.fleet_secret;
  m = await merchantWith(stack, sim, [company], [], [SHOP]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const secret = () => ({ key: m.tenant.secret_key });
const widget = () => ({ key: m.tenant.publishable_key, headers: { origin: SHOP } });
const deliveryCount = async () =>
  Number(
    (
      await stack.pool.query<{ n: string }>('SELECT count(*) AS n FROM deliveries WHERE tenant_id = $1', [
        m.tenant.tenant_id,
      ])
    ).rows[0].n,
  );

type Res = { status: number; headers: Headers; body: any };
/** A 422 validation_failed whose errors[] holds exactly these items (code and pointer or parameter), in any order. */
function expectFieldErrors(res: Res, items: { pointer?: string; parameter?: string; code: string }[]) {
  stack.expectProblem(res, 422, 'validation_failed');
  const got = (res.body.errors as { pointer?: string; parameter?: string; code: string }[]).map(
    ({ pointer, parameter, code }) => ({
      ...(pointer !== undefined ? { pointer } : {}),
      ...(parameter !== undefined ? { parameter } : {}),
      code,
    }),
  );
  expect(got).toEqual(expect.arrayContaining(items));
  expect(got).toHaveLength(items.length);
}

describe('unknown fields are refused, never dropped', () => {
  it('a misspelled payment_method books nothing: 422 unknown_field at its pointer, one item per field, nested too', async () => {
    const before = await deliveryCount();
    const q = await quote(stack, m);
    const body = { quote_id: q.quote_id, ...quoteBody(), payment_methd: 'cod', cash_colect_aoa: 500_000 };
    body.origin = { ...body.origin, floor: '3' } as typeof body.origin;
    const res = await stack.request('POST', '/v1/deliveries', { ...secret(), body });
    expectFieldErrors(res, [
      { pointer: '/payment_methd', code: 'unknown_field' },
      { pointer: '/cash_colect_aoa', code: 'unknown_field' },
      { pointer: '/origin/floor', code: 'unknown_field' },
    ]);
    expect(await deliveryCount()).toBe(before);
    // The quote was not used up: the corrected request books with it.
    const ok = await stack.request('POST', '/v1/deliveries', {
      ...secret(),
      body: { quote_id: q.quote_id, ...quoteBody(), payment_method: 'cod', cash_collect_aoa: 500_000 },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.payment_method).toBe('cod');
  });

  it('options.metadata stays free-form, but options itself is strict', async () => {
    const created = await createDeliveryFor(stack, m, {
      options: { metadata: { anything: { nested: [1, 2] }, order: 'A-1' } },
    });
    expect(created.metadata).toMatchObject({ anything: { nested: [1, 2] }, order: 'A-1' });
    const q = await quote(stack, m);
    const res = await stack.request('POST', '/v1/deliveries', {
      ...secret(),
      body: { quote_id: q.quote_id, ...quoteBody(), options: { metdata: {} } },
    });
    expectFieldErrors(res, [{ pointer: '/options/metdata', code: 'unknown_field' }]);
  });

  it('quotes, the widget, webhook endpoints and the dashboard sign-in refuse unknown body fields', async () => {
    const quoteRes = await stack.request('POST', '/v1/quotes', {
      ...secret(),
      body: { ...quoteBody(), speed: 'fast', parcel: { ...quoteBody().parcel, colour: 'red' } },
    });
    expectFieldErrors(quoteRes, [
      { pointer: '/speed', code: 'unknown_field' },
      { pointer: '/parcel/colour', code: 'unknown_field' },
    ]);
    const q = await quote(stack, m);
    const before = await deliveryCount();
    const widgetRes = await stack.request('POST', '/v1/widget/deliveries', {
      ...widget(),
      body: { quote_id: q.quote_id, ...quoteBody(), payment_methd: 'cod' },
    });
    expectFieldErrors(widgetRes, [{ pointer: '/payment_methd', code: 'unknown_field' }]);
    expect(await deliveryCount()).toBe(before);
    const endpoint = await stack.request('POST', '/v1/webhook_endpoints', {
      ...secret(),
      body: { url: 'https://hooks.example.ao/x', event: ['delivery.created'] },
    });
    expectFieldErrors(endpoint, [{ pointer: '/event', code: 'unknown_field' }]);
    const signIn = await stack.request('POST', '/dashboard/api/session', {
      body: { email: 'nobody@example.ao', password: 'x'.repeat(12), remember_me: true },
      headers: { origin: stack.url },
    });
    expectFieldErrors(signIn, [{ pointer: '/remember_me', code: 'unknown_field' }]);
  });

  it('a route that takes no body refuses one with fields', async () => {
    const created = await createDeliveryFor(stack, m);
    const res = await stack.request('DELETE', `/v1/deliveries/${created.id}`, {
      ...secret(),
      body: { reason: 'changed my mind' },
    });
    expectFieldErrors(res, [{ pointer: '/reason', code: 'unknown_field' }]);
    expect((await stack.request('GET', `/v1/deliveries/${created.id}`, secret())).body.status).not.toBe('cancelled');
  });

  it('query strings: an unknown parameter is 422 with `parameter`, on list and single-object routes', async () => {
    const created = await createDeliveryFor(stack, m);
    expectFieldErrors(await stack.request('GET', '/v1/deliveries?limit=5&stauts=pending', secret()), [
      { parameter: 'stauts', code: 'unknown_field' },
    ]);
    expectFieldErrors(await stack.request('GET', `/v1/deliveries/${created.id}?expand=events`, secret()), [
      { parameter: 'expand', code: 'unknown_field' },
    ]);
    expectFieldErrors(
      await stack.request('GET', `/v1/widget/deliveries/${created.id}?client_secret=x&pin=1`, widget()),
      [{ parameter: 'pin', code: 'unknown_field' }],
    );
    // Every parameter the contract names still works.
    const list = await stack.request(
      'GET',
      '/v1/deliveries?status=pending,assigned&sort=inserted_at_asc&search=Luanda&limit=5&offset=0',
      secret(),
    );
    expect(list.status, JSON.stringify(list.body)).toBe(200);
  });

  it('fleet events: an unknown top-level field is refused, the courier payload stays free-form', async () => {
    const created = await createDeliveryFor(stack, m);
    const assigned = await waitFor(stack, m.tenant.secret_key, created.id, (d) => Boolean(d.courier?.tracking_ref));
    const send = (body: object) => {
      const raw = JSON.stringify(body);
      return stack.request('POST', `/v1/fleet/${m.slug}/events`, {
        body: raw,
        headers: { 'content-type': 'application/json', ...signFleetEvent(fleetSecret, raw) },
      });
    };
    const base = {
      tracking_ref: assigned.courier.tracking_ref,
      event_type: 'pickup_ready',
      occurred_at: new Date().toISOString(),
    };
    expectFieldErrors(await send({ ...base, ignored: true }), [{ pointer: '/ignored', code: 'unknown_field' }]);
    const free = await send({ ...base, payload: { driver_name: 'Ana', truck_colour: 'blue' } });
    expect(free.status, JSON.stringify(free.body)).toBe(202);
  });

  it('the OpenAPI document says additionalProperties: false on every request object but free-form ones', async () => {
    const documents = [
      (await stack.request('GET', '/v1/openapi.json')).body,
      (await stack.request('GET', '/docs/platform.json')).body,
    ];
    let checked = 0;
    for (const doc of documents) {
      const schemas = doc.components?.schemas ?? {};
      const resolve = (s: any): any => (s?.$ref ? resolve(schemas[s.$ref.split('/').pop()]) : s);
      const walk = (s: any, where: string) => {
        s = resolve(s);
        if (!s || typeof s !== 'object') return;
        if (s.type === 'object' && s.properties) {
          checked++;
          expect(s.additionalProperties, where).toBe(false);
          for (const [name, child] of Object.entries(s.properties)) {
            if (`${where}/${name}` === 'receiveFleetEvent/payload') continue; // the courier's payload: free-form by design
            walk(child, `${where}/${name}`);
          }
        }
        for (const key of ['anyOf', 'oneOf', 'allOf']) for (const child of s[key] ?? []) walk(child, where);
        if (s.items) walk(s.items, `${where}/0`);
      };
      for (const ops of Object.values<any>(doc.paths)) {
        for (const op of Object.values<any>(ops)) {
          if (op?.requestBody) walk(op.requestBody.content['application/json'].schema, op.operationId);
        }
      }
      expect(JSON.stringify(doc)).not.toMatch(/unknown fields are ignored/i);
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe('dates outside 1970-01-01 .. 9999-12-31 UTC', () => {
  const OUT_OF_RANGE = ['9999-12-31T23:59:59-14:00', '0000-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z'];

  it('are 422 out_of_range on delivery creation (merchant and widget), and nothing is stored', async () => {
    const before = await deliveryCount();
    for (const at of OUT_OF_RANGE) {
      const q = await quote(stack, m);
      for (const field of ['scheduled_delivery_at', 'scheduled_pickup_at']) {
        const res = await stack.request('POST', '/v1/deliveries', {
          ...secret(),
          body: { quote_id: q.quote_id, ...quoteBody(), [field]: at },
        });
        expectFieldErrors(res, [{ pointer: `/${field}`, code: 'out_of_range' }]);
        const viaWidget = await stack.request('POST', '/v1/widget/deliveries', {
          ...widget(),
          body: { quote_id: q.quote_id, ...quoteBody(), [field]: at },
        });
        expectFieldErrors(viaWidget, [{ pointer: `/${field}`, code: 'out_of_range' }]);
      }
    }
    expect(await deliveryCount()).toBe(before);
  });

  it('the last instant of the range books, and a far-future pickup caps the SLA deadline: every read answers', async () => {
    const last = await createDeliveryFor(stack, m, { scheduled_delivery_at: '9999-12-31T23:59:59.999Z' });
    expect(last.sla_deadline_at).toBe('9999-12-31T23:59:59.999Z');
    const q = await quote(stack, m);
    const res = await stack.request('POST', '/v1/widget/deliveries', {
      ...widget(),
      body: { quote_id: q.quote_id, ...quoteBody(), scheduled_pickup_at: '9999-12-31T23:00:00Z' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { rows } = await stack.pool.query<{ sla: Date }>(
      'SELECT sla_deadline_at AS sla FROM deliveries WHERE id = $1',
      [res.body.id],
    );
    expect(rows[0].sla.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    for (const id of [last.id, res.body.id]) {
      const read = await stack.request('GET', `/v1/deliveries/${id}`, secret());
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect((await stack.request('GET', `/v1/widget/deliveries/${id}`, widget())).status).toBe(200);
    }
    expect((await stack.request('GET', '/v1/deliveries?limit=100', secret())).status).toBe(200);
  });

  it('are 422 in list filters, fleet events and webhook replay ranges', async () => {
    expectFieldErrors(await stack.request('GET', '/v1/deliveries?inserted_at_gte=0000-01-01T00:00:00Z', secret()), [
      { parameter: 'inserted_at_gte', code: 'out_of_range' },
    ]);
    expectFieldErrors(
      await stack.request(
        'GET',
        `/v1/deliveries?inserted_at_lte=${encodeURIComponent('9999-12-31T23:59:59-14:00')}`,
        secret(),
      ),
      [{ parameter: 'inserted_at_lte', code: 'out_of_range' }],
    );
    const raw = JSON.stringify({
      tracking_ref: `ref-${randomUUID()}`,
      event_type: 'assigned',
      occurred_at: '0000-01-01T00:00:00Z',
    });
    const fleet = await stack.request('POST', `/v1/fleet/${m.slug}/events`, {
      body: raw,
      headers: { 'content-type': 'application/json', ...signFleetEvent(fleetSecret, raw) },
    });
    expectFieldErrors(fleet, [{ pointer: '/occurred_at', code: 'out_of_range' }]);
    const endpoint = await stack.request('POST', '/v1/webhook_endpoints', {
      ...secret(),
      body: { url: `https://hooks.example.ao/${randomUUID()}` },
    });
    expect(endpoint.status).toBe(201);
    const replay = await stack.request('POST', `/v1/webhook_endpoints/${endpoint.body.id}/replay`, {
      ...secret(),
      body: { since: '0000-01-01T00:00:00Z', until: '9999-12-31T23:59:59-14:00' },
    });
    expectFieldErrors(replay, [
      { pointer: '/since', code: 'out_of_range' },
      { pointer: '/until', code: 'out_of_range' },
    ]);
  });

  it('the database refuses a delivery time outside the range itself', async () => {
    const created = await createDeliveryFor(stack, m);
    for (const column of ['scheduled_pickup_at', 'scheduled_delivery_at', 'sla_deadline_at']) {
      for (const at of ['10000-01-01T13:59:59Z', '0001-01-01T00:00:00Z']) {
        await expect(
          stack.pool.query(`UPDATE deliveries SET ${column} = $2 WHERE id = $1`, [created.id, at]),
        ).rejects.toMatchObject({ code: '23514' });
      }
    }
  });
});
