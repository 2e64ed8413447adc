// Builds the Fastify application: cross-cutting plugins first, then one route module per surface.
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { problemBody, type ErrorCode } from './http/problem.js';
import { trustProxyOption } from './http/trust-proxy.js';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { serializerCompiler } from './http/serializer.js';
import type { AppDeps } from './deps.js';
import authPlugin from './http/plugins/auth.js';
import bodyGuardPlugin from './http/plugins/body-guard.js';
import corsPlugin from './http/plugins/cors.js';
import errorsPlugin from './http/plugins/errors.js';
import idempotencyPlugin from './http/plugins/idempotency.js';
import metricsPlugin from './http/plugins/metrics.js';
import { loggerOptions } from './platform/observability/logger.js';
import openapiPlugin from './http/plugins/openapi.js';
import rateLimitPlugin from './http/plugins/rate-limit.js';
import sessionPlugin from './http/plugins/session.js';
import strictRequestsPlugin from './http/plugins/strict-requests.js';
import apiKeysRoutes from './keys/routes.js';
import couriersRoutes from './couriers/routes.js';
import dashboardRoutes from './dashboard/routes.js';
import { setHashLimits } from './users/passwords.js';
import healthRoutes from './system/health-routes.js';
import deliveriesRoutes from './deliveries/routes.js';
import errorsRoutes from './pages/error-routes.js';
import fleetRoutes from './deliveries/fleet-routes.js';
import pagesRoutes from './pages/routes.js';
import pingRoutes from './system/ping-routes.js';
import trackingRoutes from './deliveries/tracking-routes.js';
import quotesRoutes from './quotes/routes.js';
import usersRoutes from './users/routes.js';
import testHelpersRoutes from './deliveries/test-helper-routes.js';
import webhookEndpointsRoutes from './webhooks/routes.js';
import settingsRoutes from './tenants/routes.js';

/** A problem+json answer on a raw Node response (router callbacks that run before Fastify's reply exists). */
function rawProblem(res: ServerResponse, baseUrl: string, status: number, code: ErrorCode, detail: string) {
  const body = JSON.stringify(problemBody(baseUrl, status, code, detail));
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': randomUUID(),
  });
  res.end(body);
}

/**
 * `logger`: false for none; an object is merged over the defaults (pino JSON at LOG_LEVEL with secrets redacted,
 * src/platform/observability/logger.ts), e.g. `{ stream }` to capture the lines.
 */
export async function buildApp(deps: AppDeps, options: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : { ...loggerOptions(config.logLevel, 'api'), ...(typeof options.logger === 'object' ? options.logger : {}) },
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // X-Forwarded-For is believed only from the proxies TRUST_PROXY names (hop count or addresses); default none.
    trustProxy: trustProxyOption(config.trustProxy),
    // Errors raised before a request reaches Fastify's error handler are problem+json too.
    routerOptions: {
      ignoreTrailingSlash: true,
      onBadUrl: (_path, _req, res) =>
        rawProblem(
          res,
          config.baseUrl,
          400,
          'invalid_url',
          'The request path is not a valid URL (bad percent-encoding).',
        ),
      // No resource has an id that long.
      onMaxParamLength: (_path, _req, res) => rawProblem(res, config.baseUrl, 404, 'not_found', 'Resource not found.'),
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return;
      const [status, code, detail]: [number, ErrorCode, string] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', 'The request headers are too large.']
          : [400, 'bad_request', 'The request could not be parsed as HTTP.'];
      const body = JSON.stringify(problemBody(config.baseUrl, status, code, detail));
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  }).withTypeProvider<ZodTypeProvider>();

  // JSON is the only body format: anything else is 415.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorsPlugin, { baseUrl: config.baseUrl });
  await app.register(strictRequestsPlugin);
  // Request counts and latencies by route pattern and status; GET /metrics here only with METRICS_TOKEN.
  await app.register(metricsPlugin, { token: config.metricsToken });
  await app.register(helmet, { global: true, contentSecurityPolicy: false });
  await app.register(openapiPlugin, { baseUrl: config.baseUrl });
  // Rate limits first: their onRequest hooks (preflights, failed authentications) must run before CORS and auth.
  await app.register(rateLimitPlugin, {
    perMinute: config.rateLimitPerMinute,
    widgetPerMinute: config.widgetRateLimitPerMinute,
    authFailuresPerMinute: config.authFailureRateLimitPerMinute,
    redisUrl: config.redisUrl,
    redisPrefix: config.rateLimitRedisPrefix,
  });
  await app.register(corsPlugin, { pool: deps.pool });
  // A dashboard session stands in for a secret key on same-origin requests (before auth, which then accepts it).
  setHashLimits({ concurrency: config.dashboard.passwordHashConcurrency, queue: config.dashboard.passwordHashQueue });
  await app.register(sessionPlugin, {
    pool: deps.pool,
    settings: config.dashboard,
    secureCookies: config.dashboard.secureCookies,
    baseUrl: config.baseUrl,
  });
  await app.register(authPlugin, { pool: deps.pool, adminToken: config.adminToken });
  await app.register(bodyGuardPlugin);
  await app.register(idempotencyPlugin, { pool: deps.pool });

  await app.register(healthRoutes, deps);
  await app.register(couriersRoutes, deps);
  await app.register(pingRoutes, deps);
  await app.register(deliveriesRoutes, deps);
  await app.register(trackingRoutes, deps);
  await app.register(fleetRoutes, deps);
  await app.register(quotesRoutes, deps);
  await app.register(webhookEndpointsRoutes, deps);
  await app.register(testHelpersRoutes, deps);
  await app.register(settingsRoutes, deps);
  await app.register(apiKeysRoutes, deps);
  await app.register(usersRoutes, deps);
  await app.register(pagesRoutes, deps);
  await app.register(dashboardRoutes, deps);
  await app.register(errorsRoutes, deps);
  return app;
}
