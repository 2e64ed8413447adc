// OpenAPI 3.1 built from the routes' zod schemas. Served at GET /v1/openapi.json and GET /docs
// (JSON for API clients; browsers asking for HTML are sent to the Swagger UI reference page at /docs/ui).
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { canonicalJson } from '../lib/canonical.js';

type Json = Record<string, unknown>;
const REF = '#/components/schemas/';

/** Every object (at any depth) of a JSON value, parents before children. */
function* objects(value: unknown): Generator<Json> {
  if (Array.isArray(value)) for (const item of value) yield* objects(item);
  else if (value && typeof value === 'object') {
    yield value as Json;
    for (const child of Object.values(value)) yield* objects(child);
  }
}

/** Points every `$ref` to a component named in `renamed` at its new name. */
function renameRefs(value: unknown, renamed: Map<string, string>) {
  for (const node of objects(value)) {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(REF) && renamed.has(ref.slice(REF.length))) node.$ref = REF + renamed.get(ref.slice(REF.length));
  }
}

/**
 * One component per schema. fastify-type-provider-zod emits each named zod schema twice: `X` as responses are
 * serialised and `XInput` as requests are parsed. They differ in `additionalProperties: false`, which zod puts on
 * output objects only; the document leaves it out everywhere, since objects are open in both directions: unknown
 * request fields are ignored, and a response may gain fields (the contract only adds), which a generated client
 * must accept. `XInput` then equals `X` and goes, its references pointing at `X`; one that still differs (a
 * default, a transform) keeps its own name.
 */
function nameSchemasOnce(document: Json): Json {
  for (const node of objects(document)) if (node.additionalProperties === false) delete node.additionalProperties;
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const merged = new Map(
    Object.keys(schemas)
      .filter((name) => name.endsWith('Input') && name.slice(0, -'Input'.length) in schemas)
      .map((name) => [name, name.slice(0, -'Input'.length)]),
  );
  // An input schema merges when it equals its output twin once the other merged inputs are renamed too.
  for (let changed = true; changed;) {
    changed = false;
    for (const [input, output] of merged) {
      const renamed = structuredClone(schemas[input]);
      renameRefs(renamed, merged);
      if (canonicalJson(renamed) !== canonicalJson(schemas[output])) {
        merged.delete(input);
        changed = true;
      }
    }
  }
  for (const input of merged.keys()) delete schemas[input];
  renameRefs(document, merged);
  return document;
}

export default fp(async (app, opts: { baseUrl: string }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'delivery service API',
        version: '1.0.0',
        description:
          'Price, book, track and cancel parcel deliveries across courier companies in Angola. Money is integer AOA centavos (`_aoa` fields). ' +
          'Errors are RFC 9457 problem+json with a machine-readable `error` code, and per-field `errors[].code` for validation errors. ' +
          'Objects may gain fields over time: clients ignore fields they do not know.',
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
    transformObject: (input) => nameSchemasOnce(jsonSchemaTransformObject(input) as Json) as ReturnType<typeof jsonSchemaTransformObject>,
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
