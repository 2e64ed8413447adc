// A dashboard session for tests that manage users and keys: those writes take a session, never a secret key
// (403 session_required, src/users/roles.ts sessionOnly). test/dashboard/dashboard-api.test.ts drives sign-in itself.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createUser } from '../../src/users/service.js';
import type { Role } from '../../src/users/roles.js';
import type { Stack } from './stack.js';

const PASSWORD = 'correct horse battery staple';

/** Sends a request as the dashboard's page does: the session cookie, its CSRF token, same origin. */
export type SessionRequest = (
  method: string,
  path: string,
  options?: { body?: unknown; headers?: Record<string, string> },
) => ReturnType<Stack['request']>;

/** Signs in a new user of `tenantId` with `role` (its password set through its one-time link). */
export async function dashboardSession(
  stack: Stack,
  tenantId: string,
  role: Role = 'owner',
): Promise<{ userId: string; cookie: string; csrf: string; request: SessionRequest }> {
  const email = `${role}-${randomUUID().slice(0, 8)}@loja.test`;
  const created = await createUser(stack.pool, stack.config.dashboard, stack.url, { tenantId, email, role });
  const token = new URL(created.set_password_url).hash.replace(/^#token=/, '');
  expect((await stack.request('POST', '/dashboard/api/password', { body: { token, password: PASSWORD } })).status).toBe(
    204,
  );
  const res = await stack.request('POST', '/dashboard/api/session', {
    body: { email, password: PASSWORD },
    headers: { origin: stack.url },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const cookie = res.headers.get('set-cookie')!.split(';')[0];
  const csrf: string = res.body.csrf_token;
  return {
    userId: res.body.user.id,
    cookie,
    csrf,
    request: (method, path, options = {}) =>
      stack.request(method, path, {
        body: options.body,
        headers: {
          cookie,
          origin: stack.url,
          'sec-fetch-site': 'same-origin',
          'x-csrf-token': csrf,
          ...options.headers,
        },
      }),
  };
}
