// Fleet events from courier companies: POST /v1/fleet/{courier_slug}/events, signed with the company's
// fleet secret (Standard Webhooks). Accepted events are signalled to the delivery's workflow (src/deliveries/fleet-events.ts,
// the path the test helpers share): 202.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { z } from 'zod';
import type { Pool } from '../platform/db.js';
import type { AppDeps } from '../platform/deps.js';
import { courierBySlug, recordFleetReceipt, validFleetSecrets } from '../couriers/service.js';
import { passFleetEvent } from './fleet-events.js';
import { courierWithFleetDelivery, insertEventOnce, type FleetEventDelivery } from './repository.js';
import { EXAMPLE_ATTEMPT_FAILED_EVENT, EXAMPLE_DELIVERED_FLEET_EVENT, EXAMPLE_FLEET_EVENT } from '../http/examples.js';
import { ProofOfDelivery } from './proof.js';
import { parseJsonBodies } from '../http/json-body.js';
import { ApiError, notFound, validationFailed } from '../http/problem.js';
import { DateTimeInput, problems } from '../http/schemas.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import { ATTEMPT_FAILURE_REASONS, FLEET_EVENT_TYPES, isFinal } from '../../shared/deliveries/vocabulary.js';
import { FLEET_TRANSITIONS } from '../../shared/deliveries/state-table.js';
import { COURIER_PAYLOAD_MAX_BYTES, pickCourierPayload } from '../../shared/deliveries/courier-payload.js';

const TRACKING_REF_MAX = 200;

export const FleetEventBody = z
  .strictObject({
    tracking_ref: z.string().min(1).max(TRACKING_REF_MAX),
    event_type: z.enum(FLEET_EVENT_TYPES),
    occurred_at: DateTimeInput,
    payload: z
      .object({
        pin: z
          .union([z.string().max(32), z.number()])
          .nullable()
          .optional()
          .meta({
            description: 'The delivery PIN the recipient told the driver (with `delivered`); checked, never stored.',
          }),
        driver_name: z.string().max(200).nullable().optional(),
        driver_phone: z.string().max(50).nullable().optional(),
        vehicle: z.string().max(200).nullable().optional().meta({ description: 'Vehicle description or plate.' }),
        location: z
          .object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) })
          .nullable()
          .optional(),
        eta: DateTimeInput.nullable().optional().meta({ description: 'Expected arrival at the destination.' }),
        eta_minutes: z.int().min(0).max(100_000).nullable().optional(),
        note: z.string().max(1000).nullable().optional(),
        reason: z
          .string()
          .max(200)
          .nullable()
          .optional()
          .meta({
            description:
              "The courier's reason, e.g. with `failed`. With `attempt_failed` required, one of " +
              `${ATTEMPT_FAILURE_REASONS.join(', ')} (422 otherwise).`,
          }),
        proof: ProofOfDelivery.nullable()
          .optional()
          .meta({
            description:
              'With `delivered` only: proof of delivery (recipient_name, photo_url and signature_url as https links, location); ' +
              "shown to the merchant as the delivery's proof_of_delivery, never on tracking or the widget. The links are never fetched.",
          }),
        cash_collected_aoa: z
          .int()
          .min(0)
          .max(1e14)
          .nullable()
          .optional()
          .meta({
            description:
              'With `delivered` of a cash-on-delivery delivery: the cash collected at the door, in AOA centavos ' +
              '(absent: the expected cash_collect_aoa is booked, declared false). docs/cash-on-delivery.md.',
          }),
      })
      .nullable()
      .optional()
      .meta({
        description:
          `At most ${COURIER_PAYLOAD_MAX_BYTES} bytes of JSON. Only these fields are kept (stored under the event's payload.courier); ` +
          'other fields are dropped, so a courier cannot set the fields the service sets (ignored, reason, status, pin_verified).',
      }),
  })
  .superRefine((event, ctx) => {
    if (event.event_type !== 'delivered' && event.payload?.proof)
      ctx.addIssue({
        code: 'custom',
        path: ['payload', 'proof'],
        params: { code: 'not_allowed' },
        message: 'proof is accepted with the delivered event only',
      });
  })
  .meta({
    id: 'FleetEvent',
    examples: [EXAMPLE_FLEET_EVENT, EXAMPLE_DELIVERED_FLEET_EVENT, EXAMPLE_ATTEMPT_FAILED_EVENT],
  });

