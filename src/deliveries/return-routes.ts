// POST /v1/deliveries/{id}/return: the merchant sends a failed delivery back to the sender (design.md "Attempts,
// returns and proof of delivery"). The return is a delivery of its own (src/deliveries/returns.ts), made and booked
// with the same company; the answer is that delivery, 201.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { ApiError, notFound } from '../http/problem.js';
import { EXAMPLE_RETURN_DELIVERY } from '../http/examples.js';
import { parseJsonBodies } from '../http/json-body.js';
import { IdempotencyHeaders, problems } from '../http/schemas.js';
import { loadDeliveryWithEvents } from './load.js';
import { ReturnNotAllowedError, startReturn } from './returns.js';
import { Delivery, DeliveryId } from './schemas.js';
import { toDelivery } from './views.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool, temporal, config }) => {
  // The request needs no body (`{}` is accepted too).
  parseJsonBodies(app, { allowEmpty: true });
  app.post(
    '/v1/deliveries/:id/return',
    {
      config: { idempotent: true },
      schema: {
        tags: ['deliveries'],
        operationId: 'returnDelivery',
        summary: 'Send a failed delivery back to the sender',
        description:
          'Creates and books the return to sender of a `failed` delivery that has none: a delivery of its own with the same company, ' +
          'origin and destination swapped, prepaid, no cash, reference `<reference>-R`, `return_of` the original; the original gets ' +
          '`return_delivery_id` and the event `delivery.return_started` (then `delivery.returned` once the return is delivered). ' +
          "Priced by the company's quote for the swapped route times its rate card's `return_fee_pct` (default 100). A delivery whose " +
          'last attempt failed, or that the recipient refused, gets its return automatically. 409 return_not_allowed when the ' +
          'delivery is not failed, already has a return, or is itself a return.',
        headers: IdempotencyHeaders,
        params: DeliveryId,
        body: z
          .strictObject({})
          .nullish()
          .meta({ examples: [{}] }),
        response: {
          201: Delivery.meta({ examples: [EXAMPLE_RETURN_DELIVERY] }),
          ...problems(401, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      let made;
      try {
        made = await startReturn({ pool, config, temporal }, request.params.id, { scope, manual: true });
      } catch (err) {
        if (err instanceof ReturnNotAllowedError) throw new ApiError(409, 'return_not_allowed', err.message);
        throw err;
      }
      if (!made) throw notFound('Delivery');
      const { delivery, events } = await loadDeliveryWithEvents(pool, scope, made.id);
      return reply.code(201).send(toDelivery(delivery, events, config.baseUrl));
    },
  );
};
export default routes;
