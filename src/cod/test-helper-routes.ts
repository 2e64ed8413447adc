// POST /v1/test_helpers/cod/remit {company_id}: the simulated courier reports every outstanding test collection of
// that company as one remittance (status reported, no fee kept), as a real courier's signed report would. Test keys
// only: a live key gets 404, as for a route that does not exist.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { ApiError, validationFailed } from '../http/problem.js';
import { problems } from '../http/schemas.js';
import { idempotent } from '../http/route-helpers.js';
import { createRemittance } from './remittances.js';
import { outstandingCollections } from './repository.js';
import { itemsOf } from './remittance-repository.js';
import { Remittance, TestRemitBody } from './schemas.js';
import { toRemittance } from './views.js';
import { sendCodWebhooks } from './webhooks.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const { pool } = deps;
  app.post(
    '/v1/test_helpers/cod/remit',
    {
      ...idempotent({
        tags: ['test_helpers'],
        operationId: 'remitTestCod',
        summary: 'Test mode: the courier remits every outstanding cash-on-delivery collection of a company',
        description:
          'One remittance (status reported, method bank_transfer, no fee kept) of every test collection of company_id ' +
          'not yet in a remittance; 422 when there is none. Test keys only: a live key gets 404.',
        body: TestRemitBody,
        response: { 201: Remittance, ...problems(401, 404, 409, 422, 429) },
      }),
      preValidation: async (request) => {
        if (scopeOf(request).livemode)
          throw new ApiError(
            404,
            'not_found',
            'No route POST /v1/test_helpers/cod/remit for a live key: test helpers take a test key (sk_test_...).',
          );
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const companyId = request.body.company_id;
      const outstanding = await outstandingCollections(pool, scope, companyId);
      if (outstanding.length === 0) {
        const detail = 'This company holds no outstanding cash of test deliveries.';
        throw validationFailed([{ pointer: '/company_id', code: 'not_allowed', detail }]);
      }
      const outcome = await createRemittance(pool, {
        source: 'test_helper',
        companyId,
        scope,
        remittanceRef: `test_${randomUUID()}`,
        paidAt: new Date().toISOString(),
        method: 'bank_transfer',
        bankReference: null,
        items: outstanding.map((c) => ({ delivery_id: c.delivery_id, amount_aoa: Number(c.collected_aoa) })),
      });
      sendCodWebhooks(deps, outcome.messages, request.log);
      const r = outcome.remittance;
      return reply.code(201).send(toRemittance(r, await itemsOf(pool, [r.id])));
    },
  );
};
export default routes;
