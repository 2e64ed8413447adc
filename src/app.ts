// Builds the Fastify application: cross-cutting plugins first, then one route module per surface.
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { serializerCompiler } from './http/serializer.js';
import type { AppDeps } from './platform/deps.js';
import { fastifyOptions } from './http/fastify-options.js';
import { keyStore } from './keys/store.js';
import { allowedOrigins } from './keys/repository.js';
import { sessionOnly } from './users/roles.js';
import { referenceKeyReader } from './users/reference-key.js';
import authPlugin from './http/plugins/auth.js';
import bodyGuardPlugin from './http/plugins/body-guard.js';
import corsPlugin from './http/plugins/cors.js';
import errorsPlugin from './http/plugins/errors.js';
import idempotencyPlugin from './http/plugins/idempotency.js';
import metricsPlugin from './http/plugins/metrics.js';
import openapiPlugin from './http/plugins/openapi.js';
import rateLimitPlugin from './http/plugins/rate-limit.js';
import sessionPlugin from './users/session-plugin.js';
import strictRequestsPlugin from './http/plugins/strict-requests.js';
import apiKeysRoutes from './keys/routes.js';
import couriersRoutes from './couriers/routes.js';
import dashboardRoutes from './dashboard/routes.js';
import { setHashLimits } from './users/passwords.js';
import healthRoutes from './system/health-routes.js';
import deliveriesRoutes from './deliveries/routes.js';
import returnRoutes from './deliveries/return-routes.js';
import recoverRoutes from './deliveries/recover-routes.js';
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
import codRoutes from './cod/routes.js';
import codFleetRoutes from './cod/fleet-routes.js';
import codTestHelperRoutes from './cod/test-helper-routes.js';
import notificationsRoutes from './notifications/routes.js';

/** The application: the HTTP layer's plugins (each given what it needs of the domains), then every route module. */
export async function buildApp(deps: AppDeps, options: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(deps.config, options.logger)).withTypeProvider<ZodTypeProvider>();

  // JSON is the only body format: anything else is 415.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await registerPlugins(app, deps);
  await registerRoutes(app, deps);
  return app;
}

/** Cross-cutting plugins, in the order their hooks must run. */
async function registerPlugins(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { config } = deps;
  await app.register(errorsPlugin, { baseUrl: config.baseUrl });
  await app.register(strictRequestsPlugin);
  // Request counts and latencies by route pattern and status; GET /metrics here only with METRICS_TOKEN.
  await app.register(metricsPlugin, { token: config.metricsToken });
  await app.register(helmet, { global: true, contentSecurityPolicy: false });
  // The reference at /docs fills in a signed-in developer's test key (src/users/reference-key.ts).
  await app.register(openapiPlugin, {
    baseUrl: config.baseUrl,
    referenceKey: referenceKeyReader(deps.pool, config.dashboard.secureCookies),
  });
  // Rate limits first: their onRequest hooks (preflights, failed authentications) must run before CORS and auth.
  await app.register(rateLimitPlugin, {
    perMinute: config.rateLimitPerMinute,
    widgetPerMinute: config.widgetRateLimitPerMinute,
    authFailuresPerMinute: config.authFailureRateLimitPerMinute,
    redisUrl: config.redisUrl,
    redisPrefix: config.rateLimitRedisPrefix,
  });
  await app.register(corsPlugin, { allowedOrigins: () => allowedOrigins(deps.pool) });
  // A dashboard session stands in for a secret key on same-origin requests (before auth, which then accepts it).
  setHashLimits({ concurrency: config.dashboard.passwordHashConcurrency, queue: config.dashboard.passwordHashQueue });
  await app.register(sessionPlugin, {
    pool: deps.pool,
    settings: config.dashboard,
    secureCookies: config.dashboard.secureCookies,
    baseUrl: config.baseUrl,
  });
  await app.register(authPlugin, {
    adminToken: config.adminToken,
    keyStore: (onListenerLost) => keyStore(deps.pool, onListenerLost),
    sessionOnly,
  });
  await app.register(bodyGuardPlugin);
  await app.register(idempotencyPlugin, { pool: deps.pool });
}

/** One route module per surface. The order is the OpenAPI document's order of paths. */
async function registerRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(healthRoutes, deps);
  await app.register(couriersRoutes, deps);
  await app.register(pingRoutes, deps);
  await app.register(deliveriesRoutes, deps);
  await app.register(returnRoutes, deps);
  await app.register(recoverRoutes, deps);
  await app.register(trackingRoutes, deps);
  await app.register(fleetRoutes, deps);
  await app.register(quotesRoutes, deps);
  await app.register(webhookEndpointsRoutes, deps);
  await app.register(testHelpersRoutes, deps);
  await app.register(settingsRoutes, deps);
  await app.register(codRoutes, deps);
  await app.register(codFleetRoutes, deps);
  await app.register(codTestHelperRoutes, deps);
  await app.register(notificationsRoutes, deps);
  await app.register(apiKeysRoutes, deps);
  await app.register(usersRoutes, deps);
  await app.register(pagesRoutes, deps);
  await app.register(dashboardRoutes, deps);
  await app.register(errorsRoutes, deps);
}
