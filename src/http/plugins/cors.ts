// CORS for the widget surface only. A preflight carries no key, so it is answered for an origin that
// any active publishable key allows; the real request is then checked against its own key (plugins/auth.ts).
// Preflights are rate limited per client address before this runs (plugins/rate-limit.ts), and origins no key
// allows are remembered for a few seconds, so unknown origins do not reach the database on every preflight.
import fp from 'fastify-plugin';
import cors from '@fastify/cors';
import type { FastifyRequest } from 'fastify';

/** Allowed origins are reloaded at most this often while the origin asked about is among them. */
const CACHE_MS = 5_000;
/** An origin no active key allows is refused from memory for this long (so a newly allowed origin may wait as long)... */
const REJECTED_MS = 10_000;
/** ...and at most this many such origins are remembered, the oldest forgotten first. */
const REJECTED_MAX = 10_000;

/** The widget surface, by the matched route. A preflight matches @fastify/cors's catch-all OPTIONS route, so its decoded path is used. */
function onWidgetSurface(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route && route !== '*') return route.startsWith('/v1/widget/');
  try {
    return decodeURIComponent(request.url.split('?')[0]).startsWith('/v1/widget/');
  } catch {
    return false; // bad percent-encoding: no CORS
  }
}

/** `allowedOrigins`: every origin an active publishable key allows (the keys domain answers it; src/app.ts wires it). */
export default fp(async (app, opts: { allowedOrigins: () => Promise<string[]> }) => {
  let cached = { at: 0, origins: new Set<string>() };
  let loading: Promise<Set<string>> | null = null;
  const rejected = new Map<string, number>(); // origin -> until (ms); a Map iterates oldest first

  // One query at a time, whatever the number of preflights waiting on it.
  const load = () =>
    (loading ??= opts
      .allowedOrigins()
      .then((origins) => {
        cached = { at: Date.now(), origins: new Set(origins) };
        return cached.origins;
      })
      .finally(() => {
        loading = null;
      }));

  const isAllowed = async (origin: string): Promise<boolean> => {
    const now = Date.now();
    if (now - cached.at < CACHE_MS && cached.origins.has(origin)) return true;
    const until = rejected.get(origin);
    if (until !== undefined && until > now) return false;
    rejected.delete(origin);
    if ((await load()).has(origin)) return true;
    if (rejected.size >= REJECTED_MAX) rejected.delete(rejected.keys().next().value as string);
    rejected.set(origin, Date.now() + REJECTED_MS);
    return false;
  };

  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      if (!origin || !onWidgetSurface(request)) return callback(null, { origin: false });
      isAllowed(origin.toLowerCase())
        .then((allowed) =>
          callback(null, {
            origin: allowed ? origin : false,
            methods: ['GET', 'POST', 'OPTIONS'],
            allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
            exposedHeaders: [
              'x-request-id',
              'RateLimit-Limit',
              'RateLimit-Remaining',
              'RateLimit-Reset',
              'Retry-After',
            ],
            maxAge: 600,
          }),
        )
        .catch((err) => callback(err as Error, { origin: false }));
    },
  });
});
