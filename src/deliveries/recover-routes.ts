// POST /v1/deliveries/{id}/recover: a merchant recovers its own stalled delivery (src/deliveries/recover.ts), with
// the actions its `recovery.actions` lists.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { IdempotencyHeaders, problems } from '../http/schemas.js';
import { EXAMPLE_RECOVER_REQUESTS } from '../http/examples.js';
import { loadDeliveryWithEvents } from './load.js';
import { recoverDelivery } from './recover.js';
import { Delivery, DeliveryId } from './schemas.js';
import { toDelivery } from './views.js';

export const RecoverBody = z
  .discriminatedUnion('action', [
    z.strictObject({
      action: z.literal('redispatch'),
      company_id: z
        .uuid()
        .optional()
        .describe(
          'book this company (an active company linked to the account; 422 company_not_linked otherwise); absent: the next ' +
            'company within the fee ceiling, as automatic failover chooses it (409 no_company_available when none)',
        ),
    }),
    z.strictObject({ action: z.literal('resume') }),
    z.strictObject({
      action: z.literal('mark_failed'),
      reason: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe('the `delivery.failed` payload.reason (default merchant_request)'),
    }),
    z.strictObject({ action: z.literal('cancel') }),
  ])
  .meta({ id: 'RecoverDelivery', examples: EXAMPLE_RECOVER_REQUESTS });

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  app.post(
    '/v1/deliveries/:id/recover',
    {
      config: { idempotent: true },
      schema: {
        tags: ['deliveries'],
        operationId: 'recoverDelivery',
        summary: 'Recover a stalled delivery',
        description:
          "The operator's recovery actions, for the merchant (recorded with source `api`): `redispatch` books the courier again " +
          '(the same company, `company_id`, or without it the next company within the fee ceiling: the locked fee plus the dispatch ' +
          "policy's max_fee_increase_aoa, preferred companies first, then the cheapest); `resume` goes back to the status before " +
          'the stall; `mark_failed` ends it as failed; `cancel` cancels it, only when it stalled before pickup (pending or ' +
          "assigned). The delivery's `recovery.actions` lists what it accepts. 409 delivery_not_stalled when it is not stalled, " +
          '409 recovery_not_allowed for cancel after pickup, 409 no_company_available when no other company qualifies, ' +
          '422 company_not_linked for a company_id the account cannot book; 503 recovery_pending when the outcome could not be ' +
          'confirmed within 30 s.',
        headers: IdempotencyHeaders,
        params: DeliveryId,
        body: RecoverBody,
        response: {
          200: Delivery,
          ...problems(401, 404, 409, 413, 422, 429, 503),
        },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      await recoverDelivery(deps, scope, request.params.id, request.body);
      const { delivery, events } = await loadDeliveryWithEvents(deps.pool, scope, request.params.id);
      return toDelivery(delivery, events, deps.config.baseUrl);
    },
  );
};
export default routes;
