// A tenant's API keys (docs/dashboard.md): list, create (the whole key shown once), change a publishable key's
// allowed origins, revoke. Key issuance is managed from the dashboard only: the writes take its session
// (plugins/session.ts: live keys take an owner, test keys, in Dashboard-Mode test, a developer) and a secret key gets
// 403 session_required on them (plugins/auth.ts, src/users/roles.ts sessionOnly), so a leaked key cannot mint its
// successor. A secret key may still list the keys of its own mode. Only a key's hash is stored (src/platform/secrets.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../platform/deps.js';
import { findScopedKey, listScopedKeys, revokeScopedKey, setScopedAllowedOrigins } from './repository.js';
import {
  ApiKey,
  ApiKeyList,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  MAX_ACTIVE_KEYS,
  UpdateApiKeyBody,
} from './schemas.js';
import { toApiKey } from './views.js';
import { parseJsonBodies } from '../http/json-body.js';
import { ApiError, notFound, validationFailed } from '../http/problem.js';
import { createKeyWithinLimit, normaliseOrigin } from './service.js';
import { scopeOf } from '../http/plugins/auth.js';
import { IdParam, problems } from '../http/schemas.js';
import { idempotent, listRoute, objectAction } from '../http/route-helpers.js';

const TAG = ['api_keys'];

/** The origins normalised, or 422 naming each one that is not an origin. */
function origins(list: string[] | undefined): string[] {
  const out: string[] = [];
  const errors: { pointer: string; code: 'invalid_format'; detail: string }[] = [];
  (list ?? []).forEach((value, i) => {
    try {
      out.push(normaliseOrigin(value));
    } catch {
      errors.push({
        pointer: `/allowed_origins/${i}`,
        code: 'invalid_format',
        detail: `"${value}" is not an origin (expected scheme://host[:port]).`,
      });
    }
  });
  if (errors.length) throw validationFailed(errors);
  return [...new Set(out)];
}

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

function registerListApiKeys(app: App, { pool }: AppDeps) {
  listRoute(
    app,
    '/v1/api_keys',
    toApiKey,
    (request, limit, offset) => listScopedKeys(pool, scopeOf(request), limit, offset),
    {
      tags: TAG,
      operationId: 'listApiKeys',
      summary: "List the tenant's API keys of the calling key's mode, newest first",
      description:
        'Revoked keys are listed too (status `revoked`). A key is shown by its first 12 characters (`prefix`), never whole.',
      response: { 200: ApiKeyList, ...problems(401, 422, 429) },
    },
  );
}

function registerCreateKey(app: App, { pool }: AppDeps) {
  app.post(
    '/v1/api_keys',
    idempotent({
      tags: TAG,
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description:
        'A secret key (servers) or a publishable key (the widget, with its `allowed_origins`), of the dashboard’s mode (`Dashboard-Mode: test` for a test key). ' +
        'From a dashboard session only (an owner for live keys, a developer or an owner for test keys): a secret key gets 403 session_required. ' +
        'The whole key is in `secret`, returned only in this response. ' +
        `At most ${MAX_ACTIVE_KEYS} active keys per mode (422 api_key_limit_reached).`,
      body: CreateApiKeyBody,
      response: { 201: ApiKeyWithSecret, ...problems(401, 403, 409, 413, 422, 429) },
    }),
    async (request, reply) => {
      const scope = scopeOf(request);
      const { kind, allowed_origins: wanted } = request.body;
      if (kind === 'secret' && wanted?.length) {
        throw validationFailed([
          { pointer: '/allowed_origins', code: 'not_allowed', detail: 'Only publishable keys have allowed origins.' },
        ]);
      }
      const list = origins(wanted);
      // The limit is checked in the insert's transaction: parallel creations never pass it together.
      const issued = await createKeyWithinLimit(pool, scope, kind, list, MAX_ACTIVE_KEYS);
      if (!issued)
        throw new ApiError(
          422,
          'api_key_limit_reached',
          `At most ${MAX_ACTIVE_KEYS} active API keys per mode; revoke one first.`,
        );
      const row = await findScopedKey(pool, scope, issued.id);
      return reply.code(201).send({ ...toApiKey(row!), secret: issued.key });
    },
  );
}

function registerUpdateKey(app: App, { pool }: AppDeps) {
  app.patch(
    '/v1/api_keys/:id',
    idempotent({
      tags: TAG,
      operationId: 'updateApiKey',
      summary: "Change a publishable key's allowed origins",
      description:
        'Replaces the list. Browsers may take a few seconds to see the change in CORS preflights. 409 api_key_revoked for a revoked key. ' +
        'From a dashboard session only: a secret key gets 403 session_required.',
      params: IdParam,
      body: UpdateApiKeyBody,
      response: { 200: ApiKey, ...problems(401, 403, 404, 409, 413, 422, 429) },
    }),
    async (request) => {
      const scope = scopeOf(request);
      const key = await findScopedKey(pool, scope, request.params.id);
      if (!key) throw notFound('API key');
      if (key.kind !== 'publishable') {
        throw validationFailed([
          { pointer: '/allowed_origins', code: 'not_allowed', detail: 'Only publishable keys have allowed origins.' },
        ]);
      }
      if (key.revoked_at) throw new ApiError(409, 'api_key_revoked', 'This key is revoked; create a new one.');
      const updated = await setScopedAllowedOrigins(pool, scope, key.id, origins(request.body.allowed_origins));
      if (!updated) throw new ApiError(409, 'api_key_revoked', 'This key is revoked; create a new one.');
      return toApiKey(updated);
    },
  );
}

function registerRevokeKey(app: App, { pool }: AppDeps) {
  objectAction(app, '/v1/api_keys/:id/revoke', 'API key', toApiKey, (scope, id) => revokeScopedKey(pool, scope, id), {
    tags: TAG,
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description:
      'From now on the key gets 401. Revoking a revoked key answers it as it is (its first revocation time). ' +
      'From a dashboard session only: a secret key gets 403 session_required (a leaked key cannot revoke the merchant’s keys).',
    response: { 200: ApiKey, ...problems(401, 403, 404, 409, 422, 429) },
  });
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  // revoke may come without a body even when the client says application/json.
  parseJsonBodies(app, { allowEmpty: true });
  registerListApiKeys(app, deps);
  registerCreateKey(app, deps);
  registerUpdateKey(app, deps);
  registerRevokeKey(app, deps);
};
export default routes;
