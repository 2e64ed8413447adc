// OpenAPI 3.1 built from the routes' zod schemas. Served at GET /v1/openapi.json and GET /docs
// (JSON for API clients; browsers asking for HTML are sent to the Swagger UI reference page at /docs/ui).
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

export default fp(async (app, opts: { baseUrl: string }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'delivery service API',
        version: '1.0.0',
        description:
          'Price, book, track and cancel parcel deliveries across courier companies in Angola. Money is integer AOA centavos (`_aoa` fields). ' +
          'Errors are RFC 9457 problem+json with a machine-readable `error` code.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: opts.baseUrl, description: 'This deployment' }],
      components: {
        securitySchemes: {
          secretKey: { type: 'http', scheme: 'bearer', description: 'Secret key `sk_live_...` (merchant servers).' },
          publishableKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'Publishable key `pk_live_...` (browser widget); the request `Origin` must be allowed for the key.',
          },
        },
      },
      security: [{ secretKey: [] }],
      tags: [
        { name: 'couriers', description: 'Courier companies available to the tenant' },
        { name: 'quotes', description: 'Persisted, single-use price quotes' },
        { name: 'deliveries', description: 'Deliveries and their event history' },
        { name: 'webhooks', description: 'Merchant webhook endpoints' },
        { name: 'widget', description: 'Browser-side API (publishable key)' },
        { name: 'tracking', description: 'Public tracking, no authentication' },
        { name: 'fleet', description: 'Courier fleet events coming back to the service' },
        { name: 'system', description: 'Health and documentation' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  await app.register(swaggerUi, { routePrefix: '/docs/ui', staticCSP: true });

  const document = () => app.swagger();
  app.get('/v1/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => document());
  app.get('/docs', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const accept = request.headers.accept ?? '';
    if (/text\/html/.test(accept) && !/application\/json/.test(accept)) return reply.redirect('/docs/ui/');
    return document();
  });
});
