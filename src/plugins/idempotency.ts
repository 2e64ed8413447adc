// Idempotency-Key (design.md): a repeat within 24 h with the same body returns the first response
// (same status and body); the same key with another body is 422 `idempotency_key_reused`; a repeat while
// the first is still running is 409 `idempotency_request_in_progress`. Routes opt in with `config.idempotent`.
import fp from 'fastify-plugin';
import type { Pool } from '../db.js';
import { canonicalJson, sha256Hex } from '../lib/canonical.js';
import { ApiError } from '../lib/problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency: { tenantId: string; scope: string; key: string } | null;
  }
}

const TTL = "interval '24 hours'";
/** A first request that crashed without answering frees its key after this long (requests finish well within it). */
const ABANDONED = "interval '1 minute'";

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
    const tenantId = request.auth.tenantId;
    const scope = `${request.method} ${request.url.split('?')[0]}`;
    const requestHash = sha256Hex(canonicalJson(request.body ?? null));

    // Claim the key, taking over one that expired or whose first request was abandoned.
    const claimed = await pool.query(
      `INSERT INTO idempotency_keys (tenant_id, key_scope, idempotency_key, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, key_scope, idempotency_key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, status_code = NULL, response_body = NULL, created_at = now()
         WHERE idempotency_keys.created_at < now() - ${TTL}
            OR (idempotency_keys.status_code IS NULL AND idempotency_keys.created_at < now() - ${ABANDONED})
       RETURNING 1`,
      [tenantId, scope, key, requestHash],
    );
    if (claimed.rowCount === 1) {
      request.idempotency = { tenantId, scope, key };
      return;
    }
    const { rows } = await pool.query<{ request_hash: string; status_code: number | null; response_body: unknown }>(
      'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE tenant_id = $1 AND key_scope = $2 AND idempotency_key = $3',
      [tenantId, scope, key],
    );
    const previous = rows[0];
    if (!previous) throw new ApiError(409, 'idempotency_request_in_progress', 'A request with this Idempotency-Key is in progress; retry shortly.');
    if (previous.request_hash !== requestHash) {
      throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body. Use a new key for a new request.');
    }
    if (previous.status_code === null) {
      throw new ApiError(409, 'idempotency_request_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly.');
    }
    reply.header('idempotent-replayed', 'true');
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
      await pool.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key_scope = $2 AND idempotency_key = $3', [claim.tenantId, claim.scope, claim.key]);
      return payload;
    }
    await pool.query(
      'UPDATE idempotency_keys SET status_code = $4, response_body = $5 WHERE tenant_id = $1 AND key_scope = $2 AND idempotency_key = $3',
      [claim.tenantId, claim.scope, claim.key, reply.statusCode, typeof payload === 'string' ? payload : null],
    );
    return payload;
  });
});
