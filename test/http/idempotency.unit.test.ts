// The Idempotency-Key rules of src/http/plugins/idempotency.ts on a bare Fastify app, with its repository replaced by an
// in-memory table (the SQL itself, expiry and the abandoned-claim takeover, is held by the integration tier): the key's
// length, a record per operation (method, route pattern, parameters with ids in lower case) rather than per URL
// spelling, the body compared in canonical form, secrets never stored, and a 5xx freeing the key.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IdempotencyClaim, IdempotencyRecord } from '../../src/http/idempotency-repository.js';

const records = new Map<string, IdempotencyRecord>();
const id = (c: IdempotencyClaim) => JSON.stringify([c.tenantId, c.livemode, c.scope, c.key]);

vi.mock('../../src/http/idempotency-repository.js', () => ({
  claimKey: async (_pool: unknown, claim: IdempotencyClaim, requestHash: string) => {
    if (records.has(id(claim))) return false;
    records.set(id(claim), {
      request_hash: requestHash,
      status_code: null,
      response_body: null,
      withheld_fields: null,
    });
    return true;
  },
  findRecord: async (_pool: unknown, claim: IdempotencyClaim) => records.get(id(claim)) ?? null,
  releaseKey: async (_pool: unknown, claim: IdempotencyClaim) => void records.delete(id(claim)),
  storeAnswer: async (
    _pool: unknown,
    claim: IdempotencyClaim,
    status: number,
    body: string | null,
    withheld: string[] | null,
  ) => {
    // jsonb hands the body back parsed.
    records.set(id(claim), {
      ...records.get(id(claim))!,
      status_code: status,
      response_body: body && JSON.parse(body),
      withheld_fields: withheld,
    });
  },
}));

const { default: idempotencyPlugin } = await import('../../src/http/plugins/idempotency.js');
const { default: errorsPlugin } = await import('../../src/http/plugins/errors.js');

let app: FastifyInstance;
let runs = 0;

beforeAll(async () => {
  app = Fastify({ logger: false });
  await app.register(errorsPlugin, { baseUrl: 'https://api.example.test' });
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const mode = request.headers['x-test-mode'] === 'test';
    (request as { auth: unknown }).auth = { tenantId: 't1', keyId: 'k1', kind: 'secret', livemode: !mode };
  });
  await app.register(idempotencyPlugin, { pool: {} as never });
  const idempotent = { config: { idempotent: true } };
  app.post('/v1/things', idempotent, async (request, reply) => {
    runs++;
    return reply.code(201).send({ run: runs, secret: 'whsec_shown_once', client_secret: 'cs', body: request.body });
  });
  app.post('/v1/things/:id/touch', idempotent, async (request) => ({
    run: ++runs,
    id: (request.params as { id: string }).id,
  }));
  app.post('/v1/flaky', idempotent, async (_request, reply) => {
    runs++;
    return runs % 2 === 1 ? reply.code(503).send({ run: runs }) : { run: runs };
  });
  app.post('/v1/plain', async () => ({ run: ++runs }));
  await app.ready();
});
afterAll(() => app?.close());
beforeEach(() => {
  records.clear();
  runs = 0;
});

const post = (url: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url,
    payload: body as object,
    headers: { ...(key ? { 'idempotency-key': key } : {}), ...headers },
  });

describe('Idempotency-Key', () => {
  it('a repeat with the same body replays the first answer, without its secrets, and says which were withheld', async () => {
    const first = await post('/v1/things', { a: 1 }, 'k-1');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ run: 1, secret: 'whsec_shown_once', client_secret: 'cs' });
    const again = await post('/v1/things', { a: 1 }, 'k-1');
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual({ run: 1, body: { a: 1 } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['idempotent-replay-withheld']).toBe('secret, client_secret');
    expect(runs).toBe(1);
    expect(JSON.stringify([...records.values()])).not.toContain('whsec_');
  });

  it('the body is compared in canonical form: key order does not matter, a value does (422 idempotency_key_reused)', async () => {
    await post('/v1/things', { a: 1, b: { c: 2, d: 3 } }, 'k-2');
    expect((await post('/v1/things', { b: { d: 3, c: 2 }, a: 1 }, 'k-2')).json().run).toBe(1);
    const other = await post('/v1/things', { a: 2, b: { c: 2, d: 3 } }, 'k-2');
    expect([other.statusCode, other.json().error]).toEqual([422, 'idempotency_key_reused']);
    expect(runs).toBe(1);
  });

  it('one record per operation: the same key on another route, another id or another mode runs anew', async () => {
    const a = '0b6f4c1e-7a6e-4c31-9d2a-2f1c1f0e9a11';
    await post(`/v1/things/${a}/touch`, {}, 'k-3');
    expect((await post(`/v1/things/${a.toUpperCase()}/touch`, {}, 'k-3')).json().run).toBe(1); // same id, other case
    expect((await post(`/v1/things/${a.replace(/1$/, '2')}/touch`, {}, 'k-3')).json().run).toBe(2);
    expect((await post('/v1/things', {}, 'k-3')).json().run).toBe(3);
    expect((await post('/v1/things', {}, 'k-3', { 'x-test-mode': 'test' })).json().run).toBe(4);
  });

  it('a request still running is 409 idempotency_request_in_progress', async () => {
    await post('/v1/things', { a: 1 }, 'k-4');
    const [record] = records.values();
    record.status_code = null; // as if the first request had not answered yet
    const res = await post('/v1/things', { a: 1 }, 'k-4');
    expect([res.statusCode, res.json().error]).toEqual([409, 'idempotency_request_in_progress']);
  });

  it('a 5xx is not remembered: the retry runs again and its answer is kept', async () => {
    expect((await post('/v1/flaky', {}, 'k-5')).statusCode).toBe(503);
    expect(records.size).toBe(0);
    expect((await post('/v1/flaky', {}, 'k-5')).json()).toEqual({ run: 2 });
    expect((await post('/v1/flaky', {}, 'k-5')).json()).toEqual({ run: 2 });
  });

  it('the key is 1 to 255 characters; routes that do not opt in, or requests without a key, are not recorded', async () => {
    const long = await post('/v1/things', {}, 'k'.repeat(256));
    expect([long.statusCode, long.json().errors[0]]).toEqual([
      422,
      { parameter: 'Idempotency-Key', code: 'invalid', detail: 'Idempotency-Key must be 1 to 255 characters.' },
    ]);
    expect((await post('/v1/things', {}, 'k'.repeat(255))).statusCode).toBe(201);
    await post('/v1/plain', {}, 'k-6');
    await post('/v1/things', {});
    expect(records.size).toBe(1);
  });
});
