// The response serializer (src/http/serializer.ts): one compiled serializer per schema, shared by every route and
// status code that answers with it (the API compiles about 35 instead of about 340: docs/operations.md "Production
// build and memory"), and the same bytes whichever route asks.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serializerCompiler } from '../../src/http/serializer.js';
import { Problem, problems } from '../../src/http/schemas.js';

type Route = Parameters<typeof serializerCompiler>[0];
const route = (schema: unknown, url: string, httpStatus = '200'): Route =>
  ({ schema, method: 'GET', url, httpStatus }) as Route;

describe('serializerCompiler', () => {
  it('compiles a schema once and hands the same serializer to every route and status that uses it', () => {
    const a = serializerCompiler(route(Problem, '/v1/deliveries', '404'));
    const b = serializerCompiler(route(Problem, '/v1/quotes', '422'));
    expect(b).toBe(a);
    const other = serializerCompiler(route(z.object({ id: z.string() }), '/v1/things'));
    expect(other).not.toBe(a);
  });

  it('serializes the same bytes for every route sharing a schema', () => {
    const body = { type: 'https://x.test/errors/not_found', title: 'Not found', status: 404, detail: 'No such thing.' };
    const first = serializerCompiler(route(Problem, '/a', '404'));
    const second = serializerCompiler(route(Problem, '/b', '409'));
    expect(first(body)).toBe(JSON.stringify(body));
    expect(second(body)).toBe(first(body));
  });

  it('compiles each distinct schema of an app once, however many routes answer with it', async () => {
    const app = Fastify({ logger: false });
    const seen: unknown[] = [];
    app.setSerializerCompiler((r) => {
      seen.push(serializerCompiler(r));
      return seen.at(-1) as (data: unknown) => string;
    });
    const Thing = z.object({ id: z.string() });
    for (const path of ['/a', '/b', '/c'])
      app.get(path, { schema: { response: { 200: Thing, ...problems(404, 409) } } }, async () => ({ id: 'x' }));
    await app.ready();
    // 3 GET routes and their HEAD twins x 3 statuses asked for 18 serializers; 2 schemas behind them (Thing, Problem).
    expect(seen.length).toBe(18);
    expect(new Set(seen).size).toBe(2);
    await app.close();
  });
});
