// The real stack inside a test file: the API on a real port, a Temporal worker on this file's own
// task queue, both against the run's Postgres database and Temporal dev server (test/global-setup.ts).
import { Connection, type Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString, type Worker } from '@temporalio/worker';
import type { Logger as Pino } from 'pino';
import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createTenant, type CreatedTenant } from '../../src/tenants/service.js';
import { createWorker } from '../../src/worker.js';
import { installWorkerRuntime } from '../../src/platform/observability/temporal-runtime.js';
import { temporalClient } from '../../src/platform/temporal.js';
import type { FastifyInstance } from 'fastify';
import { freePort } from '../../scripts/lib/net.js';

let runtimeInstalled = false;

/**
 * Temporal's runtime for this test file, once, before the first stack: the worker's own (pino logger, Temporal Core's
 * metrics on `coreMetricsAddress`) for a file that looks at them; otherwise startStack installs a quiet one.
 */
export function installRuntime(logger: Pino, options: { coreMetricsAddress?: string } = {}): void {
  installWorkerRuntime(logger, options);
  runtimeInstalled = true;
}

export interface Stack {
  url: string;
  config: Config;
  pool: Pool;
  temporal: Client;
  app: FastifyInstance;
  worker: Worker;
  /** A new tenant with its keys; publishable key allows `origins`. */
  tenant(origins?: string[]): Promise<CreatedTenant>;
  /** fetch against the API with JSON in and out. */
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  /** Asserts a problem+json answer with this status and `error` code, its `type` under this API's address. */
  expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string): void;
  close(): Promise<void>;
}

/** `options.logger`: the API's pino options over the defaults (e.g. `{ stream }` to capture its lines); default none. */
export async function startStack(overrides: Partial<Config> = {}, options: { logger?: object } = {}): Promise<Stack> {
  if (!runtimeInstalled) {
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
    runtimeInstalled = true;
  }
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    taskQueue: `test-${randomUUID()}`,
    logLevel: 'silent',
    rateLimitPerMinute: 100_000,
    widgetRateLimitPerMinute: 100_000,
    authFailureRateLimitPerMinute: 1_000_000,
    // The operator token of POST /v1/diagnostics/round_trip; Redis keys (when redisUrl is set) unique to this stack.
    adminToken: `admin-${randomUUID()}`,
    rateLimitRedisPrefix: `delivery-api-test:${randomUUID()}:`,
    // The tests' webhook receivers listen on 127.0.0.1 (the default refuses loopback: test/webhooks/security-ssrf.test.ts).
    allowLoopbackWebhooks: true,
    ...overrides,
  };
  const pool = createPool(config.databaseUrl, 10);
  const connection = await Connection.connect({ address: config.temporalAddress });
  const temporal = temporalClient(connection, config.temporalNamespace);
  const nativeConnection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await createWorker({
    config,
    pool,
    connection: nativeConnection,
    bundlePath: inject('bundlePath'),
    temporal,
  });
  const running = worker.run();

  // Pick the port first so error URIs and tracking URLs can name the real address.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  config.port = port;
  config.baseUrl = overrides.baseUrl ?? url;
  const app = await buildApp({ config, pool, temporal }, { logger: options.logger ?? false });
  await app.listen({ port, host: '127.0.0.1' });

  const request: Stack['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };

  return {
    url,
    config,
    pool,
    temporal,
    app,
    worker,
    tenant: (origins = ['http://shop.test']) => createTenant(pool, `tenant-${randomUUID().slice(0, 8)}`, origins),
    request,
    expectProblem(res, status, code) {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status, error: code, type: `${url}/errors/${code}` });
      expect(typeof res.body.title).toBe('string');
      expect(typeof res.body.detail).toBe('string');
    },
    async close() {
      await app.close();
      worker.shutdown();
      await running.catch(() => {});
      await nativeConnection.close();
      await connection.close();
      await pool.end();
    },
  };
}
