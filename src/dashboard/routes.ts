// The merchant dashboard (docs/dashboard.md), outside the OpenAPI document:
//   GET    /dashboard, /dashboard/*        the single-page app (web/dashboard, built into .build/dashboard)
//   GET    /dashboard/assets/<file>        its scripts and styles (content-hashed names: cached for a year)
//   POST   /dashboard/api/session          sign in: email and password (and tenant_id) -> the session cookie and a CSRF token,
//                                           or (200) the tenants the email and password open, to choose one from
//   GET    /dashboard/api/session          the signed-in user, tenant and CSRF token
//   DELETE /dashboard/api/session          sign out (CSRF token required)
//   POST   /dashboard/api/password         set a password with a one-time link's token
// Everything else the dashboard shows comes from the /v1 routes, authorised by the session (plugins/session.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import { ApiError } from '../http/problem.js';
import { dashboardFile } from './asset.js';
import { clearSessionCookie, sameOrigin, setSessionCookie, type DashboardSession } from '../users/session-plugin.js';
import { SetPasswordBody, SignInBody } from '../users/schemas.js';
import { setPasswordWithLink, signIn, signOut } from '../users/service.js';

const YEAR = 365 * 86_400;

/** The app's own pages: scripts, styles, API calls to this origin only; no inline code, no framing. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Dashboard not built</title>
<p>The dashboard is not built on this server: run <code>npm run build:dashboard</code> (<code>npm run build</code> and <code>npm run dev</code> build it too).</p></html>`;

/** What the dashboard learns about its session. */
function sessionView(
  session: Pick<DashboardSession, 'userId' | 'email' | 'role' | 'tenantId' | 'tenantName' | 'csrfToken' | 'expiresAt'>,
) {
  return {
    user: { id: session.userId, email: session.email, role: session.role },
    tenant: { id: session.tenantId, name: session.tenantName },
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt.toISOString(),
  };
}

function etagMatches(header: string | undefined, etag: string): boolean {
  return !!header && header.split(',').some((tag) => tag.trim() === etag || tag.trim() === `W/${etag}`);
}

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

/** What the routes of this module share: settings, secure, perAddress, send, page. */
function shared({ config }: AppDeps) {
  const settings = config.dashboard;
  const secure = settings.secureCookies;
  // Counted per client address (the global limiter skips non-/v1 paths); sign-in has its own lockout besides.
  const perAddress = (max: number) => ({
    max,
    allowList: () => false,
    keyGenerator: (request: FastifyRequest) => `dashboard:${request.ip}`,
  });

  const send = async (request: FastifyRequest, reply: FastifyReply, relative: string, immutable: boolean) => {
    // A build being swapped in (scripts/lib/dashboard.ts renames folders) leaves no file for a moment: look once more.
    let file = dashboardFile(relative);
    if (!file) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      file = dashboardFile(relative);
    }
    if (!file) {
      if (relative !== 'index.html') throw new ApiError(404, 'not_found', 'No such dashboard file.');
      return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    }
    reply
      .type(file.type)
      .header('etag', file.etag)
      .header('vary', 'Accept-Encoding')
      .header('cache-control', immutable ? `public, max-age=${YEAR}, immutable` : 'no-cache');
    if (relative === 'index.html')
      reply.header('content-security-policy', DASHBOARD_CSP).header('x-robots-tag', 'noindex, nofollow');
    if (etagMatches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
    if (file.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')))
      return reply.header('content-encoding', 'gzip').send(file.gzip);
    return reply.send(file.body);
  };

  const page = { config: { auth: 'none' as const, rateLimit: perAddress(600) }, schema: { hide: true } };
  return { settings, secure, perAddress, send, page };
}
type Shared = ReturnType<typeof shared>;

/** The dashboard's page and its built assets (src/dashboard/asset.ts). */
function registerPages(app: App, _deps: AppDeps, { send, page }: Shared) {
  app.get('/dashboard', page, async (request, reply) => send(request, reply, 'index.html', false));
  app.get('/dashboard/*', page, async (request, reply) => send(request, reply, 'index.html', false));
  app.get('/dashboard/assets/:file', page, async (request: FastifyRequest<{ Params: { file: string } }>, reply) =>
    send(request, reply, `assets/${request.params.file}`, true),
  );
}

function registerSignIn(app: App, { pool, config }: AppDeps, { settings, secure, perAddress }: Shared) {
  app.post(
    '/dashboard/api/session',
    { config: { auth: 'none', rateLimit: perAddress(60) }, schema: { hide: true, body: SignInBody } },
    async (request, reply) => {
      // Only the dashboard's own page signs in (a JSON body already rules out a cross-site form; this rules out the rest).
      if (!sameOrigin(request, config.baseUrl))
        throw new ApiError(403, 'csrf_token_invalid', 'Sign in from the dashboard itself.');
      const { email, password, tenant_id } = request.body;
      const session = await signIn(pool, settings, { email, password, tenantId: tenant_id, address: request.ip });
      reply.header('cache-control', 'no-store');
      // Accounts in several teams open with this password: the person picks one and signs in again with its tenant_id.
      if (session.kind === 'choose_tenant') return reply.code(200).send({ tenants: session.tenants });
      setSessionCookie(reply, session.sessionToken, settings.sessionMaxMs, secure);
      return reply.code(201).send(
        sessionView({
          userId: session.user.id,
          email: session.user.email,
          role: session.user.role,
          tenantId: session.user.tenant_id,
          tenantName: session.tenantName,
          csrfToken: session.csrfToken,
          expiresAt: session.expiresAt,
        }),
      );
    },
  );
}

function registerGetSession(app: App, _deps: AppDeps, { perAddress }: Shared) {
  app.get(
    '/dashboard/api/session',
    { config: { auth: 'none', dashboardSession: 'required', rateLimit: perAddress(600) }, schema: { hide: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return sessionView(request.dashboardSession!);
    },
  );
}

function registerSignOut(app: App, { pool }: AppDeps, { secure, perAddress }: Shared) {
  app.delete(
    '/dashboard/api/session',
    { config: { auth: 'none', dashboardSession: 'required', rateLimit: perAddress(600) }, schema: { hide: true } },
    async (request, reply) => {
      await signOut(pool, request.dashboardSession!.idHash);
      return clearSessionCookie(reply, secure).code(204).send();
    },
  );
}

function registerSetPassword(app: App, { pool, config }: AppDeps, { perAddress }: Shared) {
  app.post(
    '/dashboard/api/password',
    { config: { auth: 'none', rateLimit: perAddress(60) }, schema: { hide: true, body: SetPasswordBody } },
    async (request, reply) => {
      if (!sameOrigin(request, config.baseUrl))
        throw new ApiError(403, 'csrf_token_invalid', 'Set your password from the dashboard itself.');
      await setPasswordWithLink(pool, request.body.token, request.body.password);
      return reply.code(204).send();
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const s = shared(deps);
  registerPages(app, deps, s);
  registerSignIn(app, deps, s);
  registerGetSession(app, deps, s);
  registerSignOut(app, deps, s);
  registerSetPassword(app, deps, s);
};
export default routes;
