// The test key the API reference (/docs) fills in for a signed-in dashboard user (docs/reference.md "Your test key").
// Security: the key is
//   - only for a session that is valid now, whose cookie came with a top-level navigation of this site (Sec-Fetch-Site
//     same-origin or none: typed, bookmarked or a link of our own pages; the cookie is SameSite=Strict anyway);
//   - only for a developer or an owner (the roles that may create test keys; a viewer gets none);
//   - always a test key (sk_test_) of the session's own tenant, never a live one and never an existing key: it is
//     derived from the session's secret token (src/keys/service.ts sessionTestKey) and ends with the session;
//   - answered with `Cache-Control: no-store` by the page (src/http/plugins/reference.ts), which no other origin can
//     read (no CORS on /docs).
import type { FastifyRequest } from 'fastify';
import type { Pool } from '../platform/db.js';
import { sessionTestKey } from '../keys/service.js';
import { sessionByHash } from './repository.js';
import { roleAllows } from './roles.js';
import { sessionHash } from './service.js';
import { sessionCookieName } from './session-plugin.js';

/** The reader the reference page is given: the request's test key, or null (no session, a viewer, a cross-site visit). */
export function referenceKeyReader(pool: Pool, secureCookies: boolean) {
  const cookieName = sessionCookieName(secureCookies);
  return async (request: FastifyRequest): Promise<string | null> => {
    const token = request.cookies?.[cookieName];
    if (!token) return null;
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return null;
    const idHash = sessionHash(token);
    const session = await sessionByHash(pool, idHash);
    if (!session || session.expired || !roleAllows(session.role, 'developer')) return null;
    return sessionTestKey(pool, { tenantId: session.tenant_id, token, idHash, expiresAt: session.expires_at });
  };
}
