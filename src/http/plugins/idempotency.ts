// Idempotency-Key (design.md): a repeat within 24 h with the same body returns the first response
// (same status and body); the same key with another body is 422 `idempotency_key_reused`; a repeat while
// the first is still running is 409 `idempotency_request_in_progress`. Routes opt in with `config.idempotent`.
// A record names the operation: the method, the matched route pattern and its parameters (never the raw path).
// A key whose record is older than 24 h is free again: the request runs as a new one (the maintenance purge
// deletes such records). No secret is kept here: the top-level fields of SECRET_FIELDS (a webhook endpoint's signing
// `secret`, a widget delivery's `client_secret`) are left out of the stored answer, and a replay, which answers
// without them, names them in the `idempotent-replay-withheld` header.
import fp from 'fastify-plugin';
import type { Pool } from '../../platform/db.js';
import { claimKey, findRecord, releaseKey, storeAnswer, type IdempotencyClaim } from '../idempotency-repository.js';
import { canonicalJson, sha256Hex } from '../../platform/canonical.js';
import { ApiError } from '../problem.js';
import { isUuid } from '../../platform/uuid.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency: IdempotencyClaim | null;
  }
}

/** Answer fields never stored: a replay is sent without them. */
export const SECRET_FIELDS: readonly string[] = ['secret', 'client_secret'];

/** The answer as stored: JSON without its secret fields, and which were left out. */
function withoutSecrets(payload: unknown): { body: string | null; withheld: string[] } {
  if (typeof payload !== 'string') return { body: null, withheld: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return { body: null, withheld: [] };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { body: payload, withheld: [] };
  const withheld = SECRET_FIELDS.filter((field) => field in parsed);
  if (withheld.length === 0) return { body: payload, withheld };
  const kept = Object.fromEntries(Object.entries(parsed).filter(([field]) => !withheld.includes(field)));
  return { body: JSON.stringify(kept), withheld };
}

/** The route's parameters as they name objects: a UUID in lower case (Postgres reads either case as the same id). */
function operationParams(params: unknown): Record<string, unknown> {
  if (!params || typeof params !== 'object') return {};
  return Object.fromEntries(
    Object.entries(params).map(([name, value]) => [
      name,
      typeof value === 'string' && isUuid(value) ? value.toLowerCase() : value,
    ]),
  );
}

export default fp(async (app, opts: { pool: Pool }) => {
  const { pool } = opts;
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (!request.routeOptions.config?.idempotent || key === undefined || !request.auth) return;
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new ApiError(422, 'validation_failed', 'Idempotency-Key must be 1 to 255 characters.', [
        { parameter: 'Idempotency-Key', code: 'invalid', detail: 'Idempotency-Key must be 1 to 255 characters.' },
      ]);
    }
    const { tenantId, livemode } = request.auth;
    // The operation, not the spelling of its URL: the matched route and its parsed parameters, so `/v1/api_keys/`
    // and `/v1/%61pi_keys` share the record of `/v1/api_keys`, and an id in upper case that of the same id in lower
    // case (a record keyed on the raw path let each spelling run the request again).
    const scope = `${request.method} ${request.routeOptions.url} ${canonicalJson(operationParams(request.params))}`;
    const requestHash = sha256Hex(canonicalJson(request.body ?? null));

    // Claim the key, taking over one that expired or whose first request was abandoned.
    const claim = { tenantId, livemode, scope, key };
    if (await claimKey(pool, claim, requestHash)) {
      request.idempotency = claim;
      return;
    }
    const previous = await findRecord(pool, claim);
    if (!previous)
      throw new ApiError(
        409,
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is in progress; retry shortly.',
      );
    if (previous.request_hash !== requestHash) {
      throw new ApiError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request body. Use a new key for a new request.',
      );
    }
    if (previous.status_code === null) {
      throw new ApiError(
        409,
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still in progress; retry shortly.',
      );
    }
    reply.header('idempotent-replayed', 'true');
    if (previous.withheld_fields?.length)
      reply.header('idempotent-replay-withheld', previous.withheld_fields.join(', '));
    const isProblem = previous.status_code >= 400;
    return reply
      .code(previous.status_code)
      .type(isProblem ? 'application/problem+json' : 'application/json')
      .serializer((payload: unknown) => JSON.stringify(payload))
      .send(previous.response_body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 500) {
      // Not an answer to remember: free the key so the client's retry runs again.
      await releaseKey(pool, claim);
      return payload;
    }
    const stored = withoutSecrets(payload);
    await storeAnswer(pool, claim, reply.statusCode, stored.body, stored.withheld.length ? stored.withheld : null);
    return payload;
  });
});