/** A stable UUID (version-4 layout) derived from a string. */
const uuidFrom = (text: string) => {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** What verifyFleetSender leaves on the request for the handler. */
interface FleetRequest {
  courierId?: string;
  /** With `withDelivery`: the delivery the body's tracking_ref names, read with the company (null: none). */
  fleetDelivery?: FleetEventDelivery | null;
}

/**
 * A fleet event's sender: the company its path names, signed with one of that company's fleet secrets, active, and
 * within the payload cap. Remembers the company on the request for the handler and, `withDelivery`, the delivery the
 * body's tracking_ref names, read in the same round trip as the company (used only once the sender is checked).
 */
export async function verifyFleetSender(
  pool: Pool,
  request: FastifyRequest,
  { withDelivery = false }: { withDelivery?: boolean } = {},
): Promise<void> {
  const { courier_slug: slug } = request.params as { courier_slug: string };
  const sentRef = (request.body as { tracking_ref?: unknown } | undefined)?.tracking_ref;
  // Before the body is validated: a tracking_ref the schema would refuse is not looked for.
  const trackingRef =
    withDelivery && typeof sentRef === 'string' && sentRef.length <= TRACKING_REF_MAX ? sentRef : null;
  const found =
    trackingRef === null
      ? await courierBySlug(pool, slug).then((courier) => courier && { courier, delivery: null })
      : await courierWithFleetDelivery(pool, slug, trackingRef, String(request.headers['webhook-id']));
  const courier = found?.courier;
  // The simulated test couriers take no fleet event from outside: theirs come from inside (test-auto, test helpers).
  if (!courier || courier.adapter === 'simulated') throw notFound('Courier company');
  // After `courier rotate-secret` the previous secret stays valid for 24 h beside the new one.
  const verified = validFleetSecrets(courier).some((secret) => {
    try {
      new Webhook(secret).verify(request.rawBody ?? '', request.headers as Record<string, string>);
      return true;
    } catch (err) {
      if (err instanceof WebhookVerificationError || err instanceof Error) return false;
      throw err;
    }
  });
  if (!verified)
    throw new ApiError(
      401,
      'unauthorized',
      'Missing or invalid webhook signature, or a timestamp older than 5 minutes.',
    );
  if (!courier.active)
    throw new ApiError(403, 'courier_inactive', 'This courier company is deactivated; its fleet events are refused.');
  // The courier's payload is capped (measured as sent, before unknown fields are dropped).
  const sentPayload = (request.body as { payload?: unknown } | undefined)?.payload;
  if (
    sentPayload !== null &&
    typeof sentPayload === 'object' &&
    Buffer.byteLength(JSON.stringify(sentPayload)) > COURIER_PAYLOAD_MAX_BYTES
  ) {
    throw validationFailed([
      {
        pointer: '/payload',
        code: 'too_large',
        detail: `payload must be at most ${COURIER_PAYLOAD_MAX_BYTES} bytes of JSON.`,
      },
    ]);
  }
  (request as FleetRequest).courierId = courier.id;
  if (trackingRef !== null) (request as FleetRequest).fleetDelivery = found!.delivery;
}

/** `attempt_failed` takes one of the attempt failure reasons (design.md "Attempts, returns"): 422 with a pointer otherwise. */
export function checkAttemptReason(eventType: string, reason: unknown, pointer = '/payload/reason'): void {
  if (eventType !== 'attempt_failed') return;
  if ((ATTEMPT_FAILURE_REASONS as readonly unknown[]).includes(reason)) return;
  const detail = `attempt_failed needs a reason, one of ${ATTEMPT_FAILURE_REASONS.join(', ')}.`;
  throw validationFailed([
    { pointer, code: reason === undefined || reason === null ? 'required' : 'invalid_enum', detail },
  ]);
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool, temporal }) => {
  // The signature covers the exact bytes: keep the raw body beside the parsed one (this plugin's scope only).
  parseJsonBodies(app, { keepRaw: true });

  app.post(
    '/v1/fleet/:courier_slug/events',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['fleet'],
        operationId: 'receiveFleetEvent',
        summary: 'A courier reports progress of a job',
        description:
          "Signed with the company's fleet secret, Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature); " +
          'timestamps older than 5 minutes are refused. A repeated webhook-id is accepted once. ' +
          'Events not allowed from the current state are recorded with payload.ignored = true. ' +
          'A deactivated courier company gets 403 (courier_inactive).',
        security: [],
        params: z.object({ courier_slug: z.string().max(100) }),
        body: FleetEventBody,
        response: {
          202: z
            .object({ received: z.literal(true), duplicate: z.boolean() })
            .meta({ examples: [{ received: true, duplicate: false }] }),
          ...problems(401, 403, 404, 422, 429),
        },
      },
      // The signature is checked before the body schema: an unsigned request learns nothing about the format.
      preValidation: (request) => verifyFleetSender(pool, request, { withDelivery: true }),
    },
    async (request, reply) => {
      // The company, and the delivery its job names, both read with the sender (one round trip): a body that passed
      // validation had a tracking_ref the sender's check looked for.
      const { courierId, fleetDelivery: delivery } = request as FleetRequest as Required<FleetRequest>;
      const event = request.body;
      const webhookId = String(request.headers['webhook-id']);
      checkAttemptReason(event.event_type, event.payload?.reason);
      if (!delivery) throw notFound('Delivery with this tracking_ref');

      // A webhook-id seen before is answered at once. The receipt is written only after the event is safely
      // with the workflow, so a crash in between makes the courier's retry deliver it again; the workflow
      // itself drops a webhook-id it already has, so that retry changes nothing twice.
      if (delivery.seen) return reply.code(202).send({ received: true as const, duplicate: true });

      // Only the allow-listed courier fields go on; the PIN is checked (src/deliveries/fleet-events.ts) and never passed on nor stored.
      const courierPayload = pickCourierPayload(event.payload);
      try {
        // A job the delivery moved away from (automatic failover) changes nothing either: recorded as ignored.
        if (isFinal(delivery.status) || delivery.superseded)
          throw new WorkflowNotFoundError('closed', deliveryWorkflowId(delivery.id), undefined);
        await passFleetEvent(temporal, delivery, {
          eventType: event.event_type,
          occurredAt: event.occurred_at,
          payload: event.payload,
          webhookId,
          companyId: courierId,
        });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err; // not recorded: the courier retries the same webhook-id
        // The workflow has finished (the delivery is final) or the job was superseded, so the event changes nothing.
        // Its id comes from the webhook-id, so a retry records it once.
        await insertEventOnce(pool, {
          id: uuidFrom(`${courierId}:${webhookId}`),
          deliveryId: delivery.id,
          tenantId: delivery.tenant_id,
          eventType: FLEET_TRANSITIONS[event.event_type].eventType,
          source: 'fleet_webhook',
          payload: {
            courier: courierPayload,
            courier_occurred_at: event.occurred_at,
            webhook_id: webhookId,
            ignored: true,
            reason: delivery.superseded ? 'superseded_booking' : `not_allowed_from_${delivery.status}`,
            status: delivery.status,
          },
        });
      }
      await recordFleetReceipt(pool, courierId, webhookId);
      return reply.code(202).send({ received: true as const, duplicate: false });
    },
  );
};
export default routes;
