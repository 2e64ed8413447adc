// Dashboard sessions (docs/dashboard.md). The dashboard at /dashboard calls the same /v1 routes as a merchant's
// server, authorised by its session cookie instead of a secret key:
//   - the cookie (httpOnly, SameSite=Strict, Secure in production) names a session stored in Postgres (its hash);
//   - only same-origin requests: `Sec-Fetch-Site`, when sent, is same-origin, and `Origin`, when sent, is this API's;
//   - every state-changing request carries the session's CSRF token in `X-CSRF-Token`;
//   - the user's role allows the route (src/users/roles.ts), else 403 forbidden;
//   - `Dashboard-Mode: test` works on test objects (as a `sk_test_` key would), anything else on live ones.
// Such a request then looks like one made with a secret key of that mode (request.auth), so every /v1 route serves
// the dashboard as it is: plugins/auth.ts accepts it in place of a Bearer key. A request that sends
// `Authorization` is a key's, whatever cookie it carries. Routes of the dashboard itself (src/dashboard/routes.ts)
// ask for the session with `config.dashboardSession`.
import fastifyCookie, { type CookieSerializeOptions } from '@fastify/cookie';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Pool } from '../platform/db.js';
import { ApiError, unauthorized } from '../http/problem.js';
import { deleteSession, sessionByHash, touchSession } from './repository.js';
import { requiredRole, roleAllows, type Role } from './roles.js';
import { sessionHash, type DashboardSettings } from './service.js';
import { authModeFor } from '../http/plugins/auth.js';

export interface DashboardSession {
  idHash: Buffer;
  userId: string;
  tenantId: string;
  tenantName: string;
  email: string;
  role: Role;
  csrfToken: string;
  expiresAt: Date;
  /** The mode the dashboard asked for (`Dashboard-Mode`). */
  livemode: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A dashboard route that reads the session: `required` answers 401 without one. */
    dashboardSession?: 'required' | 'optional';
  }
  interface FastifyRequest {
    dashboardSession: DashboardSession | null;
  }
}

export const CSRF_HEADER = 'x-csrf-token';
export const MODE_HEADER = 'dashboard-mode';
/** The session cookie's name: with the __Host- prefix where cookies are Secure (the browser then pins it to this host). */
export const sessionCookieName = (secure: boolean) => (secure ? '__Host-dashboard_session' : 'dashboard_session');

const READS = new Set(['GET', 'HEAD']);
/** Sessions are used at most this often without moving their idle deadline (one write a minute, not one a request). */
const TOUCH_EVERY_MS = 60_000;

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const csrfRefused = (detail: string) => new ApiError(403, 'csrf_token_invalid', detail);

/** The session cookie's attributes: HttpOnly, SameSite=Strict, Path=/, Secure where cookies are secure. */
const cookieOptions = (secure: boolean): CookieSerializeOptions => ({
  path: '/',
  httpOnly: true,
  sameSite: 'strict',
  secure,
});

/** Sets the cookie of a new session, lasting `maxAgeMs`. */
export function setSessionCookie(reply: FastifyReply, token: string, maxAgeMs: number, secure: boolean): FastifyReply {
  return reply.setCookie(sessionCookieName(secure), token, {
    ...cookieOptions(secure),
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

/** Removes the session cookie (empty value, Max-Age=0). */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): FastifyReply {
  return reply.clearCookie(sessionCookieName(secure), cookieOptions(secure));
}

/** True when the request comes from this API's own pages: its Origin (when sent) is this host's or PUBLIC_BASE_URL's. */
export function sameOrigin(request: FastifyRequest, baseUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === new URL(baseUrl).origin || origin === `${request.protocol}://${request.host}`;
}

export interface SessionPluginOptions {
  pool: Pool;
  settings: DashboardSettings;
  secureCookies: boolean;
  baseUrl: string;
}

export default fp(async (app, opts: SessionPluginOptions) => {
  const { pool, settings, secureCookies, baseUrl } = opts;
  const cookieName = sessionCookieName(secureCookies);
  // Parses the Cookie header (request.cookies) in its own onRequest hook, registered before ours so it runs first.
  await app.register(fastifyCookie);
  app.decorateRequest('dashboardSession', null);

  /** The request's valid session, or null when it has no cookie; throws 401 for an ended one and 403 for a cross-site use. */
  async function resolve(request: FastifyRequest, reply: FastifyReply): Promise<DashboardSession | null> {
    const token = request.cookies[cookieName];
    if (!token) return null;
    const idHash = sessionHash(token);
    const row = await sessionByHash(pool, idHash);
    if (!row || row.expired) {
      if (row) await deleteSession(pool, idHash);
      clearSessionCookie(reply, secureCookies);
      throw unauthorized(
        row ? 'Your dashboard session expired; sign in again.' : 'Your dashboard session has ended; sign in again.',
      );
    }
    if (!sameOrigin(request, baseUrl))
      throw csrfRefused('A dashboard session works only on requests from the dashboard itself.');
    if (!READS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameText(sent, row.csrf_token)) {
        throw csrfRefused(
          `A change made with a dashboard session must carry the session's CSRF token in ${CSRF_HEADER}; reload the dashboard.`,
        );
      }
    }
    if (Date.now() - row.last_seen_at.getTime() > TOUCH_EVERY_MS)
      await touchSession(pool, idHash, settings.sessionIdleMs);
    return {
      idHash,
      userId: row.user_id,
      tenantId: row.tenant_id,
      tenantName: row.tenant_name,
      email: row.email,
      role: row.role,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
      livemode: request.headers[MODE_HEADER] !== 'test',
    };
  }

  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route || request.method === 'OPTIONS') return;
    const wanted = request.routeOptions.config?.dashboardSession;
    if (wanted) {
      const session = await resolve(request, reply);
      if (!session && wanted === 'required') throw unauthorized('Sign in to the dashboard first.');
      request.dashboardSession = session;
      return;
    }
    // A /v1 route that takes a secret key, asked without one: the session stands in for it.
    if (authModeFor(request) !== 'secret' || request.headers.authorization !== undefined) return;
    const session = await resolve(request, reply);
    if (!session) return; // plugins/auth.ts answers 401 as for any request without a key
    const needed = requiredRole(request.method, route, session.livemode);
    if (!roleAllows(session.role, needed)) {
      throw new ApiError(
        403,
        'forbidden',
        `Your role (${session.role}) cannot do this; it takes ${needed === 'owner' ? 'an owner' : 'a developer or an owner'}.`,
      );
    }
    request.dashboardSession = session;
    request.log = reply.log = request.log.child({ tenantId: session.tenantId, userId: session.userId });
    request.auth = { tenantId: session.tenantId, keyId: session.userId, kind: 'secret', livemode: session.livemode };
  });
});
