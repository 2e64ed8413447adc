// Deliveries: merchant surface (/v1/deliveries...) and widget surface (/v1/widget/deliveries...).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import type { AppDeps } from '../app.js';
import { createDelivery, type CreateDeliveryInput } from '../deliveries/create.js';
import { deliveryEvents, findDelivery, listDeliveries, type DeliveryRow } from '../deliveries/repository.js';
import { CreateDeliveryBody, Delivery, DeliveryEvent, DeliverySummary, ListQuery, Pagination, WidgetDelivery } from '../deliveries/schemas.js';
import { startDeliveryWorkflow, unstartedDeliveries } from '../deliveries/start.js';
import { toDelivery, toEvent, toSummary, toWidgetDelivery } from '../deliveries/view.js';
import { ApiError, notFound } from '../lib/problem.js';
import { tenantOf } from '../plugins/auth.js';
import { DeliveryId, IdempotencyHeaders, problems } from '../schemas.js';
import { cancelUpdate, confirmPaymentUpdate, deliveryWorkflowId } from '../../workflows/deliveries/definitions.js';
import { CANCELLABLE_STATUSES } from '../../workflows/deliveries/states.js';

const DeliveryIdParam = z.object({ delivery_id: z.uuid() });

/** Spec codes that are checked before the schema: a client-chosen fee, and a missing quote_id. */
function rejectQuoteBypass(request: FastifyRequest) {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  if ('courier_fee_aoa' in body) {
    throw new ApiError(422, 'courier_fee_aoa_not_accepted', 'The courier fee is decided by the quote; do not send courier_fee_aoa.', [
      { pointer: '/courier_fee_aoa', code: 'courier_fee_aoa_not_accepted', detail: 'courier_fee_aoa must not be sent.' },
    ]);
  }
  const quoteId = (body as { quote_id?: unknown }).quote_id;
  if (quoteId === undefined || quoteId === null || quoteId === '') {
    throw new ApiError(422, 'quote_id_required', 'quote_id is required: create a quote with POST /v1/quotes first.', [
      { pointer: '/quote_id', code: 'quote_id_required', detail: 'quote_id is required.' },
    ]);
  }
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool, temporal, config }) => {
  const load = async (tenantId: string, id: string): Promise<DeliveryRow> => {
    const delivery = await findDelivery(pool, tenantId, id);
    if (!delivery) throw notFound();
    return delivery;
  };

  async function create(request: FastifyRequest, body: CreateDeliveryInput, source: 'api' | 'widget') {
    const tenantId = tenantOf(request);
    const key = request.headers['idempotency-key'];
    const created = await createDelivery(pool, config, tenantId, body, source, typeof key === 'string' && key ? `${source}:${key}` : null);
    try {
      await startDeliveryWorkflow(temporal, pool, config, created);
    } catch (err) {
      // Committed but not started: the worker's reconciler starts it shortly. The merchant still gets its delivery.
      request.log.error({ err, deliveryId: created.id }, 'workflow start failed; the reconciler will retry');
    }
    return created;
  }

  /** The workflow must exist before it can take an update: start it when the reconciler has not yet. */
  async function ensureWorkflow(delivery: DeliveryRow) {
    if (delivery.workflow_started_at) return;
    const [missing] = await unstartedDeliveries(pool, 0, 1, delivery.id);
    if (missing) await startDeliveryWorkflow(temporal, pool, config, missing);
  }

  // --- Merchant surface -------------------------------------------------------------------------

  app.post(
    '/v1/deliveries',
    {
      config: { idempotent: true },
      preValidation: async (request) => rejectQuoteBypass(request),
      schema: {
        tags: ['deliveries'],
        operationId: 'createDelivery',
        summary: 'Create a delivery from a quote',
        description:
          'The fee is locked by the quote: origin, destination and parcel must equal the quoted ones. Each quote creates one delivery. ' +
          '422 codes: quote_id_required, quote_not_found, quote_expired, quote_already_used, quote_company_mismatch, quote_payload_mismatch, courier_fee_aoa_not_accepted, validation_failed.',
        headers: IdempotencyHeaders,
        body: CreateDeliveryBody,
        response: { 201: Delivery, ...problems(401, 409, 413, 422, 429) },
      },
    },
    async (request, reply) => {
      const { row, events } = await create(request, request.body, 'api');
      return reply.code(201).send(toDelivery(row, events, config.baseUrl));
    },
  );

  app.get(
    '/v1/deliveries',
    {
      schema: {
        tags: ['deliveries'],
        operationId: 'listDeliveries',
        summary: "List the tenant's deliveries",
        querystring: ListQuery,
        response: { 200: z.object({ data: z.array(DeliverySummary), pagination: Pagination }), ...problems(401, 422, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const from = q.inserted_at_gte ? new Date(q.inserted_at_gte) : undefined;
      const to = q.inserted_at_lte ? new Date(q.inserted_at_lte) : undefined;
      const { rows, hasMore } = await listDeliveries(pool, tenantOf(request), {
        statuses: q.status,
        insertedFrom: from,
        insertedTo: to,
        search: q.search,
        ascending: q.sort === 'inserted_at_asc',
        limit: q.limit,
        offset: q.offset,
      });
      return { data: rows.map(toSummary), pagination: { limit: q.limit, offset: q.offset, has_more: hasMore } };
    },
  );

  app.get(
    '/v1/deliveries/:id',
    { schema: { tags: ['deliveries'], operationId: 'getDelivery', summary: 'A delivery with its event history', params: DeliveryId, response: { 200: Delivery, ...problems(401, 404, 429) } } },
    async (request) => {
      const delivery = await load(tenantOf(request), request.params.id);
      return toDelivery(delivery, await deliveryEvents(pool, delivery.id), config.baseUrl);
    },
  );

  app.get(
    '/v1/deliveries/:delivery_id/events',
    {
      schema: {
        tags: ['deliveries'],
        operationId: 'listDeliveryEvents',
        summary: "A delivery's events, oldest first",
        params: DeliveryIdParam,
        response: { 200: z.object({ data: z.array(DeliveryEvent) }), ...problems(401, 404, 429) },
      },
    },
    async (request) => {
      const delivery = await load(tenantOf(request), request.params.delivery_id);
      return { data: (await deliveryEvents(pool, delivery.id)).map(toEvent) };
    },
  );

  app.delete(
    '/v1/deliveries/:id',
    {
      config: { idempotent: true },
      schema: {
        tags: ['deliveries'],
        operationId: 'cancelDelivery',
        summary: 'Cancel a delivery',
        description:
          'Allowed from awaiting_payment, pending and assigned. 409 delivery_not_cancellable from any other state; ' +
          '422 cancellation_rejected when the state machine rejects it (the state changed meanwhile, or the courier refused).',
        headers: IdempotencyHeaders,
        params: DeliveryId,
        response: { 200: z.object({ status: z.literal('cancelled') }), ...problems(401, 404, 409, 422, 429) },
      },
    },
    async (request) => {
      const delivery = await load(tenantOf(request), request.params.id);
      if (!CANCELLABLE_STATUSES.includes(delivery.status)) {
        throw new ApiError(409, 'delivery_not_cancellable', `A delivery in status ${delivery.status} cannot be cancelled (only awaiting_payment, pending or assigned).`);
      }
      await ensureWorkflow(delivery);
      try {
        await temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).executeUpdate(cancelUpdate, { args: [{ reason: 'merchant_request', source: 'api' }] });
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
          const cause = err.cause instanceof Error ? err.cause.message : 'the delivery moved on';
          throw new ApiError(422, 'cancellation_rejected', `The cancellation was rejected: ${cause}`);
        }
        throw err;
      }
      return { status: 'cancelled' as const };
    },
  );

  app.post(
    '/v1/deliveries/:id/payment_confirmation',
    {
      config: { idempotent: true },
      schema: {
        tags: ['deliveries'],
        operationId: 'confirmDeliveryPayment',
        summary: 'Confirm payment of a bank_transfer delivery',
        description: 'Moves awaiting_payment to pending (then the courier is booked). 409 delivery_not_awaiting_payment in any other state.',
        headers: IdempotencyHeaders,
        params: DeliveryId,
        response: { 200: Delivery, ...problems(401, 404, 409, 422, 429) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const delivery = await load(tenantId, request.params.id);
      if (delivery.status !== 'awaiting_payment') {
        throw new ApiError(409, 'delivery_not_awaiting_payment', `The delivery is ${delivery.status}, not awaiting payment.`);
      }
      await ensureWorkflow(delivery);
      try {
        await temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).executeUpdate(confirmPaymentUpdate, { args: [{ source: 'api' }] });
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
          throw new ApiError(422, 'payment_confirmation_rejected', 'The payment confirmation was rejected: the delivery is no longer awaiting payment.');
        }
        throw err;
      }
      const updated = await load(tenantId, delivery.id);
      return toDelivery(updated, await deliveryEvents(pool, delivery.id), config.baseUrl);
    },
  );

  // --- Widget surface (publishable key + allowed Origin) -----------------------------------------

  app.post(
    '/v1/widget/deliveries',
    {
      config: { idempotent: true },
      preValidation: async (request) => rejectQuoteBypass(request),
      schema: {
        tags: ['widget'],
        operationId: 'createWidgetDelivery',
        summary: 'Create a delivery from a quote (browser)',
        description: 'Same as POST /v1/deliveries; the delivery metadata is tagged with source = widget.',
        security: [{ publishableKey: [] }],
        headers: IdempotencyHeaders,
        body: CreateDeliveryBody,
        response: { 201: Delivery, ...problems(401, 409, 413, 422, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const tagged = { ...body, options: { ...body.options, metadata: { ...body.options?.metadata, source: 'widget' } } };
      const { row, events } = await create(request, tagged, 'widget');
      return reply.code(201).send(toDelivery(row, events, config.baseUrl));
    },
  );

  app.get(
    '/v1/widget/deliveries/:id',
    {
      schema: {
        tags: ['widget'],
        operationId: 'getWidgetDelivery',
        summary: 'A delivery with its event history, trimmed for the browser',
        security: [{ publishableKey: [] }],
        params: DeliveryId,
        response: { 200: WidgetDelivery, ...problems(401, 404, 429) },
      },
    },
    async (request) => {
      const delivery = await load(tenantOf(request), request.params.id);
      return toWidgetDelivery(delivery, await deliveryEvents(pool, delivery.id), config.baseUrl);
    },
  );
};
export default routes;
