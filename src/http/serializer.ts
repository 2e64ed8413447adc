// Response serialization. fastify-type-provider-zod's serializer encodes every response with zod, then
// JSON.stringify: about 0.7 ms for a page of 50 deliveries, most of the list route's cost over its SQL. Here each
// route's response schema is turned into JSON Schema once (zod's own converter, as the OpenAPI document is) and
// compiled with fast-json-stringify, fastify's own serializer: the same bytes in a tenth of the time. A schema the
// converter cannot express falls back to the zod serializer. Responses are still checked against the OpenAPI
// document by the contract and fuzz tests.
//
// Fastify asks for one serializer per route and status code (about 340 at start-up), but the routes share their
// schemas (every error answer is the same Problem schema; about 35 distinct schemas): each schema is compiled once
// and its serializer shared, which keeps about 40 MB of generated code out of the API's memory (docs/operations.md
// "Production build and memory").
import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Serializer = (data: unknown) => string;

const compiled = new WeakMap<object, Serializer>();

function compile(route: Parameters<FastifySerializerCompiler<unknown>>[0], schema: unknown): Serializer {
  if (!(schema instanceof z.ZodType)) return zodSerializerCompiler(route as never) as Serializer;
  try {
    return fastJsonStringify(
      z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'throw' }) as object,
    ) as Serializer;
  } catch {
    return zodSerializerCompiler(route as never) as Serializer;
  }
}

export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const schema = (route.schema as { properties?: unknown })?.properties ?? route.schema;
  if (typeof schema !== 'object' || schema === null) return compile(route, schema);
  let serializer = compiled.get(schema);
  if (!serializer) {
    serializer = compile(route, schema);
    compiled.set(schema, serializer);
  }
  return serializer;
};
