// Issue #27, key issuance and per-tenant limits: a secret key cannot manage dashboard users nor issue, change or
// revoke keys (403 session_required; a dashboard session can), the per-tenant limits hold under parallel creations,
// and an Idempotency-Key names the operation (matched route and parameters), not the spelling of the URL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { MAX_ACTIVE_KEYS } from '../../src/keys/schemas.js';
import { MAX_ENDPOINTS } from '../../src/webhooks/routes.js';
import type { Role } from '../../src/users/roles.js';
import { dashboardSession } from '../helpers/dashboard-session.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** A dashboard session of a new user of `tenantId` with `role`: requests as the dashboard's page makes them. */
const session = async (tenantId: string, role: Role) => (await dashboardSession(stack, tenantId, role)).request;

/** Everything of the tenant the writes below could change: its users and roles, their password links, its keys. */
const snapshot = async (tenantId: string) => {
  const { rows } = await stack.pool.query<{ users: string; links: string; keys: string }>(
    `SELECT (SELECT string_agg(u.id || ':' || u.role, ',' ORDER BY u.id) FROM users u WHERE u.tenant_id = $1) AS users,
            (SELECT coalesce(string_agg(l::text, ',' ORDER BY l::text), '') FROM user_password_links l JOIN users u ON u.id = l.user_id
              WHERE u.tenant_id = $1) AS links,
            (SELECT string_agg(k.id || ':' || coalesce(k.revoked_at::text, '') || ':' || k.allowed_origins::text, ',' ORDER BY k.id)
               FROM api_keys k WHERE k.tenant_id = $1) AS keys`,
    [tenantId],
  );
  return rows[0];
};

