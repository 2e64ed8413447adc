// Rate limits per API key (and, on the public widget surface, per client address too), with
// RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset headers and a 429 problem+json carrying Retry-After.
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { createHash } from 'node:crypto';
import { ApiError } from '../lib/problem.js';

export default fp(async (app, opts: { perMinute: number; widgetPerMinute: number }) => {
  const keyOf = (auth: string | undefined) => createHash('sha256').update(auth ?? '').digest('base64url').slice(0, 22);
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    enableDraftSpec: true,
    timeWindow: 60_000,
    max: (request) => (request.url.startsWith('/v1/widget/') ? opts.widgetPerMinute : opts.perMinute),
    keyGenerator: (request) => {
      const auth = request.headers.authorization;
      if (request.url.startsWith('/v1/widget/')) return `w:${keyOf(auth)}:${request.ip}`;
      return auth ? `k:${keyOf(auth)}` : `ip:${request.ip}`;
    },
    allowList: (request) => !request.url.startsWith('/v1/') || request.method === 'OPTIONS',
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, 'rate_limited', `Rate limit of ${context.max} requests per minute exceeded; retry after ${Math.ceil(context.ttl / 1000)} s.`),
  });
});
