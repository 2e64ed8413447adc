// The JSON body parser of the routes that need their own (src/http/json-body.ts): the exact text kept on request, a
// blank body as no body where allowed, malformed JSON as 400 invalid_json; only in the scope that registers it.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonBodies } from '../../src/http/json-body.js';
import errorsPlugin from '../../src/http/plugins/errors.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ logger: false });
  await app.register(errorsPlugin, { baseUrl: 'https://api.example.test' });
  const echo = async (request: { body: unknown; rawBody?: string }) => ({
    body: request.body ?? 'none',
    raw: request.rawBody ?? 'none',
  });
  await app.register(async (scope) => {
    parseJsonBodies(scope, { keepRaw: true });
    scope.post('/raw', echo);
  });
  await app.register(async (scope) => {
    parseJsonBodies(scope, { allowEmpty: true });
    scope.post('/empty-ok', echo);
  });
  app.post('/default', echo);
  await app.ready();
});
afterAll(() => app?.close());

const post = (url: string, payload: string) =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

describe('parseJsonBodies', () => {
  it('keepRaw: the parsed body and the exact text', async () => {
    const text = '{ "b": 1,\n "a": [2] }';
    expect((await post('/raw', text)).json()).toEqual({ body: { b: 1, a: [2] }, raw: text });
  });

  it('allowEmpty: a blank body is no body; without it a blank body is invalid JSON', async () => {
    expect((await post('/empty-ok', '  ')).json()).toEqual({ body: 'none', raw: 'none' });
    const blank = await post('/raw', ' ');
    expect([blank.statusCode, blank.json().error]).toEqual([400, 'invalid_json']);
  });

  it('malformed JSON is 400 invalid_json as problem+json', async () => {
    const res = await post('/raw', '{"a":');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ error: 'invalid_json', detail: 'The request body is not valid JSON.' });
  });

  it('other routes keep the built-in parser (no raw text kept)', async () => {
    expect((await post('/default', '{"a":1}')).json()).toEqual({ body: { a: 1 }, raw: 'none' });
  });
});
