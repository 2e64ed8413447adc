// Fleet events from courier companies: POST /v1/fleet/{courier_slug}/events, signed with the company's
// fleet secret (Standard Webhooks). Accepted events are signalled to the delivery's workflow: 202.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { z } from 'zod';
import type { AppDeps } from '../app.js';
import { courierBySlug } from '../couriers/repository.js';
import { ApiError, notFound } from '../lib/problem.js';
import { problems } from '../schemas.js';
import { deliveryWorkflowId, fleetEventSignal } from '../../workflows/deliveries/definitions.js';
import { FLEET_EVENT_TYPES, FLEET_TRANSITIONS, isFinal, type Status } from '../../workflows/deliveries/states.js';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
}

export const FleetEventBody = z
  .object({
    tracking_ref: z.string().min(1).max(200),
    event_type: z.enum(FLEET_EVENT_TYPES),
    occurred_at: z.iso.datetime({ offset: true }),
    payload: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .meta({ id: 'FleetEvent' });

/** A stable UUID (version-4 layout) derived from a string. */
const uuidFrom = (text: string) => {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool, temporal }) => {
  // The signature covers the exact bytes: keep the raw body beside the parsed one (this plugin's scope only).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ApiError(400, 'invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });

  app.post(
    '/v1/fleet/:courier_slug/events',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['fleet'],
        operationId: 'receiveFleetEvent',
        summary: 'A courier reports progress of a job',
        description:
          'Signed with the company\'s fleet secret, Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature); ' +
          'timestamps older than 5 minutes are refused. A repeated webhook-id is accepted once. ' +
          'Events not allowed from the current state are recorded with payload.ignored = true.',
        security: [],
        params: z.object({ courier_slug: z.string().max(100) }),
        body: FleetEventBody,
        response: { 202: z.object({ received: z.literal(true), duplicate: z.boolean() }), ...problems(401, 404, 422, 429) },
      },
      // The signature is checked before the body schema: an unsigned request learns nothing about the format.
      preValidation: async (request) => {
        const { courier_slug: slug } = request.params as { courier_slug: string };
        const courier = await courierBySlug(pool, slug);
        if (!courier) throw notFound('Courier company');
        try {
          new Webhook(courier.fleet_secret).verify(request.rawBody ?? '', request.headers as Record<string, string>);
        } catch (err) {
          if (err instanceof WebhookVerificationError || err instanceof Error) {
            throw new ApiError(401, 'unauthorized', 'Missing or invalid webhook signature, or a timestamp older than 5 minutes.');
          }
          throw err;
        }
        (request as { courierId?: string }).courierId = courier.id;
      },
    },
    async (request, reply) => {
      const courierId = (request as { courierId?: string }).courierId!;
      const event = request.body;
      const webhookId = String(request.headers['webhook-id']);

      const { rows } = await pool.query<{ id: string; tenant_id: string; status: Status; delivery_pin: string | null }>(
        `SELECT id, tenant_id, status, delivery_pin FROM deliveries
          WHERE company_id = $1 AND (courier_tracking_ref = $2 OR (courier_tracking_ref IS NULL AND reference = $2))`,
        [courierId, event.tracking_ref],
      );
      const delivery = rows[0];
      if (!delivery) throw notFound('Delivery with this tracking_ref');

      // A webhook-id seen before is answered at once. The receipt is written only after the event is safely
      // with the workflow, so a crash in between makes the courier's retry deliver it again; the workflow
      // itself drops a webhook-id it already has, so that retry changes nothing twice.
      const seen = await pool.query('SELECT 1 FROM fleet_webhook_receipts WHERE courier_id = $1 AND webhook_id = $2', [courierId, webhookId]);
      if (seen.rowCount) return reply.code(202).send({ received: true as const, duplicate: true });

      const { pin, ...payload } = event.payload ?? {};
      const pinVerified = delivery.delivery_pin === null || String(pin ?? '') === delivery.delivery_pin;
      try {
        if (isFinal(delivery.status)) throw new WorkflowNotFoundError('closed', deliveryWorkflowId(delivery.id), undefined);
        await temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).signal(fleetEventSignal, {
          eventType: event.event_type,
          occurredAt: event.occurred_at,
          payload: { ...payload, courier_occurred_at: event.occurred_at },
          pinVerified,
          webhookId,
        });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err; // not recorded: the courier retries the same webhook-id
        // The workflow has finished: the delivery is final, so the event changes nothing. Its id comes from the
        // webhook-id, so a retry records it once.
        await pool.query(
          `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, source, payload) VALUES ($1, $2, $3, $4, 'fleet_webhook', $5)
           ON CONFLICT (id) DO NOTHING`,
          [
            uuidFrom(`${courierId}:${webhookId}`), delivery.id, delivery.tenant_id, FLEET_TRANSITIONS[event.event_type].eventType,
            { ...payload, ignored: true, reason: `not_allowed_from_${delivery.status}`, webhook_id: webhookId },
          ],
        );
      }
      await pool.query('INSERT INTO fleet_webhook_receipts (courier_id, webhook_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [courierId, webhookId]);
      return reply.code(202).send({ received: true as const, duplicate: false });
    },
  );
};
export default routes;
