// The widget surface's secrets and terms, on the real stack: the delivery PIN, contacts and metadata only come back
// to a browser that presents the delivery's client secret (shown once, stored as a hash, never in the idempotency
// table), and a publishable key's payment policy decides which payment methods and cod amounts the browser may choose.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import type { Simulator } from '../../simulator/server.js';
import {
  DESTINATION,
  ORIGIN,
  PARCEL,
  createDeliveryFor,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';
const OTHER_SHOP = 'http://other-shop.test';

let stack: Stack;
let sim: Simulator;
let a: Merchant; // its courier requires a PIN
let b: Merchant; // another tenant

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack();
  a = await merchantWith(stack, sim, [simCompany({ require_delivery_pin: true })], [], [SHOP]);
  b = await merchantWith(stack, sim, [simCompany()], [], [OTHER_SHOP]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const widget = (m: Merchant, extra: Record<string, string> = {}) => ({
  key: m.tenant.publishable_key,
  headers: { origin: m === a ? SHOP : OTHER_SHOP, ...extra },
});

const expectProblem = (res: { status: number; headers: Headers; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.error).toBe(code);
};

/** Quote with the secret key, then create through the widget. */
async function widgetCreate(m: Merchant, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const q = await quote(stack, m);
  return stack.request('POST', '/v1/widget/deliveries', {
    ...widget(m, headers),
    body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
  });
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const secretPath = (id: string, secret: string) =>
  `/v1/widget/deliveries/${id}?client_secret=${encodeURIComponent(secret)}`;

describe('the PIN never leaves the client secret', () => {
  let created: any;
  beforeAll(async () => {
    const res = await widgetCreate(a, { options: { metadata: { order_id: 'META-MARKER-1' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    created = res.body;
  });

  it('the creation answer carries the PIN and a client secret, of which only a hash is stored', async () => {
    expect(created.delivery_pin).toMatch(/^\d{4}$/);
    expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_[0-9A-Za-z]{32}$`));
    const { rows } = await stack.pool.query(
      'SELECT client_secret_hash, row_to_json(d)::text AS everything FROM deliveries d WHERE id = $1',
      [created.id],
    );
    expect(Buffer.compare(rows[0].client_secret_hash, sha256(created.client_secret))).toBe(0);
    expect(rows[0].everything).not.toContain(created.client_secret.split('_secret_')[1]);
  });

  it('the publishable key alone reads no PIN, contacts nor metadata; events and status are there', async () => {
    const res = await stack.request('GET', `/v1/widget/deliveries/${created.id}`, widget(a));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      reference: created.reference,
      status: expect.any(String),
      tracking_url: created.tracking_url,
    });
    expect(res.body.events[0]).toEqual({
      id: expect.any(String),
      event_type: 'delivery.created',
      occurred_at: expect.any(String),
    });
    for (const hidden of ['delivery_pin', 'metadata', 'cash_collect_aoa', 'sla_deadline_at'])
      expect(res.body).not.toHaveProperty(hidden);
    const text = JSON.stringify(res.body);
    for (const secret of [
      DESTINATION.contact.phone,
      ORIGIN.contact.phone,
      DESTINATION.contact.name,
      'META-MARKER-1',
      created.client_secret,
    ])
      expect(text).not.toContain(secret);
  });

  it('the publishable key alone reads the city and province of each address, not its street, point or contact (#27)', async () => {
    const res = await stack.request('GET', `/v1/widget/deliveries/${created.id}`, widget(a));
    expect(res.status).toBe(200);
    expect(res.body.origin).toEqual({ city: ORIGIN.city, province: ORIGIN.province });
    expect(res.body.destination).toEqual({ city: DESTINATION.city, province: DESTINATION.province });
    // The parcel keeps its size; what it holds and what it is worth stay with the client secret.
    expect(res.body.parcel).toEqual({
      weight_grams: PARCEL.weight_grams,
      length_cm: PARCEL.length_cm,
      width_cm: PARCEL.width_cm,
      height_cm: PARCEL.height_cm,
    });
    const text = JSON.stringify(res.body);
    for (const hidden of [
      DESTINATION.address_line,
      ORIGIN.address_line,
      String(DESTINATION.coordinates.lat),
      String(ORIGIN.coordinates.lng),
      PARCEL.description,
    ])
      expect(text).not.toContain(hidden);
  });

  it('with its client secret the widget gets the PIN, the contacts and the metadata', async () => {
    const res = await stack.request('GET', secretPath(created.id, created.client_secret), widget(a));
    expect(res.status).toBe(200);
    expect(res.body.delivery_pin).toBe(created.delivery_pin);
    expect(res.body.metadata).toEqual({ order_id: 'META-MARKER-1', source: 'widget' });
    expect(res.body.destination).toEqual(DESTINATION);
    expect(res.body.origin).toEqual(ORIGIN);
    expect(res.body.parcel).toEqual(PARCEL);
    expect(res.body).not.toHaveProperty('client_secret');
  });

  it('a wrong client secret is 404, whoever it belongs to; a malformed one is 422', async () => {
    const other = (await widgetCreate(a)).body;
    const byMerchant = await createDeliveryFor(stack, a);
    const forged = `${created.id}_secret_${'A'.repeat(32)}`;
    for (const [id, secret] of [
      [created.id, forged],
      [created.id, other.client_secret], // another delivery's secret
      [created.id, created.client_secret.slice(0, -1)],
      [created.id, created.id],
      [byMerchant.id, `${byMerchant.id}_secret_${'A'.repeat(32)}`], // a merchant delivery has no client secret
    ]) {
      const res = await stack.request('GET', secretPath(id, secret), widget(a));
      expectProblem(res, 404, 'not_found');
      expect(res.body).not.toHaveProperty('delivery_pin');
    }
    // Another tenant's key with the right secret: 404 as without it.
    expectProblem(
      await stack.request('GET', secretPath(created.id, created.client_secret), widget(b)),
      404,
      'not_found',
    );
    const long = await stack.request('GET', secretPath(created.id, 'x'.repeat(201)), widget(a));
    expectProblem(long, 422, 'validation_failed');
    expect(long.body.errors).toContainEqual(expect.objectContaining({ parameter: 'client_secret' }));
    // A delivery the merchant created reads trimmed through the widget.
    const trimmed = await stack.request('GET', `/v1/widget/deliveries/${byMerchant.id}`, widget(a));
    expect(trimmed.status).toBe(200);
    expect(trimmed.body).not.toHaveProperty('delivery_pin');
  });

  it('never on the courier side: the merchant API still shows the PIN, the tracking view does not', async () => {
    const merchant = await stack.request('GET', `/v1/deliveries/${created.id}`, { key: a.tenant.secret_key });
    expect(merchant.body.delivery_pin).toBe(created.delivery_pin);
    const tracking = await stack.request('GET', `/v1/deliveries/${created.id}/tracking`);
    expect(tracking.status).toBe(200);
    expect(tracking.body).not.toHaveProperty('delivery_pin');
  });

  it('the OpenAPI document describes the client secret', async () => {
    const doc = (await stack.request('GET', '/v1/openapi.json')).body;
    const get = doc.paths['/v1/widget/deliveries/{id}'].get;
    expect(get.parameters).toContainEqual(expect.objectContaining({ name: 'client_secret', in: 'query' }));
    expect(JSON.stringify(doc.paths['/v1/widget/deliveries'].post.responses['201'])).toContain('WidgetCreatedDelivery');
    expect(doc.components.schemas.WidgetCreatedDelivery.properties).toHaveProperty('client_secret');
    // The trimmed read: an address of city and province only is valid, and the example shows one.
    const widgetAddress = doc.components.schemas.WidgetAddress;
    expect(widgetAddress.required).toEqual(expect.arrayContaining(['city', 'province']));
    expect(widgetAddress.required ?? []).not.toContain('address_line');
    const example = doc.components.schemas.WidgetDelivery.examples[0];
    expect(example.destination).toEqual({ city: expect.any(String), province: expect.any(String) });
  });
});

describe('idempotent replays do not reveal a client secret', () => {
  it('a replay answers the first delivery without client_secret; no secret sits in the idempotency table', async () => {
    const key = randomUUID();
    const q = await quote(stack, a);
    const body = { quote_id: q.quote_id, ...quoteBody() };
    const first = await stack.request('POST', '/v1/widget/deliveries', {
      ...widget(a, { 'idempotency-key': key }),
      body,
    });
    expect(first.status).toBe(201);
    expect(first.body.client_secret).toMatch(/_secret_/);
    const { rows } = await stack.pool.query(
      'SELECT response_body::text AS stored FROM idempotency_keys WHERE idempotency_key = $1',
      [key],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].stored).toContain(first.body.id);
    expect(rows[0].stored).not.toContain(first.body.client_secret.split('_secret_')[1]);

    const replay = await stack.request('POST', '/v1/widget/deliveries', {
      ...widget(a, { 'idempotency-key': key }),
      body,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.delivery_pin).toBe(first.body.delivery_pin);
    expect(replay.body).not.toHaveProperty('client_secret');

    // The first attempt committed but its record is gone (a crash before answering): the retry finds the same
    // delivery, shows no new secret, and the first secret still works.
    await stack.pool.query('DELETE FROM idempotency_keys WHERE idempotency_key = $1', [key]);
    const retry = await stack.request('POST', '/v1/widget/deliveries', {
      ...widget(a, { 'idempotency-key': key }),
      body,
    });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.body).not.toHaveProperty('client_secret');
    const read = await stack.request('GET', secretPath(first.body.id, first.body.client_secret), widget(a));
    expect(read.status).toBe(200);
    expect(read.body.delivery_pin).toBe(first.body.delivery_pin);
  });
});

// --- Payment terms ---------------------------------------------------------------------------------

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function admin(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT_DIR, 'src', 'cli', 'index.ts'), ...args],
      { cwd: ROOT_DIR, env: { ...process.env, DATABASE_URL: inject('databaseUrl') }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('cash_collect_aoa only with cod, on every surface', () => {
  it.each(['prepaid', 'bank_transfer', undefined])(
    'payment_method %s with an amount: 422 /cash_collect_aoa',
    async (method) => {
      const extra = { ...(method ? { payment_method: method } : {}), cash_collect_aoa: 100_000 };
      const q = await quote(stack, a);
      const merchant = await stack.request('POST', '/v1/deliveries', {
        key: a.tenant.secret_key,
        body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
      });
      expectProblem(merchant, 422, 'validation_failed');
      expect(merchant.body.errors).toContainEqual(expect.objectContaining({ pointer: '/cash_collect_aoa' }));
      const viaWidget = await stack.request('POST', '/v1/widget/deliveries', {
        ...widget(a),
        body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
      });
      expectProblem(viaWidget, 422, 'validation_failed');
      expect(viaWidget.body.errors).toContainEqual(expect.objectContaining({ pointer: '/cash_collect_aoa' }));
    },
  );

  it('null is fine with any method', async () => {
    expect((await widgetCreate(a, { payment_method: 'bank_transfer', cash_collect_aoa: null })).status).toBe(201);
    const d = await createDeliveryFor(stack, a, { payment_method: 'prepaid', cash_collect_aoa: null });
    expect(d.cash_collect_aoa).toBeNull();
  });
});

describe('a publishable key decides the payment methods its widget may book', () => {
  it('by default prepaid and bank_transfer; cod is 422 payment_method_not_allowed at /payment_method', async () => {
    const m = await merchantWith(stack, sim, [simCompany()], [], [OTHER_SHOP]);
    const as = (extra: Record<string, unknown>) =>
      stack.request('POST', '/v1/widget/deliveries', {
        key: m.tenant.publishable_key,
        headers: { origin: OTHER_SHOP },
        body: extra,
      });
    for (const method of [undefined, 'prepaid', 'bank_transfer']) {
      const q = await quote(stack, m);
      const res = await as({ quote_id: q.quote_id, ...quoteBody(), ...(method ? { payment_method: method } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const q = await quote(stack, m);
    const cod = await as({ quote_id: q.quote_id, ...quoteBody(), payment_method: 'cod', cash_collect_aoa: 1 });
    expectProblem(cod, 422, 'payment_method_not_allowed');
    expect(cod.body.errors).toEqual([
      expect.objectContaining({ pointer: '/payment_method', code: 'payment_method_not_allowed' }),
    ]);
    // The quote is still unused: the merchant can book it.
    expect(
      (
        await stack.request('POST', '/v1/deliveries', {
          key: m.tenant.secret_key,
          body: { quote_id: q.quote_id, ...quoteBody(), payment_method: 'cod', cash_collect_aoa: 1 },
        })
      ).status,
    ).toBe(201);
  });

  it('key policy allows cod with an amount above zero from the widget, and refuses what it leaves out', async () => {
    const m = await merchantWith(stack, sim, [simCompany()], [], [OTHER_SHOP]);
    const run = await admin(
      'key',
      'policy',
      '--key',
      m.tenant.publishable_key_id,
      '--payment-methods',
      'prepaid,cod',
      '--json',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      key_id: m.tenant.publishable_key_id,
      payment_methods: ['prepaid', 'cod'],
      cod_amount_aoa: null,
    });
    const as = async (extra: Record<string, unknown>) => {
      const q = await quote(stack, m);
      return stack.request('POST', '/v1/widget/deliveries', {
        key: m.tenant.publishable_key,
        headers: { origin: OTHER_SHOP },
        body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
      });
    };
    expectProblem(await as({ payment_method: 'bank_transfer' }), 422, 'payment_method_not_allowed');
    for (const amount of [0, null]) {
      const res = await as({ payment_method: 'cod', cash_collect_aoa: amount });
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/cash_collect_aoa' })]);
    }
    const ok = await as({ payment_method: 'cod', cash_collect_aoa: 250_000 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({ payment_method: 'cod', cash_collect_aoa: 250_000, status: 'pending' });
  });

  it('key policy --cod-amount-aoa: the merchant fixes the amount; the widget may repeat it or leave it out', async () => {
    const m = await merchantWith(stack, sim, [simCompany()], [], [OTHER_SHOP]);
    const run = await admin(
      'key',
      'policy',
      '--key',
      m.tenant.publishable_key_id,
      '--payment-methods',
      'cod',
      '--cod-amount-aoa',
      '120000',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ payment_methods: ['cod'], cod_amount_aoa: 120_000 });
    const as = async (extra: Record<string, unknown>) => {
      const q = await quote(stack, m);
      return stack.request('POST', '/v1/widget/deliveries', {
        key: m.tenant.publishable_key,
        headers: { origin: OTHER_SHOP },
        body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
      });
    };
    const absent = await as({ payment_method: 'cod' });
    expect(absent.status, JSON.stringify(absent.body)).toBe(201);
    expect(absent.body.cash_collect_aoa).toBe(120_000);
    const stored = await stack.request('GET', `/v1/deliveries/${absent.body.id}`, { key: m.tenant.secret_key });
    expect(stored.body.cash_collect_aoa).toBe(120_000);
    expect((await as({ payment_method: 'cod', cash_collect_aoa: 120_000 })).status).toBe(201);
    const other = await as({ payment_method: 'cod', cash_collect_aoa: 1 });
    expectProblem(other, 422, 'validation_failed');
    expect(other.body.errors).toEqual([
      expect.objectContaining({ pointer: '/cash_collect_aoa', code: 'cash_collect_aoa_mismatch' }),
    ]);
    expectProblem(await as({}), 422, 'payment_method_not_allowed'); // prepaid, the default method, is not in the policy
  });

  it('key policy refuses unknown methods, a cod amount without cod, and a key that is not publishable (exit 2)', async () => {
    const m = await merchantWith(stack, sim, [simCompany()], [], [OTHER_SHOP]);
    const runs = await Promise.all([
      admin('key', 'policy', '--key', m.tenant.publishable_key_id, '--payment-methods', 'prepaid,cheque'),
      admin(
        'key',
        'policy',
        '--key',
        m.tenant.publishable_key_id,
        '--payment-methods',
        'prepaid',
        '--cod-amount-aoa',
        '100',
      ),
      admin('key', 'policy', '--key', m.tenant.secret_key_id, '--payment-methods', 'prepaid'),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(runs[2].stderr).toContain('No such publishable key');
    const { rows } = await stack.pool.query('SELECT widget_payment_methods FROM api_keys WHERE id = $1', [
      m.tenant.publishable_key_id,
    ]);
    expect(rows[0].widget_payment_methods).toBeNull();
  });
});
