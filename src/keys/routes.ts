// A tenant's API keys (docs/dashboard.md): list (publishable keys whole, secret keys by their prefix), create (a
// secret key shown whole once), change a publishable key's allowed origins and widget payment rules, revoke. Key issuance is managed from the dashboard only: the writes take its session
// (plugins/session.ts: live keys take an owner, test keys, in Dashboard-Mode test, a developer) and a secret key gets
// 403 session_required on them (plugins/auth.ts, src/users/roles.ts sessionOnly), so a leaked key cannot mint its
// successor. A secret key may still list the keys of its own mode. Keys are found by their hash (src/platform/secrets.ts);
// only publishable keys, public by design, are also kept whole (migration 1700000050100).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../platform/deps.js';
import {
  changeScopedPublishableKey,
  findScopedKey,
  listScopedKeys,
  revokeScopedKey,
  type ApiKeyRow,
  type PublishableKeyChange,
} from './repository.js';
import {
  ApiKey,
  ApiKeyList,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  MAX_ACTIVE_KEYS,
  UpdateApiKeyBody,
} from './schemas.js';
import { toApiKey } from './views.js';
import { normaliseWidgetPolicy, widgetPolicyErrors } from './widget-policy.js';
import type { PaymentMethod } from '../../shared/deliveries/vocabulary.js';
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

type UpdateBody = {
  allowed_origins?: string[];
  widget_payment_methods?: PaymentMethod[];
  widget_cod_amount_aoa?: number | null;
};

/**
 * What a PATCH changes of publishable key `key`, or 422. The payment rules sent are merged with the stored ones (as
 * the widget applies them) and checked together: a cod amount without cod is refused, except that dropping cod from
 * the methods without naming the amount clears the stored amount (it only ever meant the cod deliveries' cash).
 */
function keyChange(key: ApiKeyRow, body: UpdateBody): PublishableKeyChange {
  const change: PublishableKeyChange = {};
  if (body.allowed_origins !== undefined) change.allowedOrigins = origins(body.allowed_origins);
  if (body.widget_payment_methods === undefined && body.widget_cod_amount_aoa === undefined) return change;
  const current = toApiKey(key);
  const methods = body.widget_payment_methods ?? current.widget_payment_methods ?? [];
  let amount = body.widget_cod_amount_aoa === undefined ? current.widget_cod_amount_aoa : body.widget_cod_amount_aoa;
  if (body.widget_cod_amount_aoa === undefined && !methods.includes('cod')) amount = null;
  const policy = { payment_methods: methods, cod_amount_aoa: amount };
  const errors = widgetPolicyErrors(policy);
  if (errors.length) throw validationFailed(errors);
  const stored = normaliseWidgetPolicy(policy);
  change.widgetPolicy = { methods: stored.payment_methods, codAmountAoa: stored.cod_amount_aoa };
  return change;
}

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
        'Revoked keys are listed too (status `revoked`). A secret key is shown by its first 12 characters (`prefix`), never whole; ' +
        'a publishable key also whole (`publishable_key`: it is public) with its widget payment rules.',
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
        'The whole key is in `secret`: a secret key is returned whole only in this response (only its hash is kept); a publishable key ' +
        'stays readable in `publishable_key`. ' +
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
      summary: "Change a publishable key's allowed origins and widget payment rules",
      description:
        'Each field sent replaces the stored one; at least one field. `allowed_origins` replaces the list (browsers may take a few ' +
        'seconds to see the change in CORS preflights). `widget_payment_methods` and `widget_cod_amount_aoa` are the payment rules ' +
        'POST /v1/widget/deliveries applies to this key: a cod amount goes with cod (422 otherwise); leaving cod out of the methods ' +
        'without sending the amount clears the stored amount. A secret key has neither (422 not_allowed). ' +
        '409 api_key_revoked for a revoked key. From a dashboard session only: a secret key gets 403 session_required.',
      params: IdParam,
      body: UpdateApiKeyBody,
      response: { 200: ApiKey, ...problems(401, 403, 404, 409, 413, 422, 429) },
    }),
    async (request) => {
      const scope = scopeOf(request);
      const body = request.body;
      const fields = Object.keys(body).filter((f) => body[f as keyof typeof body] !== undefined);
      if (!fields.length) {
        throw validationFailed([
          {
            pointer: '',
            code: 'required',
            detail: 'Send at least one of allowed_origins, widget_payment_methods, widget_cod_amount_aoa.',
          },
        ]);
      }
      const key = await findScopedKey(pool, scope, request.params.id);
      if (!key) throw notFound('API key');
      if (key.kind !== 'publishable') {
        throw validationFailed(
          fields.map((f) => ({
            pointer: `/${f}`,
            code: 'not_allowed' as const,
            detail: `Only publishable keys have ${f === 'allowed_origins' ? 'allowed origins' : 'widget payment rules'}.`,
          })),
        );
      }
      if (key.revoked_at) throw new ApiError(409, 'api_key_revoked', 'This key is revoked; create a new one.');
      const updated = await changeScopedPublishableKey(pool, scope, key.id, keyChange(key, body));
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
