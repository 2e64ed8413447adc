// Authentication (src/http/plugins/auth.ts) on a bare Fastify app, with the key store replaced by an in-memory table (the
// cache and its Postgres invalidation are held by test/keys/key-cache.test.ts): which credential each route takes, what
// a missing, malformed, wrong-kind, unknown or revoked key is told, the publishable key's origins, the test mode
// from the stored key, the writes only a dashboard session may make, and the operator token.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authPlugin from '../../src/http/plugins/auth.js';
import errorsPlugin from '../../src/http/plugins/errors.js';
import type { KeyRow } from '../../src/keys/repository.js';
import { sessionOnly } from '../../src/users/roles.js';
import { generateKey, hashKey } from '../../src/platform/secrets.js';

const rows = new Map<string, KeyRow & { kind: string }>();

const ADMIN_TOKEN = 'operator-token-of-this-test';
const key = (kind: 'secret' | 'publishable', mode: 'live' | 'test', change: Partial<KeyRow> = {}) => {
  const value = generateKey(kind, mode);
  rows.set(hashKey(value).toString('hex'), {
    id: `key-${rows.size}`,
    tenant_id: 'tenant-1',
    key_hash: hashKey(value),
    allowed_origins: ['https://shop.test'],
    revoked_at: null,
    livemode: mode === 'live',
    kind,
    ...change,
  });
  return value;
};
const SK = key('secret', 'live');
const SK_TEST = key('secret', 'test');
const PK = key('publishable', 'live');
const REVOKED = key('secret', 'live', { revoked_at: new Date() });

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ logger: false });
  await app.register(errorsPlugin, { baseUrl: 'https://api.example.test' });
  app.decorateRequest('dashboardSession', null);
  // The keys domain's store, in memory: the plugin takes it as an option (the HTTP layer imports no domain).
  const keyStore = () => ({
    find: async (hash: Buffer, kind: string) => {
      const row = rows.get(hash.toString('hex'));
      return row && row.kind === kind ? row : null;
    },
    close: async () => {},
  });
  await app.register(authPlugin, { adminToken: ADMIN_TOKEN, keyStore, sessionOnly });
  const echo = async (request: { auth: unknown }) => ({ auth: request.auth });
  app.get('/v1/deliveries', echo);
  app.get('/v1/widget/couriers', echo);
  app.post('/v1/api_keys', echo);
  app.get('/v1/api_keys', echo);
  app.get('/track/:id', echo);
  app.post('/v1/diagnostics/round_trip', { config: { auth: 'operator' } }, echo);
  await app.ready();
});
afterAll(() => app?.close());

async function call(method: 'GET' | 'POST', url: string, authorization?: string, origin?: string) {
  const res = await app.inject({
    method,
    url,
    headers: { ...(authorization ? { authorization } : {}), ...(origin ? { origin } : {}) },
  });
  return { status: res.statusCode, body: res.json() };
}

describe('authentication', () => {
  it('a secret key on /v1: the tenant, the key and the mode the stored key says', async () => {
    expect((await call('GET', '/v1/deliveries', `Bearer ${SK}`)).body.auth).toEqual({
      tenantId: 'tenant-1',
      keyId: expect.any(String),
      kind: 'secret',
      livemode: true,
    });
    expect((await call('GET', '/v1/deliveries', `bearer   ${SK_TEST} `)).body.auth.livemode).toBe(false);
    expect((await call('GET', '/track/x')).body).toEqual({ auth: null });
  });

  it('missing, malformed, wrong kind, unknown and revoked keys are 401 saying which', async () => {
    const detail = async (authorization?: string, url = '/v1/deliveries', origin?: string) => {
      const res = await call('GET', url, authorization, origin);
      expect([res.status, res.body.error]).toEqual([401, 'unauthorized']);
      return res.body.detail as string;
    };
    expect(await detail()).toBe('Send your API key as "Authorization: Bearer <key>".');
    expect(await detail(SK)).toBe('Send your API key as "Authorization: Bearer <key>".');
    expect(await detail('Bearer sk_live_WRONGKEY')).toMatch(
      /^The API key is malformed: a secret key is sk_live_ followed by 32 letters and digits \(sk_test_ in test mode\)/,
    );
    expect(await detail('Bearer pk_live_short', '/v1/widget/couriers', 'https://shop.test')).toMatch(
      /^The API key is malformed: a publishable key is pk_live_/,
    );
    expect(await detail(`Bearer ${PK}`)).toBe('This endpoint takes a secret key (sk_live_...), not a publishable key.');
    expect(await detail(`Bearer ${SK_TEST}`, '/v1/widget/couriers')).toBe(
      'This endpoint takes a publishable key (pk_test_...), not a secret key.',
    );
    expect(await detail(`Bearer sk_live_${'0'.repeat(32)}`)).toBe('Invalid or revoked API key.');
    expect(await detail(`Bearer ${REVOKED}`)).toBe('Invalid or revoked API key.');
  });

  it('a publishable key works on /v1/widget only from an origin it allows (compared in lower case)', async () => {
    const ok = await call('GET', '/v1/widget/couriers', `Bearer ${PK}`, 'https://SHOP.test');
    expect(ok.body.auth).toMatchObject({ kind: 'publishable', origin: 'https://SHOP.test' });
    for (const origin of [undefined, 'https://evil.test', 'https://shop.test.evil.test'])
      expect((await call('GET', '/v1/widget/couriers', `Bearer ${PK}`, origin)).body.detail).toBe(
        'This origin is not allowed for the publishable key.',
      );
  });

  it('users and key issuance take a dashboard session: a secret key reads them, writes are 403 session_required', async () => {
    expect((await call('GET', '/v1/api_keys', `Bearer ${SK}`)).status).toBe(200);
    const write = await call('POST', '/v1/api_keys', `Bearer ${SK}`);
    expect([write.status, write.body.error]).toEqual([403, 'session_required']);
  });

  it('operator routes take the admin token, never a merchant key', async () => {
    expect((await call('POST', '/v1/diagnostics/round_trip', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    for (const authorization of [undefined, `Bearer ${SK}`, `Bearer ${ADMIN_TOKEN}x`])
      expect((await call('POST', '/v1/diagnostics/round_trip', authorization)).status).toBe(401);
  });
});
