// Rate limits on /v1, with RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset headers and a 429 problem+json
// carrying Retry-After. Requests are counted per minute in these buckets:
//   k:<key id>             an authenticated key: counted after auth (preParsing), so a made-up key has no bucket of its own
//   w:<key id>:<address>   a publishable key on the widget surface, per client address as well
//   ip:<address>           /v1 routes that take no key (tracking, the OpenAPI document, the operator route)
//   authfail:<address>     failed authentications (401); past the limit the address gets 429 on /v1 before its key
//                          is even looked up, so a flood of random keys ends in 429 instead of database queries
//   preflight:<address>    CORS preflights (OPTIONS), counted before the origin is checked (plugins/cors.ts)
//   unknown:<address>      paths under /v1 that match no route (404): per client address, so probing for routes is
//                          limited like any other /v1 request
// Widget or merchant is decided on the matched route (request.routeOptions.url), never the raw URL. The client
// address is request.ip, which trusts X-Forwarded-For only as TRUST_PROXY says (src/app.ts); IPv6 addresses count
// per /64. With REDIS_URL the counters live in Redis, shared by every API replica; while Redis is unreachable (or a
// call to it fails) the request is counted in this process's memory instead (fallbackStore): each replica then
// holds the limits on its own, a Redis outage neither lifts the limits nor takes the API down, and it is logged once.
import { createRequire } from 'node:module';
import fp from 'fastify-plugin';
import rateLimit, {
  normalizeIP,
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError } from '../problem.js';
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
/** A request that matched no route (the 404 handler) under /v1, however its path is escaped or cased. */
function isUnknownApiPath(request: FastifyRequest): boolean {
  if (!request.is404) return false;
  const path = request.url.split('?')[0];
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    /* a malformed escape: the raw path */
  }
  return /^\/+v1(\/|$)/i.test(decoded);
}

const tooMany = (detail: string, retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', `${detail}; retry after ${retryAfterSeconds} s.`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });

/** Redis (shared rate-limit counters): the connect timeout and each command's. */
export const REDIS_CONNECT_TIMEOUT_MS = 2000;
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * ioredis for the shared counters, failing fast while Redis is away: no offline queue (a command without a connection
 * fails at once instead of waiting for one), one attempt per command, 500 ms per command, and reconnection in the
 * background every second at most. The limiter then counts the request in memory (fallbackStore). ioredis is loaded
 * only when REDIS_URL is set: 4 MB of the API's memory otherwise (docs/operations.md "Production build and memory").
 */
async function redisClient(
  url: string,
  log: { warn: (obj: object, msg: string) => void; info: (msg: string) => void },
): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  let down = false;
  // Without an 'error' listener ioredis errors would crash the process; it keeps reconnecting on its own.
  redis.on('error', (err) => {
    if (down) return;
    down = true;
    log.warn(
      { err },
      'rate limits: Redis is unreachable; counting in this process (limits per replica) until it is back',
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info('rate limits: Redis is reachable again');
  });
  return redis;
}

// @fastify/rate-limit's own stores (not in its exports' types): the Lua-scripted Redis one and the in-memory LRU one.
const requireCjs = createRequire(import.meta.url);
type StoreCallback = (err: Error | null, result?: { current: number; ttl: number }) => void;
interface Store extends FastifyRateLimitStore {
  read(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
}
interface StoreClasses {
  RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string) => Store;
  LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => Store;
}
const { RedisStore, LocalStore }: StoreClasses = {
  RedisStore: requireCjs('@fastify/rate-limit/store/RedisStore.js'),
  LocalStore: requireCjs('@fastify/rate-limit/store/LocalStore.js'),
};

/**
 * Counts in Redis, and in this process's memory (an LRU, as without Redis) for each call Redis cannot answer: a
 * command error or timeout, or no connection at all (then Redis is not even tried). Limits therefore hold through a
 * Redis outage, per replica; the counts made in memory are not carried over to Redis when it is back.
 */
function fallbackStore(redis: Redis, nameSpace?: string): FastifyRateLimitStoreCtor {
  class FallbackStore implements Store {
    constructor(
      private readonly shared: Store,
      private readonly local: Store,
    ) {}
    private call(method: 'incr' | 'read', key: string, callback: StoreCallback, timeWindow: number, max: number): void {
      const inMemory = () => this.local[method](key, callback, timeWindow, max);
      if (redis.status !== 'ready') return inMemory();
      this.shared[method](key, (err, result) => (err ? inMemory() : callback(null, result)), timeWindow, max);
    }
    incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
      this.call('incr', key, callback, timeWindow, max);
    }
    read(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
      this.call('read', key, callback, timeWindow, max);
    }
    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): Store {
      return new FallbackStore(this.shared.child(routeOptions) as Store, this.local.child(routeOptions) as Store);
    }
  }
  return class extends FallbackStore {
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean; cache?: number }) {
      const continueExceeding = options.continueExceeding ?? false;
      const exponentialBackoff = options.exponentialBackoff ?? false;
      super(
        new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace),
        new LocalStore(continueExceeding, exponentialBackoff, options.cache),
      );
    }
  };
}

export default fp(async (app, opts: RateLimitOptions) => {
  const redis = opts.redisUrl ? await redisClient(opts.redisUrl, app.log) : undefined;
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
    ...(redis ? { store: fallbackStore(redis, opts.redisPrefix) } : {}),
    max: (request) => (isWidgetRoute(request) ? opts.widgetPerMinute : opts.perMinute),
    keyGenerator: (request) => {
      const auth = request.auth;
      if (auth && isWidgetRoute(request)) return `w:${auth.keyId}:${addressOf(request)}`;
      if (auth) return `k:${auth.keyId}`;
      return `ip:${addressOf(request)}`;
    },
    allowList: (request) => !isApiRoute(request),
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'rate_limited',
        `Rate limit of ${context.max} requests per minute exceeded; retry after ${Math.ceil(context.ttl / 1000)} s.`,
      ),
  });

  /** A per-address counter of the requests `applies` picks, checked in onRequest: 429 past `max` a minute. */
  const limitPerAddress = (name: string, max: number, applies: (request: FastifyRequest) => boolean, what: string) => {
    const limiter = app.createRateLimit({
      max,
      keyGenerator: (request) => `${name}:${addressOf(request)}`,
      allowList: () => false,
    });
    app.addHook('onRequest', async (request) => {
      if (!applies(request)) return;
      const limit = await limiter(request);
      if (!limit.isAllowed && limit.isExceeded)
        throw tooMany(`Rate limit of ${limit.max} ${what} per minute exceeded`, limit.ttlInSeconds);
    });
  };
  // Preflights are answered by @fastify/cors in its onRequest hook; this one runs first (registered earlier).
  limitPerAddress('preflight', opts.widgetPerMinute, (request) => request.method === 'OPTIONS', 'preflight requests');
  // Paths under /v1 that match no route: the global limiter only runs on routes, so they are counted here, per address.
  limitPerAddress(
    'unknown',
    opts.perMinute,
    (request) => request.method !== 'OPTIONS' && isUnknownApiPath(request),
    'requests',
  );

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
      throw tooMany(
        `More than ${limit.max} failed authentications per minute from this address`,
        Math.max(1, limit.ttlInSeconds),
      );
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && isApiRoute(request)) await authFailures(request);
    return payload;
  });
});
