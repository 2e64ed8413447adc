// Deliveries: merchant surface (/v1/deliveries...) and widget surface (/v1/widget/deliveries...). Every read and
// write is confined to the key's scope: its tenant and its mode (a test key's deliveries are test deliveries).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { createDelivery, type CreateDeliveryInput } from './create.js';
import { deliveryEvents, storedClientSecretHash, type DeliveryRow } from './repository.js';
import { listDeliveries } from './list-repository.js';
import { clientSecretMatches } from './client-secret.js';
import {
  CreateDeliveryBody,
  Delivery,
  DeliveryEvent,
  DeliverySummary,
  ListQuery,
  WidgetCreateDeliveryBody,
  WidgetCreatedDelivery,
  WidgetDelivery,
  WidgetDeliveryQuery,
} from './schemas.js';
import { ensureDeliveryWorkflow, startCreatedDeliveryWorkflow } from './start.js';
import { toDelivery, toEvent, toListItem, toWidgetDelivery } from './views.js';
import { gatherMetadataFilters, listFilterOf } from './list-filters.js';
import { ApiError } from '../http/problem.js';
import { bothSurfaces } from '../http/surfaces.js';
import { EXAMPLE_DELIVERY, EXAMPLE_DELIVERY_SUMMARY } from '../http/examples.js';
import { pageOf } from '../http/schema-builders.js';
import { applyWidgetPaymentPolicy, widgetPaymentPolicy } from '../keys/widget-policy.js';
import { scopeOf } from '../http/plugins/auth.js';
import type { Scope } from '../platform/scope.js';
import { IdempotencyHeaders, problems } from '../http/schemas.js';
import { DeliveryId } from './schemas.js';
import { WORKFLOW_START_DEADLINE_MS } from '../platform/temporal.js';
import { confirmPaymentUpdate, deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import { cancelDelivery } from './cancel.js';
import { CANCELLABLE_STATUSES } from '../../shared/deliveries/state-table.js';
import { loadDelivery, loadDeliveryWithEvents } from './load.js';

const DeliveryIdParam = z.object({ delivery_id: z.uuid() });

/** Client secrets of widget creations, added to the answer after the idempotency record stored it (see onSend below). */
const clientSecrets = new WeakMap<FastifyRequest, string>();

/** Spec codes that are checked before the schema: a client-chosen fee, and a missing quote_id. */
function rejectQuoteBypass(request: FastifyRequest) {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  if ('courier_fee_aoa' in body) {
    throw new ApiError(
      422,
      'courier_fee_aoa_not_accepted',
      'The courier fee is decided by the quote; do not send courier_fee_aoa.',
      [
        {
          pointer: '/courier_fee_aoa',
          code: 'courier_fee_aoa_not_accepted',
          detail: 'courier_fee_aoa must not be sent.',
        },
      ],
    );
  }
  const quoteId = (body as { quote_id?: unknown }).quote_id;
  if (quoteId === undefined || quoteId === null || quoteId === '') {
    throw new ApiError(422, 'quote_id_required', 'quote_id is required: create a quote with POST /v1/quotes first.', [
      { pointer: '/quote_id', code: 'quote_id_required', detail: 'quote_id is required.' },
    ]);
  }
}

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

/** What the routes of this module share: load, loadWithEvents, create, ensureWorkflow, createMerchant, createWidget, getMerchant, getWidget. */
function shared({ pool, temporal, config }: AppDeps) {
  const load = (scope: Scope, id: string) => loadDelivery(pool, scope, id);
  const loadWithEvents = (scope: Scope, id: string) => loadDeliveryWithEvents(pool, scope, id);

  async function create(
    request: FastifyRequest,
    reply: FastifyReply,
    body: CreateDeliveryInput,
    source: 'api' | 'widget',
  ) {
    const key = request.headers['idempotency-key'];
    const created = await createDelivery(
      pool,
      config,
      scopeOf(request),
      body,
      source,
      typeof key === 'string' && key ? `${source}:${key}` : null,
    );
    if (created.replayed) {
      // The delivery an earlier request under this key made (its idempotency record had expired): the same answer, as a
      // replay. A widget delivery's client secret is not kept, so it is left out, as the idempotency plugin does.
      reply.header('idempotent-replayed', 'true');
      if (source === 'widget') reply.header('idempotent-replay-withheld', 'client_secret');
      // A delivery whose workflow was started is not started again (its closed run may be gone from Temporal by now).
      if (created.row.workflow_started_at) return created;
    }
    try {
      await temporal.withDeadline(Date.now() + WORKFLOW_START_DEADLINE_MS, () =>
        startCreatedDeliveryWorkflow(temporal, pool, config, created, (err) =>
          request.log.warn(
            { err, deliveryId: created.id },
            'workflow started, but recording it failed; the reconciler will record it',
          ),
        ),
      );
    } catch (err) {
      // Committed but not started: the worker's reconciler starts it shortly. The merchant still gets its delivery.
      request.log.error({ err, deliveryId: created.id }, 'workflow start failed; the reconciler will retry');
    }
    return created;
  }

  /** The workflow must exist before it can take an update: start it when the reconciler has not yet. */
  const ensureWorkflow = (delivery: DeliveryRow) => ensureDeliveryWorkflow(temporal, pool, config, delivery);

  // The merchant/widget pairs (create, get one) take their URLs, naming and the widget's security from bothSurfaces
  // (src/http/surfaces.ts), like couriers and quotes. Each surface is registered on its own rather than in one loop:
  // the two differ in body, response, query, hooks and handler, and a loop would put a `surface.widget ? ... : ...`
  // on each of them and lose the type of `request.body`, which fastify infers from one schema per route.
  const [createMerchant, createWidget] = bothSurfaces(
    '/deliveries',
    { tags: ['deliveries'], operationId: 'createDelivery', summary: 'Create a delivery from a quote' },
    { operationId: 'createWidgetDelivery', summary: 'Create a delivery from a quote (browser)' },
  );
  const [getMerchant, getWidget] = bothSurfaces(
    '/deliveries/:id',
    { tags: ['deliveries'], operationId: 'getDelivery', summary: 'A delivery with its event history' },
    { operationId: 'getWidgetDelivery', summary: 'A delivery with its event history, trimmed for the browser' },
  );
  return { load, loadWithEvents, create, ensureWorkflow, createMerchant, createWidget, getMerchant, getWidget };
}
type Shared = ReturnType<typeof shared>;

function registerCreateMerchant(app: App, { config }: AppDeps, { create, createMerchant }: Shared) {
  app.post(
    createMerchant.url,
    {
      config: { idempotent: true },
      preValidation: async (request) => rejectQuoteBypass(request),
      schema: {
        ...createMerchant.schema,
        description:
          'The fee is locked by the quote: origin, destination and parcel must equal the quoted ones. Each quote creates one delivery. ' +
          '422 codes: quote_id_required, quote_not_found, quote_expired, quote_already_used, quote_company_mismatch, quote_payload_mismatch, courier_fee_aoa_not_accepted, validation_failed.',
        headers: IdempotencyHeaders,
        body: CreateDeliveryBody,
        response: { 201: Delivery, ...problems(401, 409, 413, 422, 429) },
      },
    },
    async (request, reply) => {
      const { row, events } = await create(request, reply, request.body, 'api');
      return reply.code(201).send(toDelivery(row, events, config.baseUrl));
    },
  );
}

function registerListDeliveries(app: App, { pool }: AppDeps, _shared: Shared) {
  app.get(
    '/v1/deliveries',
    {
      preValidation: gatherMetadataFilters,
      schema: {
        tags: ['deliveries'],
        operationId: 'listDeliveries',
        summary: "List the tenant's deliveries",
        querystring: ListQuery,
        response: {
          200: pageOf(DeliverySummary, EXAMPLE_DELIVERY_SUMMARY),
          ...problems(401, 422, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { rows, hasMore } = await listDeliveries(pool, scopeOf(request), listFilterOf(q));
      return { data: rows.map(toListItem), pagination: { limit: q.limit, offset: q.offset, has_more: hasMore } };
    },
  );
}

function registerGetMerchant(app: App, { config }: AppDeps, { loadWithEvents, getMerchant }: Shared) {
  app.get(
    getMerchant.url,
    {
      schema: {
        ...getMerchant.schema,
        params: DeliveryId,
        response: { 200: Delivery, ...problems(401, 404, 429) },
      },
    },
    async (request) => {
      const { delivery, events } = await loadWithEvents(scopeOf(request), request.params.id);
      return toDelivery(delivery, events, config.baseUrl);
    },
  );
}

function registerListEvents(app: App, { pool }: AppDeps, { load }: Shared) {
  app.get(
    '/v1/deliveries/:delivery_id/events',
    {
      schema: {
        tags: ['deliveries'],
        operationId: 'listDeliveryEvents',
        summary: "A delivery's events, oldest first",
        params: DeliveryIdParam,
        response: {
          200: z.object({ data: z.array(DeliveryEvent) }).meta({ examples: [{ data: EXAMPLE_DELIVERY.events }] }),
          ...problems(401, 404, 429),
        },
      },
    },
    async (request) => {
      const delivery = await load(scopeOf(request), request.params.delivery_id);
      return { data: (await deliveryEvents(pool, delivery.id)).map(toEvent) };
    },
  );
}

function registerCancel(app: App, deps: AppDeps, { load }: Shared) {
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
          '422 cancellation_rejected when the state machine rejects it (the state changed meanwhile, or the courier refused). ' +
          'A courier that does not answer within about 10 s does not hold the cancellation up: the delivery is cancelled and the ' +
          'courier is told in the background. 503 cancellation_pending (with Retry-After) when the service could not confirm the ' +
          'outcome within 15 s: it may still take effect; retrying is safe.',
        headers: IdempotencyHeaders,
        params: DeliveryId,
        response: {
          200: z.object({ status: z.literal('cancelled') }).meta({ examples: [{ status: 'cancelled' }] }),
          ...problems(401, 404, 409, 422, 429, 503),
        },
      },
    },
    async (request) => {
      const delivery = await load(scopeOf(request), request.params.id);
      if (!CANCELLABLE_STATUSES.includes(delivery.status)) {
        throw new ApiError(
          409,
          'delivery_not_cancellable',
          `A delivery in status ${delivery.status} cannot be cancelled (only awaiting_payment, pending or assigned).`,
        );
      }
      await cancelDelivery(deps, scopeOf(request), delivery, request.log);
      return { status: 'cancelled' as const };
    },
  );
}

function registerConfirmPayment(
  app: App,
  { temporal, config }: AppDeps,
  { load, loadWithEvents, ensureWorkflow }: Shared,
) {
  app.post(
    '/v1/deliveries/:id/payment_confirmation',
    {
      config: { idempotent: true },
      schema: {
        tags: ['deliveries'],
        operationId: 'confirmDeliveryPayment',
        summary: 'Confirm payment of a bank_transfer delivery',
        description:
          'Moves awaiting_payment to pending (then the courier is booked). 409 delivery_not_awaiting_payment in any other state.',
        headers: IdempotencyHeaders,
        params: DeliveryId,
        response: { 200: Delivery, ...problems(401, 404, 409, 422, 429) },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const delivery = await load(scope, request.params.id);
      if (delivery.status !== 'awaiting_payment') {
        throw new ApiError(
          409,
          'delivery_not_awaiting_payment',
          `The delivery is ${delivery.status}, not awaiting payment.`,
        );
      }
      await ensureWorkflow(delivery);
      try {
        await temporal.workflow
          .getHandle(deliveryWorkflowId(delivery.id))
          .executeUpdate(confirmPaymentUpdate, { args: [{ source: 'api' }] });
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
          throw new ApiError(
            422,
            'payment_confirmation_rejected',
            'The payment confirmation was rejected: the delivery is no longer awaiting payment.',
          );
        }
        throw err;
      }
      const updated = await loadWithEvents(scope, delivery.id);
      return toDelivery(updated.delivery, updated.events, config.baseUrl);
    },
  );
}

function registerCreateWidget(app: App, { pool, config }: AppDeps, { create, createWidget }: Shared) {
  app.post(
    createWidget.url,
    {
      config: { idempotent: true },
      preValidation: async (request) => rejectQuoteBypass(request),
      schema: {
        ...createWidget.schema,
        description:
          'Same as POST /v1/deliveries; the delivery metadata is tagged with source = widget. The payment methods the browser may choose ' +
          "are the publishable key's (default prepaid and bank_transfer; 422 payment_method_not_allowed otherwise); cod collects the amount " +
          "the merchant set for the key, or else the body's cash_collect_aoa, which must be above zero. The answer carries the delivery's " +
          'client_secret once (an Idempotency-Key replay answers without it).',
        headers: IdempotencyHeaders,
        body: WidgetCreateDeliveryBody,
        response: { 201: WidgetCreatedDelivery, ...problems(401, 409, 413, 422, 429) },
      },
      // Route hooks run after the idempotency plugin's own onSend has stored the answer: the client secret is added
      // to what this client receives, never to the stored record, so no secret sits in the idempotency table.
      onSend: async (request, reply, payload) => {
        const secret = clientSecrets.get(request);
        if (!secret || reply.statusCode !== 201 || typeof payload !== 'string') return payload;
        clientSecrets.delete(request);
        return JSON.stringify({ ...JSON.parse(payload), client_secret: secret });
      },
    },
    async (request, reply) => {
      const body = request.body;
      const policy = await widgetPaymentPolicy(pool, request.auth!.keyId);
      const cash = applyWidgetPaymentPolicy(policy, body.payment_method, body.cash_collect_aoa);
      const tagged = {
        ...body,
        cash_collect_aoa: cash,
        options: { ...body.options, metadata: { ...body.options?.metadata, source: 'widget' } },
      };
      const created = await create(request, reply, tagged, 'widget');
      if (created.client_secret) clientSecrets.set(request, created.client_secret);
      return reply.code(201).send(toDelivery(created.row, created.events, config.baseUrl));
    },
  );
}

function registerGetWidget(app: App, { pool, config }: AppDeps, { loadWithEvents, getWidget }: Shared) {
  app.get(
    getWidget.url,
    {
      schema: {
        ...getWidget.schema,
        description:
          'Without client_secret: no delivery_pin, no metadata; of each address only city and province (no address_line, coordinates or ' +
          "contact); of the parcel no description nor declared_value_aoa. With the client_secret of the widget's creation answer, " +
          "they are included; a client_secret that is not this delivery's is 404 not_found.",
        params: DeliveryId,
        querystring: WidgetDeliveryQuery,
        response: { 200: WidgetDelivery, ...problems(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const { delivery, events } = await loadWithEvents(scope, request.params.id);
      const presented = request.query.client_secret;
      if (
        presented !== undefined &&
        !clientSecretMatches(delivery.id, await storedClientSecretHash(pool, scope, delivery.id), presented)
      ) {
        throw new ApiError(404, 'not_found', 'No delivery with this id and client_secret.');
      }
      return toWidgetDelivery(delivery, events, config.baseUrl, presented !== undefined);
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const s = shared(deps);
  // Merchant surface (secret key).
  registerCreateMerchant(app, deps, s);
  registerListDeliveries(app, deps, s);
  registerGetMerchant(app, deps, s);
  registerListEvents(app, deps, s);
  registerCancel(app, deps, s);
  registerConfirmPayment(app, deps, s);
  // Widget surface (publishable key + allowed Origin).
  registerCreateWidget(app, deps, s);
  registerGetWidget(app, deps, s);
};
export default routes;
