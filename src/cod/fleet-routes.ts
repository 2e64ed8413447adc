// A courier reports the cash it handed over: POST /v1/fleet/{courier_slug}/remittances, signed like fleet events
// (the same verification: src/deliveries/fleet-routes.ts). design.md "Cash on delivery"; docs/cash-on-delivery.md.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { verifyFleetSender } from '../deliveries/fleet-routes.js';
import { parseJsonBodies } from '../http/json-body.js';
import { problems } from '../http/schemas.js';
import { createRemittance } from './remittances.js';
import { FleetRemittanceAnswer, FleetRemittanceBody } from './schemas.js';
import { sendCodWebhooks } from './webhooks.js';
import { toFleetReceipt } from './views.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const { pool } = deps;
  // The signature covers the exact bytes: keep the raw body beside the parsed one (this plugin's scope only).
  parseJsonBodies(app, { keepRaw: true });

  app.post(
    '/v1/fleet/:courier_slug/remittances',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['fleet'],
        operationId: 'reportFleetRemittance',
        summary: 'A courier reports cash on delivery it handed over to a merchant',
        description:
          "Signed with the company's fleet secret like fleet events (Standard Webhooks). Every item is a delivered " +
          'cash-on-delivery job of one merchant (else 422 remittance_mixed_tenants); amount_aoa + fee_deducted_aoa equals ' +
          "the cash collected and the fee is at most the delivery's locked fee (else 422 remittance_amount_mismatch, a " +
          'pointer per item); an item in another remittance gives 422 already_remitted. 201 with status reported; the ' +
          'same remittance_ref and body again answers 200 with the same body, another body 409 remittance_ref_reused. ' +
          'Each delivery gets the event (and webhook) cod.remitted.',
        security: [],
        params: z.object({ courier_slug: z.string().max(100) }),
        body: FleetRemittanceBody,
        response: {
          201: FleetRemittanceAnswer,
          200: FleetRemittanceAnswer,
          ...problems(401, 403, 404, 409, 422, 429),
        },
      },
      preValidation: (request) => verifyFleetSender(pool, request),
    },
    async (request, reply) => {
      const courierId = (request as { courierId?: string }).courierId!;
      const body = request.body;
      const outcome = await createRemittance(pool, {
        source: 'courier',
        companyId: courierId,
        scope: null,
        remittanceRef: body.remittance_ref,
        paidAt: body.paid_at,
        method: body.method,
        bankReference: body.bank_reference ?? null,
        items: body.items,
      });
      sendCodWebhooks(deps, outcome.messages, request.log);
      return reply.code(outcome.created ? 201 : 200).send(toFleetReceipt(outcome.remittance));
    },
  );
};
export default routes;
