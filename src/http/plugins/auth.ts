// Authentication. Each route says which credential it takes in `config.auth`:
//   'secret'       merchant API, `Authorization: Bearer sk_live_...` (the default for /v1/*)
//   'publishable'  widget API, `Bearer pk_live_...` plus an `Origin` the key allows (the default for /v1/widget/*)
//   'operator'     operator routes (diagnostics), `Authorization: Bearer <ADMIN_TOKEN>`; never a merchant key
//   'none'         tracking, health, docs
// A test key (`sk_test_`, `pk_test_`) is accepted wherever its live twin is; `request.auth.livemode` is false then,
// and scopeOf(request) confines the request to the tenant's test objects (docs/test-mode.md).
// Failed authentications are counted per client address by plugins/rate-limit.ts (every 401 on /v1).
// The writes on dashboard users and API keys take a dashboard session: a secret key gets 403 session_required there.
// The merchant dashboard's session cookie is accepted in place of a secret key (src/users/session-plugin.ts, registered first).
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { hashKey, keyPrefix, parseKey, sameHash, type KeyKind } from '../../platform/secrets.js';
import { ApiError, unauthorized } from '../problem.js';
import type { Scope } from '../../platform/scope.js';

export type AuthMode = KeyKind | 'operator' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    auth: { tenantId: string; keyId: string; kind: KeyKind; livemode: boolean; origin?: string } | null;
  }
}

/** A stored key, as the keys domain answers it (src/keys/store.ts). */
export interface StoredKey {
  id: string;
  tenant_id: string;
  key_hash: Buffer;
  allowed_origins: string[];
  revoked_at: Date | null;
  livemode: boolean;
}

/**
 * What the keys and users domains tell authentication (src/app.ts passes them, so this layer imports no domain):
 * `keyStore` opens the store of keys (its argument is told when the store's change listener is lost), and
 * `sessionOnly` says which writes only a dashboard session may make (src/users/roles.ts).
 */
export interface AuthOptions {
  adminToken?: string;
  keyStore: (onListenerLost: (err: unknown) => void) => {
    find(hash: Buffer, kind: KeyKind): Promise<StoredKey | null>;
    close(): Promise<void>;
  };
  sessionOnly: (method: string, route: string) => boolean;
}

export function authModeFor(request: FastifyRequest): AuthMode {
  const configured = request.routeOptions.config?.auth;
  if (configured) return configured;
  const url = request.routeOptions.url ?? request.url;
  if (url.startsWith('/v1/widget/')) return 'publishable';
  if (url.startsWith('/v1/')) return 'secret';
  return 'none';
}

export default fp(async (app, opts: AuthOptions) => {
  const adminTokenHash = opts.adminToken ? hashKey(opts.adminToken) : null;
  app.decorateRequest('auth', null);
  // The keys this process authenticated, forgotten the moment they change (src/keys/cache.ts).
  const keys = opts.keyStore((err) =>
    app.log.warn(
      { err },
      'API key cache: lost its Postgres listener; asking Postgres on every request until it is back',
    ),
  );
  app.addHook('onClose', () => keys.close());

  app.addHook('onRequest', async (request, reply) => {
    // No route (404) and CORS preflights carry no credentials.
    if (!request.routeOptions.url || request.method === 'OPTIONS') return;
    const mode = authModeFor(request);
    if (mode === 'none') return;
    // A dashboard session (src/users/session-plugin.ts: same origin, the CSRF token on changes, a role that allows the route)
    // stands in for a secret key: it has set request.auth to the tenant and the mode the dashboard is in.
    if (mode === 'secret' && request.auth && request.dashboardSession) return;

    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (mode === 'operator') {
      // Compared as SHA-256 digests in constant time; no tenant is attached.
      if (!match || !adminTokenHash || !sameHash(hashKey(match[1]), adminTokenHash)) {
        throw unauthorized('This endpoint takes the operator token: "Authorization: Bearer <ADMIN_TOKEN>".');
      }
      return;
    }
    if (!match) throw unauthorized('Send your API key as "Authorization: Bearer <key>".');
    const key = match[1];
    const parsed = parseKey(key);
    if (parsed === null) {
      // Not the shape of any key we issue: a truncated copy, a stray character, a placeholder.
      throw unauthorized(
        `The API key is malformed: a ${mode} key is ${keyPrefix(mode)} followed by 32 letters and digits (${keyPrefix(mode, 'test')} in test mode). ` +
          'Copy the whole key as it was issued.',
      );
    }
    const { kind } = parsed;
    if (kind !== mode) {
      throw unauthorized(
        mode === 'secret'
          ? `This endpoint takes a secret key (${keyPrefix('secret', parsed.mode)}...), not a publishable key.`
          : `This endpoint takes a publishable key (${keyPrefix('publishable', parsed.mode)}...), not a secret key.`,
      );
    }
    const hash = hashKey(key);
    const row = await keys.find(hash, kind);
    if (!row || !sameHash(row.key_hash, hash) || row.revoked_at) throw unauthorized('Invalid or revoked API key.');
    // Every later line of this request (its handler's, "request completed") names the tenant and the key (its id).
    request.log = reply.log = request.log.child({ tenantId: row.tenant_id, keyId: row.id });
    // The prefix and the stored mode agree for every key we issued; the stored one decides.
    const livemode = row.livemode;

    if (kind === 'publishable') {
      const origin = request.headers.origin;
      if (!origin || !row.allowed_origins.includes(origin.toLowerCase())) {
        throw unauthorized('This origin is not allowed for the publishable key.');
      }
      request.auth = { tenantId: row.tenant_id, keyId: row.id, kind, livemode, origin };
      return;
    }
    // Users and key issuance are managed from a dashboard session only (src/users/roles.ts): a leaked secret key
    // must not mint its own successor, nor an owner account, nor revoke the merchant's keys.
    if (opts.sessionOnly(request.method, request.routeOptions.url ?? '')) {
      throw new ApiError(
        403,
        'session_required',
        'Dashboard users and API keys are managed from a dashboard session only, not with a secret key; use the dashboard.',
      );
    }
    request.auth = { tenantId: row.tenant_id, keyId: row.id, kind, livemode };
  });
});

/** The authenticated tenant and mode of a route that requires a key: what its repository reads are confined to. */
export function scopeOf(request: FastifyRequest): Scope {
  if (!request.auth) throw unauthorized();
  return { tenantId: request.auth.tenantId, livemode: request.auth.livemode };
}
