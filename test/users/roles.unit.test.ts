// Who may do what (src/users/roles.ts): the least role a dashboard session needs per route, the writes only a
// session may make (never a secret key), and the user view, which never carries a password hash.
import { describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/users/repository.js';
import { ROLES, requiredRole, roleAllows, sessionOnly } from '../../src/users/roles.js';
import { User } from '../../src/users/schemas.js';
import { toUser } from '../../src/users/views.js';

describe('roles', () => {
  it('are ordered viewer < developer < owner', () => {
    expect(ROLES).toEqual(['viewer', 'developer', 'owner']);
    expect(roleAllows('owner', 'viewer')).toBe(true);
    expect(roleAllows('developer', 'developer')).toBe(true);
    expect(roleAllows('developer', 'owner')).toBe(false);
    expect(roleAllows('viewer', 'developer')).toBe(false);
  });

  it('requiredRole: users are the owner’s, reads the viewer’s, keys and settings the owner’s in live mode only', () => {
    expect(requiredRole('GET', '/v1/users', false)).toBe('owner');
    expect(requiredRole('POST', '/v1/users/:id/password_link', true)).toBe('owner');
    expect(requiredRole('GET', '/v1/deliveries', true)).toBe('viewer');
    expect(requiredRole('HEAD', '/v1/api_keys', true)).toBe('viewer');
    expect(requiredRole('POST', '/v1/api_keys', true)).toBe('owner');
    expect(requiredRole('POST', '/v1/api_keys', false)).toBe('developer');
    expect(requiredRole('POST', '/v1/api_keys/:id/revoke', true)).toBe('owner');
    expect(requiredRole('PUT', '/v1/settings/dispatch', true)).toBe('owner');
    expect(requiredRole('PUT', '/v1/settings/dispatch', false)).toBe('developer');
    // The shop profile is the account's, for both modes: an owner's in test mode too; everyone reads it.
    expect(requiredRole('PUT', '/v1/settings/shop', true)).toBe('owner');
    expect(requiredRole('PUT', '/v1/settings/shop', false)).toBe('owner');
    expect(requiredRole('GET', '/v1/settings/shop', false)).toBe('viewer');
    expect(requiredRole('POST', '/v1/deliveries', true)).toBe('developer');
    expect(requiredRole('DELETE', '/v1/webhook_endpoints/:id', true)).toBe('developer');
    // A route that only starts like a guarded one is not guarded by it.
    expect(requiredRole('POST', '/v1/api_keysX', true)).toBe('developer');
  });

  it('sessionOnly: writes to users and keys, not their reads nor anything else', () => {
    expect(sessionOnly('POST', '/v1/users')).toBe(true);
    expect(sessionOnly('PATCH', '/v1/users/:id')).toBe(true);
    expect(sessionOnly('POST', '/v1/api_keys')).toBe(true);
    expect(sessionOnly('POST', '/v1/api_keys/:id/revoke')).toBe(true);
    expect(sessionOnly('GET', '/v1/users')).toBe(false);
    expect(sessionOnly('GET', '/v1/api_keys')).toBe(false);
    expect(sessionOnly('POST', '/v1/deliveries')).toBe(false);
    expect(sessionOnly('PUT', '/v1/settings/dispatch')).toBe(false);
  });
});

describe('the user view', () => {
  const row: UserRow = {
    id: '66666666-6666-4666-8666-666666666666',
    tenant_id: '11111111-1111-4111-8111-111111111111',
    email: 'ana@shop.test',
    role: 'developer',
    password_hash: 'scrypt$abc$def',
    password_set_at: new Date('2030-01-01T00:00:00Z'),
    last_sign_in_at: null,
    created_at: new Date('2030-01-01T00:00:00Z'),
  };

  it('active with a password, invited without; never the hash or the tenant', () => {
    const user = toUser(row);
    expect(User.strict().parse(user)).toBeTruthy();
    expect(user).toMatchObject({ status: 'active', last_sign_in_at: null });
    expect(JSON.stringify(user)).not.toMatch(/scrypt|tenant/);
    expect(toUser({ ...row, password_hash: null }).status).toBe('invited');
  });
});
