// Rate limits on /v1, with RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset headers and a 429 problem+json
// carrying Retry-After. Requests are counted per minute in these buckets:
//   k:<key id>             an authenticated key: counted after auth (preParsing), so a made-up key has no bucket of its own
//   w:<key id>:<address>   a publishable key on the widget surface, per client address as well
//   ip:<address>           /v1 routes that take no key (tracking, the OpenAPI document, the operator route)
//   authfail:<address>     failed authentications (401); past the limit the address gets 429 on /v1 before its key
//                          is even looked up, so a flood of random keys ends in 429 instead of database queries
//   preflight:<address>    CORS preflights (OPTIONS), counted before the origin is checked (plugins/cors.ts)
// Widget or merchant is decided on the matched route (request.routeOptions.url), never the raw URL. The client
// address is request.ip, which trusts X-Forwarded-For only as TRUST_PROXY says (src/app.ts); IPv6 addresses count
// per /64. With REDIS_URL the counters live in Redis, shared by every API replica; while Redis is unreachable
// requests pass (fail open: a Redis outage must not take the API down) and the outage is logged once.
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { ApiError } from '../lib/problem.js';
import './auth.js'; // request.auth

export interface RateLimitOptions {
  perMinute: number;
  widgetPerMinute: number;
  /** Failed authentications per client address and minute. */
  authFailuresPerMinute: number;
  redisUrl?: string;
  /** Prefix of every counter's key in Redis. */
  redisPrefix?: string;
}

const WINDOW_MS = 60_000;

const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? '';
const isApiRoute = (request: FastifyRequest) => routeOf(request).startsWith('/v1/');
const isWidgetRoute = (request: FastifyRequest) => routeOf(request).startsWith('/v1/widget/');
const addressOf = (request: FastifyRequest) => normalizeIP(request.ip);

const tooMany = (detail: string, retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', `${detail}; retry after ${retryAfterSeconds} s.`, undefined, { 'retry-after': String(retryAfterSeconds) });

/** ioredis for the shared counters: commands fail at once (and the limiter lets the request pass) while Redis is away. */
function redisClient(url: string, log: { warn: (obj: object, msg: string) => void; info: (msg: string) => void }): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 500 });
  let down = false;
  // Without an 'error' listener ioredis errors would crash the process; it keeps reconnecting on its own.
  redis.on('error', (err) => {
    if (down) return;
    down = true;
    log.warn({ err }, 'rate limits: Redis is unreachable; requests pass unlimited until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info('rate limits: Redis is reachable again');
  });
  return redis;
}

export default fp(async (app, opts: RateLimitOptions) => {
  const redis = opts.redisUrl ? redisClient(opts.redisUrl, app.log) : undefined;
  if (redis) {
    app.addHook('onClose', async () => redis.disconnect());
    // Start counting from the first request: wait (briefly) for the connection; an unreachable Redis does not hold start-up.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 3000);
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done).off('error', done);
        resolve();
      };
      redis.once('ready', done).once('error', done);
    });
  }

  await app.register(rateLimit, {
    global: true,
    // After every onRequest hook (auth's included, so request.auth is known) and before the body is read.
    hook: 'preParsing',
    enableDraftSpec: true,
    timeWindow: WINDOW_MS,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: opts.redisPrefix } : {}),
    max: (request) => (isWidgetRoute(request) ? opts.widgetPerMinute : opts.perMinute),
    keyGenerator: (request) => {
      const auth = request.auth;
      if (auth && isWidgetRoute(request)) return `w:${auth.keyId}:${addressOf(request)}`;
      if (auth) return `k:${auth.keyId}`;
      return `ip:${addressOf(request)}`;
    },
    allowList: (request) => !isApiRoute(request),
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, 'rate_limited', `Rate limit of ${context.max} requests per minute exceeded; retry after ${Math.ceil(context.ttl / 1000)} s.`),
  });

  // Preflights are answered by @fastify/cors in its onRequest hook; this one runs first (registered earlier).
  const preflights = app.createRateLimit({
    max: opts.widgetPerMinute,
    keyGenerator: (request) => `preflight:${addressOf(request)}`,
    allowList: () => false,
  });
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'OPTIONS') return;
    const limit = await preflights(request);
    if (!limit.isAllowed && limit.isExceeded) {
      throw tooMany(`Rate limit of ${limit.max} preflight requests per minute exceeded`, limit.ttlInSeconds);
    }
  });

  // Failed authentications: counted when a 401 leaves (onSend, before the client has it), checked before auth runs.
  const authFailures = app.createRateLimit({
    max: opts.authFailuresPerMinute,
    keyGenerator: (request) => `authfail:${addressOf(request)}`,
    allowList: () => false,
  });
  app.addHook('onRequest', async (request) => {
    if (request.method === 'OPTIONS' || !isApiRoute(request)) return;
    const limit = await authFailures(request, { increment: false });
    if (!limit.isAllowed && limit.remaining === 0) {
      throw tooMany(`More than ${limit.max} failed authentications per minute from this address`, Math.max(1, limit.ttlInSeconds));
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && isApiRoute(request)) await authFailures(request);
    return payload;
  });
});
