// OpenAPI 3.1 built from the routes' zod schemas. Served at GET /v1/openapi.json and GET /docs (JSON for API clients;
// a browser asking for HTML gets the Scalar reference page there: ./reference.ts).
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { canonicalJson } from '../../platform/canonical.js';
import { ERROR_CATALOG, type ErrorInfo } from '../error-catalog.js';
import { problemBody, type ErrorCode } from '../problem.js';
import { addCodeSamples } from '../code-samples.js';
import referencePlugin from './reference.js';

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
    if (typeof ref === 'string' && ref.startsWith(REF) && renamed.has(ref.slice(REF.length)))
      node.$ref = REF + renamed.get(ref.slice(REF.length));
  }
}

/**
 * `additionalProperties: false` where a request refuses unknown fields, and nowhere else. zod puts it on every
 * output object (as responses are serialised) but on an input object only when the object is strict
 * (`z.strictObject`: an unknown field is 422 `unknown_field`). Request bodies and the `XInput` components keep theirs;
 * an output component keeps it where its `XInput` twin has it (a request shape such as Address, echoed in responses);
 * every other response object is open, since a response may gain fields (the contract only adds), which a generated
 * client must accept. `source` and `target` are the same schema as input and as output, walked side by side.
 */
function openLikeInput(source: unknown, target: unknown) {
  if (!source || !target || typeof source !== 'object' || typeof target !== 'object') return;
  const input = source as Json;
  const output = target as Json;
  if (output.additionalProperties === false && input.additionalProperties !== false) delete output.additionalProperties;
  for (const key of Object.keys(output)) {
    if (key === 'additionalProperties' || key === 'examples' || key === 'default') continue;
    openLikeInput(input[key], output[key]);
  }
}

/**
 * One component per schema. fastify-type-provider-zod emits each named zod schema twice: `X` as responses are
 * serialised and `XInput` as requests are parsed. Once `additionalProperties` is settled (openLikeInput), `XInput`
 * equals `X` and goes, its references pointing at `X`; one that still differs (a default, a transform) keeps its
 * own name.
 */
function nameSchemasOnce(document: Json): Json {
  const all = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const requestNodes = new Set<Json>();
  for (const [name, schema] of Object.entries(all))
    if (name.endsWith('Input')) for (const node of objects(schema)) requestNodes.add(node);
  for (const ops of Object.values((document.paths ?? {}) as Json)) {
    for (const op of Object.values((ops ?? {}) as Json)) {
      const body = (op as Json | null)?.requestBody;
      if (body) for (const node of objects(body)) requestNodes.add(node);
    }
  }
  for (const [name, schema] of Object.entries(all))
    if (!name.endsWith('Input') && `${name}Input` in all) openLikeInput(all[`${name}Input`], schema);
  const twinned = new Set(
    Object.keys(all).flatMap((name) => (`${name}Input` in all ? [all[name], all[`${name}Input`]] : [])),
  );
  const settled = new Set<Json>();
  for (const schema of twinned) for (const node of objects(schema)) settled.add(node);
  for (const node of objects(document)) {
    if (node.additionalProperties === false && !requestNodes.has(node) && !settled.has(node))
      delete node.additionalProperties;
  }
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

/** Field errors of the problem examples that have them. */
const EXAMPLE_FIELD_ERRORS: Partial<Record<ErrorCode, object[]>> = {
  validation_failed: [
    {
      pointer: '/parcel/weight_grams',
      code: 'too_small',
      detail: 'parcel.weight_grams: Too small: expected number to be >0.',
    },
  ],
  quote_payload_mismatch: [
    { pointer: '/parcel', code: 'quote_payload_mismatch', detail: 'parcel differs from the quoted parcel.' },
  ],
  quote_expired: [
    {
      pointer: '/quote_id',
      code: 'quote_expired',
      detail: 'This quote has expired. Request a new quote and create the delivery with it.',
    },
  ],
};

/**
 * Examples on every request and response body, so the reference's "Try it out" starts from a real one:
 * - a body whose schema is a component takes that component's first example (src/http/examples.ts, through `.meta`);
 * - a problem+json answer lists, by name, each `error` code the operation answers with at that status
 *   (src/http/error-catalog.ts), as the API would send it.
 */
function addExamples(document: Json, baseUrl: string): Json {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const catalog = Object.entries(ERROR_CATALOG) as [ErrorCode, ErrorInfo][];
  const fromComponent = (media: Json) => {
    const ref = (media.schema as Json | undefined)?.$ref;
    // An inline schema (an optional body: `anyOf` of the object and null) carries its own examples.
    const examples =
      typeof ref === 'string' ? schemas[ref.slice(REF.length)]?.examples : (media.schema as Json | undefined)?.examples;
    if (media.example === undefined && media.examples === undefined && Array.isArray(examples))
      media.example = examples[0];
  };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      for (const media of Object.values(
        ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>,
      ))
        fromComponent(media);
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          if (type !== 'application/problem+json') {
            fromComponent(media);
            continue;
          }
          const idempotent = ((operation.parameters ?? []) as Json[]).some(
            (p) => p.in === 'header' && p.name === 'idempotency-key',
          );
          const codes = catalog.filter(
            ([, info]) =>
              String(info.status) === status &&
              (!info.only || info.only.includes(operation.operationId as string)) &&
              (!info.idempotent || idempotent),
          );
          media.examples = Object.fromEntries(
            codes.map(([code, info]) => [
              code,
              {
                summary: code,
                value: problemBody(baseUrl, info.status, code, info.example, EXAMPLE_FIELD_ERRORS[code] as never),
              },
            ]),
          );
        }
      }
    }
  }
  return document;
}

