// The tenant's settings, with the secret key: GET/PUT /v1/settings/dispatch (automatic failover, docs/deliveries.md).
// Per mode, like everything of test mode (docs/test-mode.md): a test key reads and changes the test policy, which test
// deliveries take; a live key the live one. A test key can neither see nor change the live policy.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { problems } from '../http/schemas.js';
import { DispatchPolicy, DispatchPolicyChange } from './dispatch-policy.js';
import { dispatchPolicyOf } from './repository.js';
import { changeDispatchPolicy } from './service.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool }) => {
  app.get(
    '/v1/settings/dispatch',
    {
      schema: {
        tags: ['settings'],
        operationId: 'getDispatchPolicy',
        summary: 'The dispatch policy: automatic failover to another courier before pickup',
        response: { 200: DispatchPolicy, ...problems(401, 429) },
      },
    },
    async (request) => {
      const { tenantId, livemode } = scopeOf(request);
      return dispatchPolicyOf(pool, tenantId, livemode);
    },
  );

  app.put(
    '/v1/settings/dispatch',
    {
      schema: {
        tags: ['settings'],
        operationId: 'updateDispatchPolicy',
        summary: 'Change the dispatch policy',
        description:
          'Changes the fields sent; the others keep their values. Deliveries take the policy in effect when they are created. ' +
          'Each mode has its own policy: a test key changes the one of test deliveries, a live key the one of live deliveries. ' +
          "Every preferred company must be one the tenant can book in the key's mode (422 not_allowed otherwise).",
        body: DispatchPolicyChange,
        response: { 200: DispatchPolicy, ...problems(401, 422, 429) },
      },
    },
    async (request) => {
      const { tenantId, livemode } = scopeOf(request);
      return changeDispatchPolicy(pool, tenantId, livemode, request.body);
    },
  );
};
export default routes;
