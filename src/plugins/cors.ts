// CORS for the widget surface only. A preflight carries no key, so it is answered for an origin that
// any active publishable key allows; the real request is then checked against its own key (plugins/auth.ts).
import fp from 'fastify-plugin';
import cors from '@fastify/cors';
import type { Pool } from '../db.js';

const CACHE_MS = 5_000;

export default fp(async (app, opts: { pool: Pool }) => {
  let cached = { at: 0, origins: new Set<string>() };
  // Allowed origins are cached for a few seconds; an origin missing from the cache triggers a refresh.
  const isAllowed = async (origin: string): Promise<boolean> => {
    if (Date.now() - cached.at < CACHE_MS && cached.origins.has(origin)) return true;
    const { rows } = await opts.pool.query<{ origin: string }>(
      `SELECT DISTINCT unnest(allowed_origins) AS origin FROM api_keys WHERE kind = 'publishable' AND revoked_at IS NULL`,
    );
    cached = { at: Date.now(), origins: new Set(rows.map((r) => r.origin)) };
    return cached.origins.has(origin);
  };

  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      if (!request.url.startsWith('/v1/widget/') || !origin) return callback(null, { origin: false });
      isAllowed(origin.toLowerCase())
        .then((allowed) =>
          callback(null, {
            origin: allowed ? origin : false,
            methods: ['GET', 'POST', 'OPTIONS'],
            allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
            exposedHeaders: ['x-request-id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
            maxAge: 600,
          }),
        )
        .catch((err) => callback(err as Error, { origin: false }));
    },
  });
});
