// The merchant dashboard's accounts and sessions against the real stack, without a browser (test/dashboard/dashboard.test.ts
// drives the pages): `admin user create` and its one-time link, sign-in with its lockout, the session cookie in
// place of a secret key on the /v1 routes (same origin, CSRF token, roles, live/test mode), expiry and revocation,
// and the /v1/api_keys and /v1/users routes (writes from an owner session; a secret key reads them only:
// test/keys/security-keys.test.ts).
import { execFile } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import type { CreatedTenant } from '../../src/tenants/service.js';
import fastifyCookie from '@fastify/cookie';
import Fastify from 'fastify';
import { clearSessionCookie, setSessionCookie } from '../../src/users/session-plugin.js';
import { MAX_FAILURES_PER_ADDRESS, createUser } from '../../src/users/service.js';
import type { Role } from '../../src/users/roles.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let tenant: CreatedTenant;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.tenant();
});
afterAll(() => stack?.close());

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT_DIR, 'src', 'cli', 'index.ts'), ...args],
      {
        cwd: ROOT_DIR,
        env: { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_BASE_URL: stack.url },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const tokenOf = (link: string) => new URL(link).hash.replace(/^#token=/, '');
const email = (role: string) => `${role}-${randomUUID().slice(0, 8)}@loja.test`;

/** A user of `tenantId` with PASSWORD set through its link. */
async function userWith(role: Role, tenantId = tenant.tenant_id): Promise<string> {
  const address = email(role);
  const created = await createUser(stack.pool, stack.config.dashboard, stack.url, { tenantId, email: address, role });
  const set = await stack.request('POST', '/dashboard/api/password', {
    body: { token: tokenOf(created.set_password_url), password: PASSWORD },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(204);
  return address;
}

interface Browser {
  cookie: string;
  csrf: string;
  userId: string;
  /** A request as the dashboard's page makes it: the cookie, the CSRF token, same origin. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string>; csrf?: string | null },
  ): ReturnType<Stack['request']>;
}

async function signIn(address: string, password = PASSWORD): Promise<Browser> {
  const res = await stack.request('POST', '/dashboard/api/session', {
    body: { email: address, password },
    headers: { origin: stack.url },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const cookie = res.headers.get('set-cookie')!.split(';')[0];
  return {
    cookie,
    csrf: res.body.csrf_token,
    userId: res.body.user.id,
    request: (method, p, options = {}) => {
      const headers: Record<string, string> = {
        cookie,
        origin: stack.url,
        'sec-fetch-site': 'same-origin',
        ...options.headers,
      };
      const csrf = options.csrf === undefined ? res.body.csrf_token : options.csrf;
      if (csrf !== null) headers['x-csrf-token'] = csrf;
      return stack.request(method, p, { body: options.body, headers });
    },
  };
}

describe('accounts: admin user create, the one-time link, sign-in', () => {
  it('admin user create prints a one-time set-password link; the link sets the password once; sign-in opens a session cookie', async () => {
    const address = email('owner');
    const run = await admin(
      'user',
      'create',
      '--tenant',
      tenant.tenant_id,
      '--email',
      address.toUpperCase(),
      '--role',
      'owner',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const link = /set-password link: (\S+)/.exec(run.stdout)![1];
    expect(link).toMatch(new RegExp(`^${stack.url}/dashboard/set-password#token=[A-Za-z0-9_-]{43}$`));
    expect(run.stdout).toContain(`${address}  (owner)`);

    // Before the link is used the user cannot sign in; a short password is refused with the field named.
    stack.expectProblem(
      await stack.request('POST', '/dashboard/api/session', { body: { email: address, password: 'x'.repeat(12) } }),
      401,
      'invalid_credentials',
    );
    const short = await stack.request('POST', '/dashboard/api/password', {
      body: { token: tokenOf(link), password: 'short' },
    });
    stack.expectProblem(short, 422, 'validation_failed');
    expect(short.body.errors[0]).toMatchObject({ pointer: '/password', code: 'too_small' });

    expect(
      (await stack.request('POST', '/dashboard/api/password', { body: { token: tokenOf(link), password: PASSWORD } }))
        .status,
    ).toBe(204);
    stack.expectProblem(
      await stack.request('POST', '/dashboard/api/password', {
        body: { token: tokenOf(link), password: 'another long password' },
      }),
      422,
      'password_link_invalid',
    );

    const res = await stack.request('POST', '/dashboard/api/session', { body: { email: address, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      user: { email: address, role: 'owner' },
      tenant: { id: tenant.tenant_id },
      csrf_token: expect.any(String),
    });
    const [pair, ...attributes] = res.headers.get('set-cookie')!.split('; ');
    expect(pair).toMatch(/^dashboard_session=[A-Za-z0-9_-]{43}$/);
    expect(new Set(attributes)).toEqual(new Set(['Path=/', 'Max-Age=43200', 'HttpOnly', 'SameSite=Strict']));
    expect(res.headers.get('cache-control')).toBe('no-store');

    // The user list (CLI) shows it active; a second create with the same email is refused.
    const list = await admin('user', 'list', '--tenant', tenant.tenant_id, '--json');
    expect(JSON.parse(list.stdout).data).toContainEqual(
      expect.objectContaining({ email: address, role: 'owner', status: 'active' }),
    );
    const again = await admin('user', 'create', '--tenant', tenant.tenant_id, '--email', address, '--role', 'viewer');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already has a dashboard account');
  });

  it('in production the cookie is Secure and __Host- prefixed', async () => {
    const app = Fastify();
    await app.register(fastifyCookie);
    app.get('/set', (_request, reply) => setSessionCookie(reply, 'abc', 3_600_000, true).send());
    app.get('/clear', (_request, reply) => clearSessionCookie(reply, true).send());
    const attributes = async (url: string) => {
      const header = String((await app.inject({ url })).headers['set-cookie']);
      return new Set(header.split('; '));
    };
    expect(await attributes('/set')).toEqual(
      new Set(['__Host-dashboard_session=abc', 'Path=/', 'Max-Age=3600', 'HttpOnly', 'SameSite=Strict', 'Secure']),
    );
    expect(await attributes('/clear')).toEqual(
      new Set([
        '__Host-dashboard_session=',
        'Path=/',
        'Max-Age=0',
        'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
        'HttpOnly',
        'SameSite=Strict',
        'Secure',
      ]),
    );
    await app.close();
  });

  it('five wrong passwords lock the email for 15 minutes (the right one too); the answers never tell which part was wrong', async () => {
    const address = await userWith('viewer');
    const unknown = await stack.request('POST', '/dashboard/api/session', {
      body: { email: `nobody-${randomUUID()}@loja.test`, password: PASSWORD },
    });
    stack.expectProblem(unknown, 401, 'invalid_credentials');
    expect(unknown.body.detail).toBe('Wrong email or password.');
    for (let i = 0; i < 5; i++) {
      const wrong = await stack.request('POST', '/dashboard/api/session', {
        body: { email: address, password: `wrong password ${i}` },
      });
      stack.expectProblem(wrong, 401, 'invalid_credentials');
      expect(wrong.body.detail).toBe(
        i < 4 ? unknown.body.detail : 'Wrong email or password. Sign-in for this email is now locked for 15 minutes.',
      );
    }
    const locked = await stack.request('POST', '/dashboard/api/session', {
      body: { email: address, password: PASSWORD },
    });
    stack.expectProblem(locked, 429, 'sign_in_locked');
    expect(locked.headers.get('retry-after')).toBe('900');
    // Another user from the same address still signs in (the address's own limit is 20).
    await signIn(await userWith('viewer'));
  });

  it('sign-in from another site is refused', async () => {
    const address = await userWith('viewer');
    const res = await stack.request('POST', '/dashboard/api/session', {
      body: { email: address, password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    stack.expectProblem(res, 403, 'csrf_token_invalid');
  });

  it('twenty failed sign-ins from one client address lock that address for 15 minutes (the right password too); other addresses are not', async () => {
    const address = await userWith('viewer');
    // A client address of its own (the counts live in the run's shared Postgres: 127.0.0.1 is every test file's), given
    // to the real app through Fastify's inject; each failure names another email, so no email reaches its own lock.
    const client = `198.51.100.${randomInt(1, 255)}`;
    const signInFrom = (body: { email: string; password: string }) =>
      stack.app.inject({
        method: 'POST',
        url: '/dashboard/api/session',
        remoteAddress: client,
        headers: { origin: stack.url },
        payload: body,
      });
    await stack.pool.query('DELETE FROM sign_in_failures WHERE subject = $1', [`ip:${client}`]);
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) {
      const wrong = await signInFrom({
        email: `nobody-${i}-${randomUUID().slice(0, 8)}@loja.test`,
        password: `wrong password ${i}`,
      });
      expect(wrong.statusCode, `failure ${i + 1}: ${wrong.body}`).toBe(401);
      expect(wrong.json()).toMatchObject({ error: 'invalid_credentials', detail: 'Wrong email or password.' });
    }
    const locked = await signInFrom({ email: address, password: PASSWORD });
    expect(locked.statusCode, locked.body).toBe(429);
    expect(locked.json()).toMatchObject({
      error: 'sign_in_locked',
      detail: expect.stringContaining('from this address'),
    });
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.headers['set-cookie']).toBeUndefined();
    // The same user from another address signs in; the email itself was never locked.
    await signIn(address);
    // Once the failures are older than the window, the address may sign in again.
    await stack.pool.query(`UPDATE sign_in_failures SET failed_at = now() - interval '16 minutes' WHERE subject = $1`, [
      `ip:${client}`,
    ]);
    expect((await signInFrom({ email: address, password: PASSWORD })).statusCode).toBe(201);
  }, 180_000);
});

describe('the session in place of a secret key on /v1', () => {
  it('reads with the cookie; without a cookie or a key it is 401 as before', async () => {
    const viewer = await signIn(await userWith('viewer'));
    const list = await viewer.request('GET', '/v1/deliveries', { csrf: null });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect((await viewer.request('GET', '/dashboard/api/session', { csrf: null })).body).toMatchObject({
      user: { role: 'viewer' },
    });
    stack.expectProblem(await stack.request('GET', '/v1/deliveries'), 401, 'unauthorized');
    // A made-up cookie is refused and cleared.
    const forged = await stack.request('GET', '/v1/deliveries', { headers: { cookie: 'dashboard_session=forged' } });
    stack.expectProblem(forged, 401, 'unauthorized');
    const cleared = forged.headers.get('set-cookie')!.split('; ');
    expect(cleared).toEqual(expect.arrayContaining(['dashboard_session=', 'Path=/', 'Max-Age=0']));
  });

  it('CSRF: a change without the session’s token, with a wrong one, or from another site is 403; with it, it goes through', async () => {
    const dev = await signIn(await userWith('developer'));
    const body = { url: 'http://127.0.0.1:9/hook' };
    stack.expectProblem(
      await dev.request('POST', '/v1/webhook_endpoints', { body, csrf: null }),
      403,
      'csrf_token_invalid',
    );
    stack.expectProblem(
      await dev.request('POST', '/v1/webhook_endpoints', { body, csrf: 'x'.repeat(43) }),
      403,
      'csrf_token_invalid',
    );
    const other = await signIn(await userWith('developer'));
    stack.expectProblem(
      await dev.request('POST', '/v1/webhook_endpoints', { body, csrf: other.csrf }),
      403,
      'csrf_token_invalid',
    );
    stack.expectProblem(
      await dev.request('POST', '/v1/webhook_endpoints', { body, headers: { origin: 'https://evil.example' } }),
      403,
      'csrf_token_invalid',
    );
    stack.expectProblem(
      await dev.request('GET', '/v1/deliveries', { headers: { 'sec-fetch-site': 'cross-site' } }),
      403,
      'csrf_token_invalid',
    );
    const created = await dev.request('POST', '/v1/webhook_endpoints', { body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    // Sign-out needs the token too, and ends the session.
    stack.expectProblem(
      await dev.request('DELETE', '/dashboard/api/session', { csrf: null }),
      403,
      'csrf_token_invalid',
    );
    expect((await dev.request('DELETE', '/dashboard/api/session')).status).toBe(204);
    stack.expectProblem(await dev.request('GET', '/v1/deliveries', { csrf: null }), 401, 'unauthorized');
  });

  it('a request with Authorization is a key’s, whatever cookie it carries', async () => {
    const owner = await signIn(await userWith('owner'));
    const res = await stack.request('GET', '/v1/deliveries', {
      key: `sk_live_${'0'.repeat(32)}`,
      headers: { cookie: owner.cookie },
    });
    stack.expectProblem(res, 401, 'unauthorized');
  });

  it('roles: viewers read; developers change webhooks and test keys; owners also users and live keys (403 forbidden otherwise)', async () => {
    const viewer = await signIn(await userWith('viewer'));
    const dev = await signIn(await userWith('developer'));
    const owner = await signIn(await userWith('owner'));
    const hook = { url: 'http://127.0.0.1:9/roles' };

    expect((await viewer.request('GET', '/v1/webhook_endpoints')).status).toBe(200);
    expect((await viewer.request('GET', '/v1/api_keys')).status).toBe(200);
    const refused = await viewer.request('POST', '/v1/webhook_endpoints', { body: hook });
    stack.expectProblem(refused, 403, 'forbidden');
    expect(refused.body.detail).toBe('Your role (viewer) cannot do this; it takes a developer or an owner.');
    stack.expectProblem(await viewer.request('POST', '/v1/quotes', { body: {} }), 403, 'forbidden');
    stack.expectProblem(await viewer.request('DELETE', `/v1/deliveries/${randomUUID()}`), 403, 'forbidden');
    stack.expectProblem(await viewer.request('GET', '/v1/users'), 403, 'forbidden');

    // Live keys: owners only; test keys (Dashboard-Mode: test): developers too, and they are test keys.
    const liveByDev = await dev.request('POST', '/v1/api_keys', { body: { kind: 'secret' } });
    stack.expectProblem(liveByDev, 403, 'forbidden');
    expect(liveByDev.body.detail).toContain('it takes an owner');
    const testByDev = await dev.request('POST', '/v1/api_keys', {
      body: { kind: 'secret' },
      headers: { 'dashboard-mode': 'test' },
    });
    expect(testByDev.status, JSON.stringify(testByDev.body)).toBe(201);
    expect(testByDev.body).toMatchObject({ livemode: false, kind: 'secret', status: 'active' });
    expect(testByDev.body.secret).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect((await dev.request('POST', '/v1/webhook_endpoints', { body: hook })).status).toBe(201);
    stack.expectProblem(await dev.request('GET', '/v1/users'), 403, 'forbidden');

    const liveByOwner = await owner.request('POST', '/v1/api_keys', {
      body: { kind: 'publishable', allowed_origins: ['https://Loja.Test:443'] },
    });
    expect(liveByOwner.status).toBe(201);
    expect(liveByOwner.body).toMatchObject({
      livemode: true,
      kind: 'publishable',
      allowed_origins: ['https://loja.test'],
    });
    expect((await owner.request('GET', '/v1/users')).status).toBe(200);

    // The mode header confines reads as a test key would: the test key is listed in test mode only.
    const testList = (
      await dev.request('GET', '/v1/api_keys', { headers: { 'dashboard-mode': 'test' } })
    ).body.data.map((k: any) => k.id);
    const liveList = (await dev.request('GET', '/v1/api_keys')).body.data.map((k: any) => k.id);
    expect(testList).toContain(testByDev.body.id);
    expect(liveList).not.toContain(testByDev.body.id);
    expect(liveList).toContain(liveByOwner.body.id);

    // A role change applies to open sessions at once.
    const promoted = await owner.request('PATCH', `/v1/users/${viewer.userId}`, { body: { role: 'developer' } });
    expect(promoted.status).toBe(200);
    expect((await viewer.request('POST', '/v1/webhook_endpoints', { body: hook })).status).toBe(201);
  });

  it('session expiry: past its idle or absolute deadline the session is 401 "expired" and its cookie is cleared', async () => {
    const idle = await signIn(await userWith('viewer'));
    const absolute = await signIn(await userWith('viewer'));
    await stack.pool.query(
      `UPDATE dashboard_sessions SET idle_expires_at = now() - interval '1 second' WHERE user_id = $1`,
      [idle.userId],
    );
    await stack.pool.query(
      `UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
      [absolute.userId],
    );
    for (const b of [idle, absolute]) {
      const res = await b.request('GET', '/v1/deliveries', { csrf: null });
      stack.expectProblem(res, 401, 'unauthorized');
      expect(res.body.detail).toBe('Your dashboard session expired; sign in again.');
      expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
      // The expired session is gone: asked again, it has ended.
      expect((await b.request('GET', '/dashboard/api/session', { csrf: null })).body.detail).toBe(
        'Your dashboard session has ended; sign in again.',
      );
    }
  });

  it('a sign-in sweeps sessions expired over an hour ago; one expired more recently still says "expired"', async () => {
    const old = await signIn(await userWith('viewer'));
    const recent = await signIn(await userWith('viewer'));
    await stack.pool.query(
      `UPDATE dashboard_sessions SET idle_expires_at = now() - interval '61 minutes' WHERE user_id = $1`,
      [old.userId],
    );
    await stack.pool.query(
      `UPDATE dashboard_sessions SET idle_expires_at = now() - interval '59 minutes' WHERE user_id = $1`,
      [recent.userId],
    );
    await signIn(await userWith('viewer')); // any sign-in sweeps
    const left = await stack.pool.query<{ user_id: string }>(
      'SELECT user_id FROM dashboard_sessions WHERE user_id = ANY($1)',
      [[old.userId, recent.userId]],
    );
    expect(left.rows.map((r) => r.user_id)).toEqual([recent.userId]);
    expect((await old.request('GET', '/v1/deliveries', { csrf: null })).body.detail).toBe(
      'Your dashboard session has ended; sign in again.',
    );
    expect((await recent.request('GET', '/v1/deliveries', { csrf: null })).body.detail).toBe(
      'Your dashboard session expired; sign in again.',
    );
  });

  it('a short idle timeout (DASHBOARD_SESSION_IDLE_MS) ends a session left unused', async () => {
    const short = await startStack({ dashboard: { ...stack.config.dashboard, sessionIdleMs: 1500 } });
    try {
      const owner = await short.tenant();
      const created = await createUser(short.pool, short.config.dashboard, short.url, {
        tenantId: owner.tenant_id,
        email: email('idle'),
        role: 'viewer',
      });
      await short.request('POST', '/dashboard/api/password', {
        body: { token: tokenOf(created.set_password_url), password: PASSWORD },
      });
      const res = await short.request('POST', '/dashboard/api/session', {
        body: { email: created.user.email, password: PASSWORD },
      });
      const cookie = res.headers.get('set-cookie')!.split(';')[0];
      expect((await short.request('GET', '/v1/deliveries', { headers: { cookie } })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 2000));
      const expired = await short.request('GET', '/v1/deliveries', { headers: { cookie } });
      expect(expired.status).toBe(401);
      expect(expired.body.detail).toBe('Your dashboard session expired; sign in again.');
    } finally {
      await short.close();
    }
  });

  it('removing a user ends its sessions at once; the only owner cannot be removed or demoted', async () => {
    const owner = await signIn(await userWith('owner', (await stack.tenant()).tenant_id));
    const other = await stack.request('GET', '/dashboard/api/session', { headers: { cookie: owner.cookie } });
    const tenantId = other.body.tenant.id;
    const dev = await signIn(await userWith('developer', tenantId));
    expect((await dev.request('GET', '/v1/deliveries', { csrf: null })).status).toBe(200);
    const removed = await owner.request('DELETE', `/v1/users/${dev.userId}`);
    expect(removed.body).toEqual({ id: dev.userId, deleted: true });
    stack.expectProblem(await dev.request('GET', '/v1/deliveries', { csrf: null }), 401, 'unauthorized');

    stack.expectProblem(await owner.request('DELETE', `/v1/users/${owner.userId}`), 409, 'last_owner');
    stack.expectProblem(
      await owner.request('PATCH', `/v1/users/${owner.userId}`, { body: { role: 'viewer' } }),
      409,
      'last_owner',
    );
    // Another tenant's user is not found.
    stack.expectProblem(await owner.request('DELETE', `/v1/users/${randomUUID()}`), 404, 'not_found');
  });

  it('admin user remove ends the sessions too', async () => {
    const address = await userWith('viewer');
    const viewer = await signIn(address);
    const run = await admin('user', 'remove', address, '--tenant', tenant.tenant_id);
    expect(run.code, run.stderr).toBe(0);
    stack.expectProblem(await viewer.request('GET', '/v1/deliveries', { csrf: null }), 401, 'unauthorized');
  });
});

describe('/v1/api_keys and /v1/users from an owner session (a secret key reads them only)', () => {
  it('creates a key shown once, lists keys by prefix only, changes origins, revokes (the revoked key then gets 401)', async () => {
    const t = await stack.tenant();
    const owner = await signIn(await userWith('owner', t.tenant_id));
    const created = await owner.request('POST', '/v1/api_keys', { body: { kind: 'secret' } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(created.body.prefix).toBe(created.body.secret.slice(0, 12));
    expect((await stack.request('GET', '/v1/couriers', { key: created.body.secret })).status).toBe(200);

    const list = await stack.request('GET', '/v1/api_keys', { key: t.secret_key });
    expect(list.body.data.map((k: any) => k.id)).toEqual(
      expect.arrayContaining([t.secret_key_id, t.publishable_key_id, created.body.id]),
    );
    expect(list.body.data.map((k: any) => k.id)).not.toContain(t.test_secret_key_id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);

    const bad = await owner.request('PATCH', `/v1/api_keys/${t.publishable_key_id}`, {
      body: { allowed_origins: ['https://ok.test', 'not an origin'] },
    });
    stack.expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors).toEqual([
      expect.objectContaining({ pointer: '/allowed_origins/1', code: 'invalid_format' }),
    ]);
    const patched = await owner.request('PATCH', `/v1/api_keys/${t.publishable_key_id}`, {
      body: { allowed_origins: ['https://ok.test'] },
    });
    expect(patched.body.allowed_origins).toEqual(['https://ok.test']);
    stack.expectProblem(
      await owner.request('PATCH', `/v1/api_keys/${t.secret_key_id}`, {
        body: { allowed_origins: ['https://ok.test'] },
      }),
      422,
      'validation_failed',
    );

    const revoked = await owner.request('POST', `/v1/api_keys/${created.body.id}/revoke`);
    expect(revoked.body).toMatchObject({ id: created.body.id, status: 'revoked', revoked_at: expect.any(String) });
    stack.expectProblem(await stack.request('GET', '/v1/couriers', { key: created.body.secret }), 401, 'unauthorized');
    // The session in test mode manages test keys only: the live key is not found.
    stack.expectProblem(
      await owner.request('POST', `/v1/api_keys/${t.secret_key_id}/revoke`, { headers: { 'dashboard-mode': 'test' } }),
      404,
      'not_found',
    );
    const revokedPublishable = await owner.request('POST', `/v1/api_keys/${t.publishable_key_id}/revoke`);
    expect(revokedPublishable.status).toBe(200);
    stack.expectProblem(
      await owner.request('PATCH', `/v1/api_keys/${t.publishable_key_id}`, { body: { allowed_origins: [] } }),
      409,
      'api_key_revoked',
    );
  });

  it('users: an owner session invites (link shown once), changes roles and removes; a live secret key lists them, a test key gets 403', async () => {
    const t = await stack.tenant();
    const owner = await signIn(await userWith('owner', t.tenant_id));
    stack.expectProblem(await stack.request('GET', '/v1/users', { key: t.test_secret_key }), 403, 'forbidden');
    const invited = await owner.request('POST', '/v1/users', { body: { email: email('Invited'), role: 'owner' } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body).toMatchObject({ role: 'owner', status: 'invited', last_sign_in_at: null });
    expect(invited.body.set_password_url).toMatch(new RegExp(`^${stack.url}/dashboard/set-password#token=`));
    stack.expectProblem(
      await owner.request('POST', '/v1/users', { body: { email: invited.body.email, role: 'viewer' } }),
      409,
      'email_taken',
    );
    stack.expectProblem(
      await owner.request('POST', '/v1/users', { body: { email: 'not-an-email', role: 'viewer' } }),
      422,
      'validation_failed',
    );

    // A new link replaces the first one.
    const link = await owner.request('POST', `/v1/users/${invited.body.id}/password_link`);
    expect(link.status).toBe(200);
    stack.expectProblem(
      await stack.request('POST', '/dashboard/api/password', {
        body: { token: tokenOf(invited.body.set_password_url), password: PASSWORD },
      }),
      422,
      'password_link_invalid',
    );
    expect(
      (
        await stack.request('POST', '/dashboard/api/password', {
          body: { token: tokenOf(link.body.set_password_url), password: PASSWORD },
        })
      ).status,
    ).toBe(204);

    const listed = await stack.request('GET', '/v1/users', { key: t.secret_key });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: owner.userId }),
      expect.objectContaining({ id: invited.body.id, status: 'active' }),
    ]);
    const second = await owner.request('POST', '/v1/users', { body: { email: email('second'), role: 'owner' } });
    expect((await owner.request('PATCH', `/v1/users/${invited.body.id}`, { body: { role: 'viewer' } })).body.role).toBe(
      'viewer',
    );
    expect((await owner.request('DELETE', `/v1/users/${invited.body.id}`)).body.deleted).toBe(true);
    expect((await stack.request('GET', '/v1/users', { key: t.secret_key })).body.data.map((u: any) => u.id)).toEqual([
      owner.userId,
      second.body.id,
    ]);
  });
});
