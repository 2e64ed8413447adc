// Rate limits that cannot be bypassed, on the real stack: X-Forwarded-For is believed only from configured proxies,
// buckets are keyed on the authenticated key id (a made-up key gets none of its own: failed authentications share
// one bucket per address), widget or merchant limits follow the matched route, CORS preflights are limited and
// rejected origins are remembered, counters are shared through Redis, and the diagnostics route is for operators.
// Each case builds its own API instance (buildApp) on the stack's Postgres and Temporal, so its buckets start empty.
import { randomBytes, randomUUID } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/platform/config.js';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type Res = { status: number; headers: Headers; body: any };
interface Api {
  app: FastifyInstance;
  request(
    method: string,
    path: string,
    options?: { key?: string; authorization?: string; headers?: Record<string, string>; body?: unknown },
  ): Promise<Res>;
}

let stack: Stack;
let tenant: CreatedTenant;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.tenant([SHOP]);
}, 120_000);
afterAll(async () => {
  for (const app of apps) await app.close();
  await stack?.close();
});

/** Another API instance on the stack's database and Temporal, with these settings and fresh in-memory counters. */
async function api(overrides: Partial<Config>): Promise<Api> {
  const config: Config = {
    ...stack.config,
    rateLimitPerMinute: 5,
    widgetRateLimitPerMinute: 3,
    authFailureRateLimitPerMinute: 4,
    ...overrides,
  };
  const app = await buildApp({ config, pool: stack.pool, temporal: stack.temporal }, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  apps.push(app);
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      if (options.authorization !== undefined) headers.authorization = options.authorization;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(url + path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      return { status: res.status, headers: res.headers, body };
    },
  };
}

const expectRateLimited = (res: Res) => {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    status: 429,
    error: 'rate_limited',
    type: expect.stringContaining('/errors/rate_limited'),
  });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
};

const randomKey = (prefix = 'sk_live_') =>
  prefix +
  randomBytes(24)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, 'x')
    .slice(0, 32);
const tracking = () => `/v1/deliveries/${randomUUID()}/tracking`;
const randomIp = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

describe('TRUST_PROXY', () => {
  it('by default a spoofed X-Forwarded-For gets no fresh bucket: every request counts for the real address', async () => {
    const api1 = await api({});
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await api1.request('GET', tracking(), { headers: { 'x-forwarded-for': randomIp() } })).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404]);
    expectRateLimited(await api1.request('GET', tracking(), { headers: { 'x-forwarded-for': randomIp() } }));
  });

  it('behind a trusted proxy (hop count) the client is the address the proxy saw, whatever it was sent', async () => {
    const api1 = await api({ trustProxy: 1 });
    // The client forged the left entries; our proxy (the loopback peer) appended the address it saw.
    for (let i = 0; i < 5; i++)
      expect(
        (await api1.request('GET', tracking(), { headers: { 'x-forwarded-for': `${randomIp()}, 10.9.8.7` } })).status,
      ).toBe(404);
    expectRateLimited(
      await api1.request('GET', tracking(), { headers: { 'x-forwarded-for': `${randomIp()}, 10.9.8.7` } }),
    );
    // Another client behind the same proxy has its own bucket.
    expect((await api1.request('GET', tracking(), { headers: { 'x-forwarded-for': '10.9.8.8' } })).status).toBe(404);
  });
});

describe('buckets follow the authenticated key, not the header', () => {
  it('random Authorization headers share one bucket per address: 401 a few times, then 429', async () => {
    const api1 = await api({});
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const authorization = [
        `Bearer ${randomKey()}`,
        `Bearer ${randomKey('pk_live_')}`,
        `Bearer ${randomUUID()}`,
        randomUUID(),
      ][i % 4];
      const res = await api1.request('GET', i % 2 ? '/v1/couriers' : '/v1/deliveries', { authorization });
      statuses.push(res.status);
      if (res.status === 429) expectRateLimited(res);
    }
    // 4 failures allowed per minute (counted before each 401 leaves); then 429 before any key is looked up.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429]);
    // The widget surface shares the same per-address bucket for failures.
    expectRateLimited(
      await api1.request('GET', '/v1/widget/couriers', { key: randomKey('pk_live_'), headers: { origin: SHOP } }),
    );
  });

  it('one key written several ways is one bucket (keyed on the key id)', async () => {
    const api1 = await api({});
    const spellings = [`Bearer ${tenant.secret_key}`, `bearer ${tenant.secret_key}`, `BEARER   ${tenant.secret_key}  `];
    for (let i = 0; i < 5; i++) {
      const res = await api1.request('GET', '/v1/couriers', { authorization: spellings[i % 3] });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
    }
    expectRateLimited(await api1.request('GET', '/v1/couriers', { authorization: spellings[2] }));
  });
});

