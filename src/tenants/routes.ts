// The tenant's settings, with the secret key: GET/PUT /v1/settings/dispatch (automatic failover, docs/deliveries.md).
// Per mode, like everything of test mode (docs/test-mode.md): a test key reads and changes the test policy, which test
// deliveries take; a live key the live one. A test key can neither see nor change the live policy.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../platform/deps.js';
import { canBook } from '../couriers/service.js';
import { validationFailed } from '../http/problem.js';
import { scopeOf } from '../http/plugins/auth.js';
import { problems } from '../http/schemas.js';
import { DispatchPolicy, DispatchPolicyChange } from './dispatch-policy.js';
import { dispatchPolicyOf, saveDispatchPolicy } from './repository.js';

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
      const preferred = request.body.preferred_company_ids ?? [];
      const unknown = [];
      for (const [i, companyId] of preferred.entries()) {
        // Companies of the key's mode only: real couriers for a live key, simulated test couriers for a test key.
        if (!(await canBook(pool, tenantId, companyId, livemode))) {
          unknown.push({
            pointer: `/preferred_company_ids/${i}`,
            code: 'not_allowed' as const,
            detail: `Company ${companyId} is not one this tenant can book.`,
          });
        }
      }
      if (unknown.length) throw validationFailed(unknown);
      const policy = { ...(await dispatchPolicyOf(pool, tenantId, livemode)), ...request.body };
      await saveDispatchPolicy(pool, tenantId, livemode, policy);
      return policy;
    },
  );
};
export default routes;