/**
 * A query parameter whose schema is an object is written `name[key]=value` (`metadata[order_id]=KIANDA-1042` on GET
 * /v1/deliveries): OpenAPI's `deepObject` style, which a generated client then serialises that way.
 */
function deepObjectQueries(document: Json): Json {
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Json>>))
    for (const operation of Object.values(item))
      for (const p of (operation.parameters ?? []) as Json[])
        if (p.in === 'query' && (p.schema as Json | undefined)?.type === 'object')
          Object.assign(p, { style: 'deepObject', explode: true });
  return document;
}

/** Tags of the operations that are not for merchants: courier companies' fleet events, health checks. */
export const PLATFORM_TAGS = new Set(['fleet', 'system']);

/**
 * The document with only the operations whose audience `platform` says: the merchant reference (merchant, widget
 * and tracking routes) or the platform's own (fleet events, health). Unused tags go; components stay.
 */
export function audience(document: Json, platform: boolean): Json {
  const copy = structuredClone(document);
  const paths: Record<string, Record<string, Json>> = {};
  for (const [path, item] of Object.entries((copy.paths ?? {}) as Record<string, Record<string, Json>>)) {
    const kept = Object.entries(item).filter(
      ([, op]) => ((op.tags as string[] | undefined) ?? []).some((t) => PLATFORM_TAGS.has(t)) === platform,
    );
    if (kept.length) paths[path] = Object.fromEntries(kept);
  }
  copy.paths = paths;
  copy.tags = ((copy.tags ?? []) as { name: string }[]).filter((t) => PLATFORM_TAGS.has(t.name) === platform);
  copy.info = {
    ...(copy.info as Json),
    description: platform
      ? 'For courier companies and operators, not merchants: signed fleet events coming back to the service, and health checks.'
      : `${(copy.info as Json).description} The courier fleet and health routes are in their own reference (select it above).`,
  };
  return copy;
}

/** The document's head: info, server, security schemes and tags (the paths come from the routes' schemas). */
function documentHead(baseUrl: string): FastifyDynamicSwaggerOptions['openapi'] {
  return {
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
    servers: [{ url: baseUrl, description: 'This deployment' }],
    components: {
      securitySchemes: {
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Secret key `sk_live_...` (merchant servers), or `sk_test_...` in test mode: test keys see and create test objects only.',
        },
        publishableKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Publishable key `pk_live_...` (browser widget), or `pk_test_...` in test mode; the request `Origin` must be allowed for the key.',
        },
      },
    },
    security: [{ secretKey: [] }],
    tags: [
      { name: 'couriers', description: 'Courier companies available to the tenant' },
      { name: 'quotes', description: 'Persisted, single-use price quotes' },
      { name: 'deliveries', description: 'Deliveries and their event history' },
      { name: 'webhooks', description: 'Merchant webhook endpoints' },
      {
        name: 'test_helpers',
        description:
          'Test mode only (a test secret key `sk_test_...`; a live key gets 404): move a test delivery on as its courier and its clock would, ' +
          'so an integration sees every event and webhook without a real courier (docs/test-mode.md).',
      },
      { name: 'settings', description: "The tenant's settings: the dispatch policy (automatic failover)" },
      {
        name: 'api_keys',
        description: "The tenant's API keys of the calling key's mode: create (shown once), allowed origins, revoke",
      },
      {
        name: 'users',
        description: 'Merchant dashboard users (docs/dashboard.md): invite, roles, set-password links, remove',
      },
      { name: 'widget', description: 'Browser-side API (publishable key)' },
      { name: 'tracking', description: 'Public tracking, no authentication' },
      { name: 'fleet', description: 'Courier fleet events coming back to the service' },
      {
        name: 'cash_on_delivery',
        description:
          'Cash on delivery: what couriers collected, remitted and still owe, remittances to confirm or dispute, the CSV statement (docs/cash-on-delivery.md)',
      },
      { name: 'system', description: 'Health and documentation' },
    ],
  };
}

export interface OpenapiOptions {
  baseUrl: string;
  /** The test key the reference fills in for this request's dashboard session, or null (src/users/reference-key.ts). */
  referenceKey: (request: FastifyRequest) => Promise<string | null>;
}

export default fp(async (app, opts: OpenapiOptions) => {
  await app.register(swagger, {
    openapi: documentHead(opts.baseUrl),
    transform: jsonSchemaTransform,
    transformObject: (input) =>
      addCodeSamples(
        addExamples(deepObjectQueries(nameSchemasOnce(jsonSchemaTransformObject(input) as Json)), opts.baseUrl),
        opts.baseUrl,
        PLATFORM_TAGS,
      ) as ReturnType<typeof jsonSchemaTransformObject>,
  });

  const document = () => app.swagger() as Json;
  app.get('/v1/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => document());
  // The reference's two documents: the merchants' (merchant, widget and tracking routes), shown first, and the
  // platform's (fleet events, health). GET /v1/openapi.json and GET /docs stay the whole description, as the spec asks.
  app.get('/docs/merchant.json', { config: { auth: 'none' }, schema: { hide: true } }, async () =>
    audience(document(), false),
  );
  app.get('/docs/platform.json', { config: { auth: 'none' }, schema: { hide: true } }, async () =>
    audience(document(), true),
  );
  await app.register(referencePlugin, { baseUrl: opts.baseUrl, document, referenceKey: opts.referenceKey });
});