describe('widget or merchant: by the matched route', () => {
  it('/v1/%77idget/couriers is the widget route, with the widget limit and bucket', async () => {
    const api1 = await api({});
    const widget = { key: tenant.publishable_key, headers: { origin: SHOP } };
    const encoded = await api1.request('GET', '/v1/%77idget/couriers', widget);
    expect(encoded.status).toBe(200);
    expect(encoded.headers.get('ratelimit-limit')).toBe('3');
    expect(encoded.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect((await api1.request('GET', '/v1/widget/couriers', widget)).headers.get('ratelimit-remaining')).toBe('1');
    expect((await api1.request('GET', '/v1/%77idget/couriers', widget)).status).toBe(200);
    expectRateLimited(await api1.request('GET', '/v1/%77idget/couriers', widget));
  });

  it('widget buckets are per key and client address', async () => {
    const api1 = await api({ trustProxy: ['127.0.0.1'] });
    const from = (ip: string) => ({ key: tenant.publishable_key, headers: { origin: SHOP, 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++)
      expect((await api1.request('GET', '/v1/widget/couriers', from('10.0.0.1'))).status).toBe(200);
    expectRateLimited(await api1.request('GET', '/v1/widget/couriers', from('10.0.0.1')));
    expect((await api1.request('GET', '/v1/widget/couriers', from('10.0.0.2'))).status).toBe(200);
  });
});

describe('unknown /v1 paths', () => {
  it('are counted per client address: 404 up to the limit, then 429, however the path is written', async () => {
    const api1 = await api({ trustProxy: ['127.0.0.1'] });
    const from = (ip: string, key?: string) => ({ key, headers: { 'x-forwarded-for': ip } });
    const paths = [
      `/v1/nope-${randomUUID()}`,
      `/v1/deliveries/${randomUUID()}/nope`,
      `/%761/nope`,
      `/V1/nope`,
      `/v1/nope?x=1`,
    ];
    for (const path of paths) {
      const res = await api1.request('GET', path, from('10.0.0.7'));
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expectRateLimited(await api1.request('GET', `/v1/nope-${randomUUID()}`, from('10.0.0.7')));
    // A key changes nothing (the path has no route to count it on); another address has its own budget.
    expectRateLimited(await api1.request('POST', `/v1/nope-${randomUUID()}`, from('10.0.0.7', tenant.secret_key)));
    expect((await api1.request('GET', `/v1/nope-${randomUUID()}`, from('10.0.0.8'))).status).toBe(404);
    // Known routes keep their own buckets.
    expect(
      (
        await api1.request('GET', '/v1/couriers', {
          key: tenant.secret_key,
          headers: { 'x-forwarded-for': '10.0.0.7' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('CORS preflights', () => {
  const preflight = (target: Api, origin: string) =>
    target.request('OPTIONS', '/v1/widget/quotes', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });

  it('are limited per client address', async () => {
    const api1 = await api({});
    for (let i = 0; i < 3; i++) {
      const res = await preflight(api1, SHOP);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    }
    expectRateLimited(await preflight(api1, SHOP));
  });

  it('an origin no key allows is looked up once, then refused from memory', async () => {
    const api1 = await api({ widgetRateLimitPerMinute: 100 });
    const pool = stack.pool as unknown as { query: (...args: unknown[]) => unknown };
    const query = pool.query;
    let lookups = 0;
    pool.query = function (this: unknown, ...args: unknown[]) {
      const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      if (sql?.includes('unnest(allowed_origins)')) lookups++;
      return query.apply(this, args);
    };
    try {
      const unknown = `http://unknown-${randomUUID().slice(0, 8)}.test`;
      for (let i = 0; i < 6; i++) {
        const res = await preflight(api1, unknown);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
      expect(lookups).toBe(1);
      // Allowed origins still pass.
      expect((await preflight(api1, SHOP)).headers.get('access-control-allow-origin')).toBe(SHOP);
    } finally {
      pool.query = query;
    }
  });
});

describe('counters shared through Redis (REDIS_URL)', () => {
  it('two API instances count one key together', async () => {
    const shared = { redisUrl: REDIS_URL, rateLimitRedisPrefix: `delivery-api-test:${randomUUID()}:` };
    const [one, two] = [await api(shared), await api(shared)];
    const remaining: string[] = [];
    for (const target of [one, two, one, two, one]) {
      const res = await target.request('GET', '/v1/couriers', { key: tenant.secret_key });
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    expectRateLimited(await two.request('GET', '/v1/couriers', { key: tenant.secret_key }));
    expectRateLimited(await one.request('GET', '/v1/couriers', { key: tenant.secret_key }));
  });

  it('an unreachable Redis neither lifts the limits nor fails the requests: they are counted in memory, without delay', async () => {
    const api1 = await api({ redisUrl: 'redis://127.0.0.1:1', rateLimitPerMinute: 3 });
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      const res = await api1.request('GET', '/v1/couriers', { key: tenant.secret_key });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    expectRateLimited(await api1.request('GET', '/v1/couriers', { key: tenant.secret_key }));
    // Unauthenticated routes (per address) and failed authentications are limited too.
    for (let i = 0; i < 3; i++) expect((await api1.request('GET', tracking())).status).toBe(404);
    expectRateLimited(await api1.request('GET', tracking()));
    const failures: number[] = [];
    for (let i = 0; i < 5; i++)
      failures.push((await api1.request('GET', '/v1/deliveries', { key: randomKey() })).status);
    expect(failures).toEqual([401, 401, 401, 401, 429]);
    // Fail fast: no request waits for a connection or a retry (ioredis' offline queue would hold each one for seconds).
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a Redis that goes away after start-up: the limits hold, counted in memory from then on', async () => {
    // A TCP relay to the real Redis, closed in the middle of the test as a Redis restart or a network loss would be.
    const redis = new URL(REDIS_URL);
    const sockets = new Set<Socket>();
    const relay = createServer((client) => {
      const upstream = connect(Number(redis.port || 6379), redis.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const port = (relay.address() as AddressInfo).port;
    try {
      const api1 = await api({
        redisUrl: `redis://127.0.0.1:${port}`,
        rateLimitRedisPrefix: `delivery-api-test:${randomUUID()}:`,
        rateLimitPerMinute: 3,
      });
      expect(
        (await api1.request('GET', '/v1/couriers', { key: tenant.secret_key })).headers.get('ratelimit-remaining'),
      ).toBe('2');
      relay.close();
      for (const socket of sockets) socket.destroy();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await api1.request('GET', '/v1/couriers', { key: tenant.secret_key })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      relay.close();
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('POST /v1/diagnostics/round_trip is for operators', () => {
  it('refuses merchant keys; takes ADMIN_TOKEN', async () => {
    for (const key of [tenant.secret_key, tenant.publishable_key, randomUUID()]) {
      const res = await stack.request('POST', '/v1/diagnostics/round_trip', { key });
      stack.expectProblem(res, 401, 'unauthorized');
    }
    expect((await stack.request('POST', '/v1/diagnostics/round_trip', { key: stack.config.adminToken })).status).toBe(
      200,
    );
  });

  it('does not exist without ADMIN_TOKEN, and is not in the OpenAPI document', async () => {
    const api1 = await api({ adminToken: undefined });
    const res = await api1.request('POST', '/v1/diagnostics/round_trip', { key: tenant.secret_key });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    expect(Object.keys((await stack.request('GET', '/v1/openapi.json')).body.paths)).not.toContain(
      '/v1/diagnostics/round_trip',
    );
  });
});
