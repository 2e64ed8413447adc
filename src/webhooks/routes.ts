// Merchant webhook endpoints (design.md "Outgoing webhooks"): registration, the attempt log, secret rotation
// and replay. Secret key only; every id is scoped to the tenant and the key's mode (another tenant's id, the other
// mode's, or a malformed one: 404). An endpoint registered with a test key receives test deliveries' messages only.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AppDeps } from '../platform/deps.js';
import { inTransaction, type Pool } from '../platform/db.js';
import { parseJsonBodies } from '../http/json-body.js';
import { ApiError, notFound, validationFailed } from '../http/problem.js';
import { scopeOf } from '../http/plugins/auth.js';
import type { Scope } from '../platform/scope.js';
import { IdParam, problems } from '../http/schemas.js';
import {
  createEndpointWithinLimit,
  deleteEndpoint,
  findEndpoint,
  findMessage,
  listAttempts,
  listEndpoints,
  lockReplayState,
  messagesInRange,
  recordReplay,
  rotateSecret,
  updateEndpoint,
  type EndpointRow,
} from './repository.js';
import {
  AttemptList,
  AttemptListQuery,
  CreateEndpointBody,
  DeletedEndpoint,
  EndpointList,
  ReplayBody,
  ReplayResponse,
  UpdateEndpointBody,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './schemas.js';
import { toAttempt, toEndpoint, toEndpointWithSecret } from './views.js';
import { checkWebhookUrl } from './url.js';
import type { WebhookReplayInput } from '../../shared/webhooks/definitions.js';
import type { webhookReplayWorkflow } from '../../workflows/webhooks/workflows.js';
import { idempotent, listRoute, objectAction } from '../http/route-helpers.js';

/** Endpoints per tenant. */
export const MAX_ENDPOINTS = 20;
/** Messages one replay request may resend; a wider range must be split. */
export const MAX_REPLAY = 1000;
/** Messages per replay workflow (bounded history). */
const REPLAY_BATCH = 100;
/** Replays an endpoint may start per REPLAY_WINDOW_MS (one at a time besides). */
const MAX_REPLAYS_PER_HOUR = 10;
const REPLAY_WINDOW_MS = 3600 * 1000;

/** Whether any of these replay workflows still runs (a workflow Temporal no longer knows has ended). */
async function anyRunning(temporal: Client, workflowIds: string[]): Promise<boolean> {
  for (const id of workflowIds) {
    try {
      if ((await temporal.workflow.getHandle(id).describe()).status.name === 'RUNNING') return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return false;
}

const TAG = ['webhooks'];

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

/** What the routes of this module share: load, onEndpoint, checkUrl. */
function shared(app: App, { pool, config }: AppDeps) {
  // rotate_secret and replay may come without a body even when the client says application/json.
  parseJsonBodies(app, { allowEmpty: true });

  const load = async (scope: Scope, id: string): Promise<EndpointRow> => {
    const endpoint = await findEndpoint(pool, scope, id);
    if (!endpoint) throw notFound('Webhook endpoint');
    return endpoint;
  };

  // The routes on one endpoint: its id in the path.
  const onEndpoint = { tags: TAG, params: IdParam };

  const checkUrl = async (url: string) => {
    const problem = await checkWebhookUrl(url, config.allowLoopbackWebhooks);
    if (problem) throw validationFailed([{ pointer: '/url', code: problem.code, detail: problem.detail }]);
  };
  return { load, onEndpoint, checkUrl };
}
type Shared = ReturnType<typeof shared>;

function registerCreateEndpoint(app: App, { pool }: AppDeps, { checkUrl }: Shared) {
  app.post(
    '/v1/webhook_endpoints',
    idempotent({
      tags: TAG,
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description:
        'Notifications of delivery events are POSTed to `url`, signed with the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature). ' +
        'The signing `secret` is returned only in this response. `events` limits which event types are sent (default: all). ' +
        'An Idempotency-Key replay answers without `secret` (header `idempotent-replay-withheld: secret`): secrets are never cached; rotate the secret to get a new one. ' +
        `At most ${MAX_ENDPOINTS} endpoints per tenant and mode (422 webhook_endpoint_limit_reached). ` +
        'Registered with a test key, the endpoint is a test endpoint (livemode false): it receives the notifications of test deliveries only.',
      body: CreateEndpointBody,
      response: { 201: WebhookEndpointWithSecret, ...problems(401, 409, 413, 422, 429) },
    }),
    async (request, reply) => {
      const scope = scopeOf(request);
      const body = request.body;
      await checkUrl(body.url);
      // The limit is checked in the insert's transaction: parallel creations never pass it together.
      const endpoint = await createEndpointWithinLimit(
        pool,
        scope,
        { url: body.url, description: body.description, events: body.events },
        MAX_ENDPOINTS,
      );
      if (!endpoint) {
        throw new ApiError(
          422,
          'webhook_endpoint_limit_reached',
          `A tenant can register at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
        );
      }
      return reply.code(201).send(toEndpointWithSecret(endpoint));
    },
  );
}

function registerListEndpoints(app: App, { pool }: AppDeps, _shared: Shared) {
  listRoute(
    app,
    '/v1/webhook_endpoints',
    toEndpoint,
    (request, limit, offset) => listEndpoints(pool, scopeOf(request), limit, offset),
    {
      tags: TAG,
      operationId: 'listWebhookEndpoints',
      summary: "List the tenant's webhook endpoints, newest first",
      response: { 200: EndpointList, ...problems(401, 422, 429) },
    },
  );
}

function registerGetEndpoint(app: App, _deps: AppDeps, { load, onEndpoint }: Shared) {
  app.get(
    '/v1/webhook_endpoints/:id',
    {
      schema: {
        ...onEndpoint,
        operationId: 'getWebhookEndpoint',
        summary: 'A webhook endpoint (without its secret)',
        response: { 200: WebhookEndpoint, ...problems(401, 404, 429) },
      },
    },
    async (request) => toEndpoint(await load(scopeOf(request), request.params.id)),
  );
}

function registerUpdateEndpoint(app: App, { pool }: AppDeps, { load, onEndpoint, checkUrl }: Shared) {
  app.patch(
    '/v1/webhook_endpoints/:id',
    idempotent({
      ...onEndpoint,
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint',
      description:
        'Change `url`, `events` or `description`; `status: "enabled"` re-enables an endpoint that was disabled (e.g. after a 410 Gone answer).',
      body: UpdateEndpointBody,
      response: { 200: WebhookEndpoint, ...problems(401, 404, 409, 413, 422, 429) },
    }),
    async (request) => {
      const scope = scopeOf(request);
      await load(scope, request.params.id);
      if (request.body.url !== undefined) await checkUrl(request.body.url);
      const updated = await updateEndpoint(pool, scope, request.params.id, request.body);
      if (!updated) throw notFound('Webhook endpoint');
      return toEndpoint(updated);
    },
  );
}

function registerDeleteEndpoint(app: App, { pool }: AppDeps, { onEndpoint }: Shared) {
  app.delete(
    '/v1/webhook_endpoints/:id',
    idempotent({
      ...onEndpoint,
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'Nothing more is sent to it, retries included. Its attempt log is no longer readable.',
      response: { 200: DeletedEndpoint, ...problems(401, 404, 409, 422, 429) },
    }),
    async (request) => {
      if (!(await deleteEndpoint(pool, scopeOf(request), request.params.id))) throw notFound('Webhook endpoint');
      return { id: request.params.id, deleted: true as const };
    },
  );
}

function registerRotateSecret(app: App, { pool }: AppDeps, _shared: Shared) {
  objectAction(
    app,
    '/v1/webhook_endpoints/:id/rotate_secret',
    'Webhook endpoint',
    toEndpointWithSecret,
    (scope, id) => rotateSecret(pool, scope, id),
    {
      tags: TAG,
      operationId: 'rotateWebhookEndpointSecret',
      summary: "Rotate an endpoint's signing secret",
      description:
        'Returns the new `secret` (shown only here). For 24 hours every notification carries two signatures in webhook-signature ' +
        '(space-separated `v1,<sig>`): one made with the new secret and one with the previous one, so receivers can switch without losing messages. ' +
        'An Idempotency-Key replay answers without `secret` (header `idempotent-replay-withheld: secret`): secrets are never cached.',
      response: { 200: WebhookEndpointWithSecret, ...problems(401, 404, 409, 422, 429) },
    },
  );
}

function registerListAttempts(app: App, { pool }: AppDeps, { load, onEndpoint }: Shared) {
  app.get(
    '/v1/webhook_endpoints/:id/attempts',
    {
      schema: {
        ...onEndpoint,
        operationId: 'listWebhookEndpointAttempts',
        summary: "An endpoint's delivery attempts, newest first",
        description:
          'One row per HTTP attempt (succeeded or failed, with status code, latency and error), plus an `exhausted` row when a message ran out of retries.',
        querystring: AttemptListQuery,
        response: { 200: AttemptList, ...problems(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const endpoint = await load(scopeOf(request), request.params.id);
      const { limit, offset, message_id: messageId, status } = request.query;
      const { rows, hasMore } = await listAttempts(pool, endpoint.id, { limit, offset, messageId, status });
      return { data: rows.map(toAttempt), pagination: { limit, offset, has_more: hasMore } };
    },
  );
}

/** The messages a replay resends: the one it names, or those of its range the endpoint takes (at most MAX_REPLAY). */
async function messagesToReplay(
  pool: Pool,
  scope: Scope,
  endpoint: EndpointRow,
  body: z.infer<typeof ReplayBody>,
): Promise<string[]> {
  if (body.message_id !== undefined) {
    const message = await findMessage(pool, scope, body.message_id);
    if (!message) {
      throw new ApiError(422, 'message_not_found', `No message ${body.message_id} for this tenant.`, [
        {
          pointer: '/message_id',
          code: 'message_not_found',
          detail: 'message_id names no message of this tenant.',
        },
      ]);
    }
    return [message.id];
  }
  const until = body.until ? new Date(body.until) : new Date();
  const messageIds = await messagesInRange(pool, scope, new Date(body.since!), until, endpoint.events, MAX_REPLAY + 1);
  if (messageIds.length > MAX_REPLAY) {
    throw new ApiError(
      422,
      'replay_range_too_large',
      `More than ${MAX_REPLAY} messages in this range; replay a narrower one.`,
    );
  }
  return messageIds;
}

/** One replay at a time per endpoint, and at most MAX_REPLAYS_PER_HOUR an hour. */
async function checkReplayBounds(temporal: Client, state: { startedAt: Date[]; workflowIds: string[] }): Promise<void> {
  const now = Date.now();
  const recent = state.startedAt
    .filter((at) => at.getTime() > now - REPLAY_WINDOW_MS)
    .sort((a, b) => a.getTime() - b.getTime());
  if (recent.length >= MAX_REPLAYS_PER_HOUR) {
    const retryAfter = Math.max(
      1,
      Math.ceil((recent[recent.length - MAX_REPLAYS_PER_HOUR].getTime() + REPLAY_WINDOW_MS - now) / 1000),
    );
    throw new ApiError(
      429,
      'rate_limited',
      `At most ${MAX_REPLAYS_PER_HOUR} replays per endpoint an hour; retry after ${retryAfter} s.`,
      undefined,
      {
        'retry-after': String(retryAfter),
      },
    );
  }
  if (await anyRunning(temporal, state.workflowIds)) {
    throw new ApiError(
      409,
      'replay_in_progress',
      'A replay to this endpoint is still running; retry when it has finished.',
    );
  }
}

function registerReplay(app: App, { pool, temporal, config }: AppDeps, { load, onEndpoint }: Shared) {
  app.post(
    '/v1/webhook_endpoints/:id/replay',
    idempotent({
      ...onEndpoint,
      operationId: 'replayWebhookEndpointMessages',
      summary: 'Resend messages to this endpoint',
      description:
        'One message (`message_id`, the webhook-id), or every message created in [`since`, `until`] whose type the endpoint takes. ' +
        'Resent with the same webhook-id and body (receivers dedupe on webhook-id), on the retry schedule; attempts are logged with trigger `replay`. ' +
        `202 with how many. 422 message_not_found; 422 replay_range_too_large above ${MAX_REPLAY} messages; 409 webhook_endpoint_disabled. ` +
        `Bounded per endpoint: one replay at a time (409 replay_in_progress while the previous one's messages are still being sent, retries included) ` +
        `and at most ${MAX_REPLAYS_PER_HOUR} an hour (429 rate_limited with Retry-After).`,
      body: ReplayBody,
      response: { 202: ReplayResponse, ...problems(401, 404, 409, 413, 422, 429) },
    }),
    async (request, reply) => {
      const scope = scopeOf(request);
      const endpoint = await load(scope, request.params.id);
      if (endpoint.status !== 'enabled') {
        throw new ApiError(
          409,
          'webhook_endpoint_disabled',
          'The endpoint is disabled; enable it (PATCH status "enabled") before replaying.',
        );
      }
      const body = request.body;
      // The endpoint's row stays locked until the replay is recorded: two requests never both pass the bounds.
      const replayed = await inTransaction(pool, async (client) => {
        // What to resend first: a request naming no message is 422 whatever the endpoint's replays are doing.
        const messageIds = await messagesToReplay(pool, scope, endpoint, body);
        const state = await lockReplayState(client, endpoint.id);
        await checkReplayBounds(temporal, state);
        const workflowIds: string[] = [];
        for (let i = 0; i < messageIds.length; i += REPLAY_BATCH) {
          const input: WebhookReplayInput = {
            tenantId: scope.tenantId,
            endpointId: endpoint.id,
            messageIds: messageIds.slice(i, i + REPLAY_BATCH),
            schedule: config.webhookScheduleMs,
          };
          const workflowId = `webhook-replay-${randomUUID()}`;
          await temporal.workflow.start<typeof webhookReplayWorkflow>('webhookReplayWorkflow', {
            taskQueue: config.taskQueue,
            workflowId,
            args: [input],
          });
          workflowIds.push(workflowId);
        }
        await recordReplay(client, endpoint.id, workflowIds, REPLAY_WINDOW_MS);
        return messageIds.length;
      });
      return reply.code(202).send({ replayed });
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const s = shared(app, deps);
  registerCreateEndpoint(app, deps, s);
  registerListEndpoints(app, deps, s);
  registerGetEndpoint(app, deps, s);
  registerUpdateEndpoint(app, deps, s);
  registerDeleteEndpoint(app, deps, s);
  registerRotateSecret(app, deps, s);
  registerListAttempts(app, deps, s);
  registerReplay(app, deps, s);
};
export default routes;