describe('users and key issuance take a dashboard session (403 session_required for a secret key)', () => {
  it('a live or test secret key cannot invite, change, remove or re-link users, nor create, change or revoke keys; nothing changes', async () => {
    const t: CreatedTenant = await stack.tenant(['https://loja.test']);
    const owner = await session(t.tenant_id, 'owner');
    const invited = await owner('POST', '/v1/users', {
      body: { email: `dev-${randomUUID().slice(0, 8)}@loja.test`, role: 'developer' },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const before = await snapshot(t.tenant_id);

    const writes: [string, string, unknown?][] = [
      ['POST', '/v1/users', { email: `leak-${randomUUID().slice(0, 8)}@evil.test`, role: 'owner' }],
      ['PATCH', `/v1/users/${invited.body.id}`, { role: 'owner' }],
      ['POST', `/v1/users/${invited.body.id}/password_link`],
      ['DELETE', `/v1/users/${invited.body.id}`],
      ['POST', '/v1/api_keys', { kind: 'secret' }],
      ['POST', '/v1/api_keys/', { kind: 'secret' }],
      ['PATCH', `/v1/api_keys/${t.publishable_key_id}`, { allowed_origins: ['https://evil.test'] }],
      ['POST', `/v1/api_keys/${t.secret_key_id}/revoke`],
      ['POST', `/v1/api_keys/${t.test_secret_key_id}/revoke`],
    ];
    for (const key of [t.secret_key, t.test_secret_key]) {
      for (const [method, path, body] of writes) {
        const res = await stack.request(method, path, { key, body, headers: { 'idempotency-key': randomUUID() } });
        stack.expectProblem(res, 403, 'session_required');
        expect(res.body.detail).toContain('dashboard session');
      }
    }
    expect(await snapshot(t.tenant_id)).toEqual(before);
    // A key still authenticates (a revoked or unknown one is 401 first), and reads stay open to it.
    stack.expectProblem(
      await stack.request('POST', '/v1/api_keys', { key: `sk_live_${'0'.repeat(32)}`, body: { kind: 'secret' } }),
      401,
      'unauthorized',
    );
    expect((await stack.request('GET', '/v1/api_keys', { key: t.secret_key })).status).toBe(200);
    expect((await stack.request('GET', '/v1/users', { key: t.secret_key })).status).toBe(200);
    // The code is documented: its page resolves.
    expect((await stack.request('GET', '/errors/session_required')).body).toMatchObject({
      code: 'session_required',
      status: 403,
    });

    // The dashboard session does them: an owner for users and live keys, a developer for test keys only.
    const dev = await session(t.tenant_id, 'developer');
    stack.expectProblem(await dev('POST', '/v1/api_keys', { body: { kind: 'secret' } }), 403, 'forbidden');
    const testKey = await dev('POST', '/v1/api_keys', {
      body: { kind: 'secret' },
      headers: { 'dashboard-mode': 'test' },
    });
    expect(testKey.status).toBe(201);
    expect(
      (await dev('POST', `/v1/api_keys/${testKey.body.id}/revoke`, { headers: { 'dashboard-mode': 'test' } })).status,
    ).toBe(200);
    expect((await owner('POST', `/v1/users/${invited.body.id}/password_link`)).status).toBe(200);
    expect((await owner('POST', `/v1/api_keys/${t.secret_key_id}/revoke`)).status).toBe(200);
  });
});

describe('per-tenant limits hold under concurrency', () => {
  it(`${4 * 10} parallel webhook endpoint creations make exactly ${MAX_ENDPOINTS} endpoints; the rest are 422`, async () => {
    const t = await stack.tenant();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        stack.request('POST', '/v1/webhook_endpoints', {
          key: t.secret_key,
          body: { url: `http://127.0.0.1:9/race-${i}` },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_ENDPOINTS);
    for (const a of answers.filter((x) => x.status !== 201))
      stack.expectProblem(a, 422, 'webhook_endpoint_limit_reached');
    const { rows } = await stack.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1 AND livemode AND deleted_at IS NULL',
      [t.tenant_id],
    );
    expect(rows[0].n).toBe(MAX_ENDPOINTS);
  });

  it(`80 parallel key creations leave exactly ${MAX_ACTIVE_KEYS} active keys; the rest are 422`, async () => {
    const t = await stack.tenant();
    const owner = await session(t.tenant_id, 'owner');
    const answers = await Promise.all(
      Array.from({ length: 80 }, () => owner('POST', '/v1/api_keys', { body: { kind: 'secret' } })),
    );
    // The tenant came with its live pair of keys.
    expect(answers.filter((a) => a.status === 201)).toHaveLength(MAX_ACTIVE_KEYS - 2);
    for (const a of answers.filter((x) => x.status !== 201)) stack.expectProblem(a, 422, 'api_key_limit_reached');
    const { rows } = await stack.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1 AND livemode AND revoked_at IS NULL',
      [t.tenant_id],
    );
    expect(rows[0].n).toBe(MAX_ACTIVE_KEYS);
  });
});

describe('an Idempotency-Key names the operation, not the spelling of its URL', () => {
  it('/v1/api_keys, /v1/api_keys/ and /v1/%61pi_keys with one key and body create one key; the others replay it', async () => {
    const t = await stack.tenant();
    const owner = await session(t.tenant_id, 'owner');
    const headers = { 'idempotency-key': `spelling-${randomUUID()}` };
    const body = { kind: 'secret' };
    const first = await owner('POST', '/v1/api_keys', { body, headers });
    expect(first.status).toBe(201);
    for (const path of ['/v1/api_keys/', '/v1/%61pi_keys']) {
      const again = await owner('POST', path, { body, headers });
      expect(again.status, path).toBe(201);
      expect(again.headers.get('idempotent-replayed'), path).toBe('true');
      expect(again.body.id, path).toBe(first.body.id);
    }
    const { rows } = await stack.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1 AND livemode',
      [t.tenant_id],
    );
    expect(rows[0].n).toBe(3); // the tenant's live pair and the one created
  });

  it('an id spelt in upper case is the same operation as in lower case; another id is another operation', async () => {
    const t = await stack.tenant();
    const key = { key: t.secret_key };
    const a = await stack.request('POST', '/v1/webhook_endpoints', { ...key, body: { url: 'http://127.0.0.1:9/a' } });
    const b = await stack.request('POST', '/v1/webhook_endpoints', { ...key, body: { url: 'http://127.0.0.1:9/b' } });
    const headers = { 'idempotency-key': `rotate-${randomUUID()}` };
    const rotated = await stack.request('POST', `/v1/webhook_endpoints/${a.body.id}/rotate_secret`, {
      ...key,
      headers,
    });
    expect(rotated.status).toBe(200);
    const upper = await stack.request('POST', `/v1/%77ebhook_endpoints/${a.body.id.toUpperCase()}/rotate_secret`, {
      ...key,
      headers,
    });
    expect(upper.headers.get('idempotent-replayed')).toBe('true');
    const stored = await stack.pool.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [
      a.body.id,
    ]);
    expect(stored.rows[0].secret).toBe(rotated.body.secret);
    // The same Idempotency-Key on another endpoint's rotation is another operation: it runs.
    const other = await stack.request('POST', `/v1/webhook_endpoints/${b.body.id}/rotate_secret`, { ...key, headers });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });
});
