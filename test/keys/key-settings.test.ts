// Issue #31 item 5 on the real stack: a publishable key is readable whole at any time (GET /v1/api_keys, stored in
// api_keys.publishable_key; secret keys stay hash-only), and PATCH /v1/api_keys/{id} sets its widget payment rules,
// which POST /v1/widget/deliveries then applies. The sandbox: a developer, in test mode, from their own session, reads
// the test publishable key, creates a test secret key and sets the test key's origins and payment rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { dashboardSession, type SessionRequest } from '../helpers/dashboard-session.js';
import { quoteBody } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { quoteFrom } from '../helpers/test-mode.js';

const SHOP = 'http://shop.test';
const SANDBOX = 'http://localhost:5173';
const test = { 'dashboard-mode': 'test' };

let stack: Stack;
let t: CreatedTenant;
let owner: SessionRequest;
let developer: SessionRequest;

beforeAll(async () => {
  stack = await startStack();
  t = await stack.tenant([SHOP]);
  owner = (await dashboardSession(stack, t.tenant_id, 'owner')).request;
  developer = (await dashboardSession(stack, t.tenant_id, 'developer')).request;
}, 120_000);
afterAll(() => stack?.close());

const list = async (key: string) => {
  const res = await stack.request('GET', '/v1/api_keys?limit=100', { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as any[];
};
const patch = (who: SessionRequest, id: string, body: unknown, headers: Record<string, string> = {}) =>
  who('PATCH', `/v1/api_keys/${id}`, { body, headers });
const pointers = (res: { body: any }) => res.body.errors.map((e: any) => `${e.pointer} ${e.code}`);

describe('publishable keys readable at any time', () => {
  it('GET /v1/api_keys shows the whole publishable key, never a secret key; each mode its own', async () => {
    const live = await list(t.secret_key);
    const pk = live.find((k) => k.id === t.publishable_key_id);
    expect(pk).toMatchObject({ kind: 'publishable', livemode: true, publishable_key: t.publishable_key });
    expect(pk.widget_payment_methods).toEqual(['prepaid', 'bank_transfer']);
    expect(pk.widget_cod_amount_aoa).toBeNull();
    const sk = live.find((k) => k.id === t.secret_key_id);
    expect(sk).toMatchObject({ kind: 'secret', publishable_key: null, widget_payment_methods: null });
    expect(JSON.stringify(live)).not.toContain(t.secret_key);
    expect(JSON.stringify(live)).not.toContain(t.test_publishable_key);

    const testKeys = await list(t.test_secret_key);
    expect(testKeys.find((k) => k.id === t.test_publishable_key_id)?.publishable_key).toBe(t.test_publishable_key);
    expect(JSON.stringify(testKeys)).not.toContain(t.publishable_key);
    expect(JSON.stringify(testKeys)).not.toContain(t.test_secret_key);
    // Stored whole for publishable keys only; secret keys stay a hash.
    const { rows } = await stack.pool.query<{ kind: string; publishable_key: string | null }>(
      'SELECT kind, publishable_key FROM api_keys WHERE tenant_id = $1',
      [t.tenant_id],
    );
    for (const row of rows) expect(row.publishable_key === null).toBe(row.kind === 'secret');
  });

  it('a key created from the dashboard stays readable; one issued before the migration reads null', async () => {
    const created = await owner('POST', '/v1/api_keys', { body: { kind: 'publishable', allowed_origins: [SHOP] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.publishable_key).toBe(created.body.secret);
    const again = (await list(t.secret_key)).find((k) => k.id === created.body.id);
    expect(again.publishable_key).toBe(created.body.secret);
    const secret = await owner('POST', '/v1/api_keys', { body: { kind: 'secret' } });
    expect(secret.body.publishable_key).toBeNull();
    expect((await list(t.secret_key)).find((k) => k.id === secret.body.id).publishable_key).toBeNull();
    // A publishable key from before migration 1700000050100 has no stored key: null until rotated.
    await stack.pool.query('UPDATE api_keys SET publishable_key = NULL WHERE id = $1', [created.body.id]);
    expect((await list(t.secret_key)).find((k) => k.id === created.body.id).publishable_key).toBeNull();
    // The CHECK keeps secret keys hash-only.
    await expect(
      stack.pool.query("UPDATE api_keys SET publishable_key = 'sk_live_x' WHERE id = $1", [secret.body.id]),
    ).rejects.toThrow(/api_keys_publishable_key_kind/);
  });
});

describe('widget payment rules through PATCH /v1/api_keys/{id}', () => {
  it('an owner sets methods and a cod amount; dropping cod clears the amount; origins stay', async () => {
    const set = await patch(owner, t.publishable_key_id, {
      widget_payment_methods: ['cod', 'prepaid', 'cod'],
      widget_cod_amount_aoa: 1_500_000,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({
      widget_payment_methods: ['prepaid', 'cod'],
      widget_cod_amount_aoa: 1_500_000,
      allowed_origins: [SHOP],
      publishable_key: t.publishable_key,
    });
    const dropped = await patch(owner, t.publishable_key_id, { widget_payment_methods: ['bank_transfer'] });
    expect(dropped.body).toMatchObject({ widget_payment_methods: ['bank_transfer'], widget_cod_amount_aoa: null });
    const both = await patch(owner, t.publishable_key_id, {
      allowed_origins: [SHOP, 'https://www.shop.test'],
      widget_payment_methods: ['prepaid', 'cod'],
      widget_cod_amount_aoa: null,
    });
    expect(both.body).toMatchObject({
      allowed_origins: [SHOP, 'https://www.shop.test'],
      widget_payment_methods: ['prepaid', 'cod'],
      widget_cod_amount_aoa: null,
    });
    // The amount alone, against the stored methods (cod among them).
    const amount = await patch(owner, t.publishable_key_id, { widget_cod_amount_aoa: 250_000 });
    expect(amount.body).toMatchObject({ widget_payment_methods: ['prepaid', 'cod'], widget_cod_amount_aoa: 250_000 });
    expect((await list(t.secret_key)).find((k) => k.id === t.publishable_key_id)).toMatchObject(amount.body);
  });

  it('422 with pointers, nothing stored', async () => {
    const before = (await list(t.secret_key)).find((k) => k.id === t.publishable_key_id);
    const cases: [unknown, string[]][] = [
      [{}, [' required']],
      [{ widget_payment_methods: [] }, ['/widget_payment_methods too_small']],
      [{ widget_payment_methods: ['prepaid', 'cheque'] }, ['/widget_payment_methods/1 invalid_enum']],
      [{ widget_payment_methods: ['prepaid'], widget_cod_amount_aoa: 500 }, ['/widget_cod_amount_aoa not_allowed']],
      [{ widget_cod_amount_aoa: 0 }, ['/widget_cod_amount_aoa too_small']],
      [{ widget_cod_amount_aoa: 1.5 }, ['/widget_cod_amount_aoa invalid_type']],
      [{ widget_cod_amount_aoa: '1500' }, ['/widget_cod_amount_aoa invalid_type']],
      [{ widget_payment_methods: 'cod' }, ['/widget_payment_methods invalid_type']],
      [{ widget_rules: ['cod'] }, ['/widget_rules unknown_field']],
    ];
    for (const [body, expected] of cases) {
      const res = await patch(owner, t.publishable_key_id, body);
      stack.expectProblem(res, 422, 'validation_failed');
      expect(pointers(res), JSON.stringify(body)).toEqual(expected);
    }
    // The amount alone when the stored methods have no cod.
    await patch(owner, t.publishable_key_id, { widget_payment_methods: ['prepaid'] });
    const lone = await patch(owner, t.publishable_key_id, { widget_cod_amount_aoa: 100 });
    expect(pointers(lone)).toEqual(['/widget_cod_amount_aoa not_allowed']);
    await patch(owner, t.publishable_key_id, {
      widget_payment_methods: ['prepaid', 'cod'],
      widget_cod_amount_aoa: 250_000,
    });
    expect((await list(t.secret_key)).find((k) => k.id === t.publishable_key_id)).toEqual(before);
    // A secret key has no payment rules.
    const onSecret = await patch(owner, t.secret_key_id, { widget_payment_methods: ['prepaid'] });
    stack.expectProblem(onSecret, 422, 'validation_failed');
    expect(pointers(onSecret)).toEqual(['/widget_payment_methods not_allowed']);
  });

  it('a secret key gets 403 session_required; a revoked key 409; a developer in live mode 403', async () => {
    const withKey = await stack.request('PATCH', `/v1/api_keys/${t.publishable_key_id}`, {
      key: t.secret_key,
      body: { widget_payment_methods: ['cod'] },
    });
    stack.expectProblem(withKey, 403, 'session_required');
    stack.expectProblem(
      await patch(developer, t.publishable_key_id, { widget_payment_methods: ['cod'] }),
      403,
      'forbidden',
    );
    const extra = await owner('POST', '/v1/api_keys', { body: { kind: 'publishable', allowed_origins: [SHOP] } });
    expect((await owner('POST', `/v1/api_keys/${extra.body.id}/revoke`)).status).toBe(200);
    stack.expectProblem(
      await patch(owner, extra.body.id, { widget_payment_methods: ['prepaid'] }),
      409,
      'api_key_revoked',
    );
    // Another mode's key is not found.
    stack.expectProblem(
      await patch(owner, t.test_publishable_key_id, { widget_payment_methods: ['cod'] }),
      404,
      'not_found',
    );
    expect((await list(t.secret_key)).find((k) => k.id === t.publishable_key_id).widget_payment_methods).toEqual([
      'prepaid',
      'cod',
    ]);
  });
});

describe('the sandbox: a developer in test mode, no operator', () => {
  it('reads the test publishable key, creates a test secret key, sets origins and payment rules the widget applies', async () => {
    const keys = await developer('GET', '/v1/api_keys?limit=100', { headers: test });
    expect(keys.status).toBe(200);
    const testPk = keys.body.data.find((k: any) => k.id === t.test_publishable_key_id);
    expect(testPk.publishable_key).toBe(t.test_publishable_key);
    expect(keys.body.data.every((k: any) => k.livemode === false)).toBe(true);

    const sk = await developer('POST', '/v1/api_keys', { body: { kind: 'secret' }, headers: test });
    expect(sk.status, JSON.stringify(sk.body)).toBe(201);
    expect(sk.body.secret).toMatch(/^sk_test_/);
    const sandboxKey: string = sk.body.secret;

    const rules = await patch(
      developer,
      t.test_publishable_key_id,
      { allowed_origins: [SANDBOX], widget_payment_methods: ['bank_transfer'] },
      test,
    );
    expect(rules.status, JSON.stringify(rules.body)).toBe(200);
    expect(rules.body).toMatchObject({ allowed_origins: [SANDBOX], widget_payment_methods: ['bank_transfer'] });

    const widgetCreate = async (payment: Record<string, unknown>) => {
      const q = await quoteFrom(stack, sandboxKey, 'test-manual');
      return stack.request('POST', '/v1/widget/deliveries', {
        key: t.test_publishable_key,
        headers: { origin: SANDBOX },
        body: { quote_id: q.quote_id, ...quoteBody(), ...payment },
      });
    };
    // prepaid is no longer allowed: the widget's existing refusal.
    const refused = await widgetCreate({ payment_method: 'prepaid' });
    stack.expectProblem(refused, 422, 'payment_method_not_allowed');
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/payment_method' })]);
    const ok = await widgetCreate({ payment_method: 'bank_transfer' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({ livemode: false, payment_method: 'bank_transfer' });

    // cod with a fixed amount: the courier collects the merchant's amount, whatever the browser leaves out.
    await patch(
      developer,
      t.test_publishable_key_id,
      { widget_payment_methods: ['cod'], widget_cod_amount_aoa: 700_000 },
      test,
    );
    const cod = await widgetCreate({ payment_method: 'cod' });
    expect(cod.status, JSON.stringify(cod.body)).toBe(201);
    expect(cod.body).toMatchObject({ payment_method: 'cod', cash_collect_aoa: 700_000 });
    const mismatch = await widgetCreate({ payment_method: 'cod', cash_collect_aoa: 1 });
    stack.expectProblem(mismatch, 422, 'validation_failed');
    // The live publishable key was left as it was.
    expect((await list(t.secret_key)).find((k) => k.id === t.publishable_key_id).allowed_origins).not.toContain(
      SANDBOX,
    );
  });
});
