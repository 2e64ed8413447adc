// Merchant webhooks through an outbox (docs/webhooks.md "How notifications leave"). The worker records a delivery
// event and its webhook message in one transaction (recordEventWithMessage), then sends the message's first attempts
// from its own process at once, in the background: a healthy endpoint costs no Temporal workflow at all. An endpoint
// that fails gets the rest of the Standard Webhooks schedule from a retry workflow (webhookFanoutWorkflow, one per
// event, started with the client: nothing reports back to the delivery workflow). A message whose worker died before
// it was dispatched is found by the sweeper (sweepUndispatched) and handed to the same workflow, which skips the
// endpoints that took it already: at least once per (event, endpoint), always under the same webhook-id.
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Db, Pool, PoolClient } from '../platform/db.js';
import type { DeliveryEventRow, RecordEventInput } from '../deliveries/repository.js';
import type { EventType } from '../../shared/deliveries/vocabulary.js';
import { insertMessageOnce, markMessageDispatched, undispatchedMessages, type AttemptTarget } from './repository.js';
import {
  eventWithContext,
  insertEventWithContext,
  type EndpointTarget,
  type RecordedDelivery,
} from './outbox-repository.js';
import { attemptTargetsOf, webhookMessageOf, type PreparedMessage } from './sender.js';
import { enqueueNotification, type SmsDefaults } from '../notifications/enqueue.js';
import type { Config } from '../platform/config.js';
import { startWorkflowOnce } from '../platform/temporal.js';
import {
  DEFAULT_WEBHOOK_SCHEDULE_MS,
  webhookFanoutWorkflowId,
  type AttemptInput,
  type AttemptResult,
  type WebhookFanoutInput,
} from '../../shared/webhooks/definitions.js';
import type { webhookFanoutWorkflow } from '../../workflows/webhooks/workflows.js';

/** First attempts in flight at once in one worker; past it a message waits for the sweeper. */
const MAX_IN_FLIGHT = 256;
/** A message not dispatched this long after it was stored is the sweeper's (its worker died or was saturated). */
export const UNDISPATCHED_AFTER_MS = 60_000;

export interface OutboxMessage extends PreparedMessage {
  tenantId: string;
  deliveryId: string;
  eventId: string;
  /** What the first attempts send, by endpoint id, read with the message (absent: each attempt reads its target). */
  targets?: Record<string, AttemptTarget>;
}

/** Whether the recipient of a delivery may hear of it by SMS (a phone, not a return): else no need to look further. */
const mayHaveSms = (d: RecordedDelivery) =>
  d.return_of === null && Boolean((d.destination as { contact?: { phone?: unknown } } | null)?.contact?.phone);

/**
 * Records a delivery event (and its status change) and, with `webhooks`, its message for the tenant's endpoints of the
 * delivery's mode (test or live), and with `sms` the recipient's SMS when the event is one they hear of
 * (src/notifications/enqueue.ts). Two statements, each committing on its own (no BEGIN and COMMIT round trips): the
 * event with its status change, reading back what the message needs; then the message. A crash between them leaves
 * the event without its message for a moment only: the workflow records the event again (same id) until this returns,
 * and a record that finds its event already in stores what is missing (the message, the SMS), each once by its key.
 * `message` is the message this call stored (null when it was stored before: its sender or the sweeper has it).
 */
export async function recordEventWithMessage(
  pool: Pool,
  input: RecordEventInput,
  webhooks: boolean,
  sms?: SmsDefaults,
): Promise<{ inserted: boolean; message: OutboxMessage | null }> {
  const wantsMessage = webhooks && !input.payload?.ignored;
  const recorded = await insertEventWithContext(pool, input, wantsMessage);
  // Recorded before (a retry): what its message needs, read again.
  const context = recorded ?? (await recordedEventContext(pool, input));
  if (!context) return { inserted: false, message: null };
  if (sms && mayHaveSms(context.delivery)) await enqueueNotification(pool, input, sms);
  const message = wantsMessage ? await storeMessage(pool, input, context) : null;
  return { inserted: recorded !== null, message };
}

/**
 * recordEventWithMessage inside the caller's transaction (cash on delivery books its ledger in it): the event, the
 * status change and what the message needs are one statement, the message another, committing with the caller's.
 */
export async function recordEventWithMessageOn(
  client: PoolClient,
  input: RecordEventInput,
  webhooks: boolean,
  sms?: SmsDefaults,
): Promise<{ inserted: boolean; message: OutboxMessage | null }> {
  const wantsMessage = webhooks && !input.payload?.ignored;
  const recorded = await insertEventWithContext(client, input, wantsMessage);
  if (!recorded) return { inserted: false, message: null };
  if (sms && mayHaveSms(recorded.delivery)) await enqueueNotification(client, input, sms);
  const message = wantsMessage ? await storeMessage(client, input, recorded) : null;
  return { inserted: true, message };
}

/** A recorded event's delivery and endpoints, read again (a retried record finds its event already in). */
async function recordedEventContext(
  pool: Pool,
  input: RecordEventInput,
): Promise<{ delivery: RecordedDelivery; endpoints: EndpointTarget[] | null } | null> {
  const found = await eventWithContext(pool, input);
  return found && { delivery: found.delivery, endpoints: found.endpoints };
}

/** Stores the event's message for the endpoints that take it; the message when this call stored it, else null. */
async function storeMessage(
  db: Db,
  input: RecordEventInput,
  context: { delivery: RecordedDelivery; endpoints: EndpointTarget[] | null },
): Promise<OutboxMessage | null> {
  const event: DeliveryEventRow = {
    id: input.eventId,
    event_type: input.eventType as EventType,
    occurred_at: new Date(input.occurredAt),
    source: input.source,
    payload: input.payload,
  };
  const message = webhookMessageOf({
    tenantId: input.tenantId,
    deliveryId: input.deliveryId,
    delivery: context.delivery,
    event,
    endpoints: context.endpoints ?? [],
  });
  if (!message || !(await insertMessageOnce(db, message.row))) return null;
  return {
    ...message.prepared,
    tenantId: input.tenantId,
    deliveryId: input.deliveryId,
    eventId: input.eventId,
    targets: attemptTargetsOf(message.row, message.targets),
  };
}

/**
 * Hands a message stored outside the worker (an event the API recorded) to its retry workflow, as the sweeper does;
 * when that fails the sweeper takes it later.
 */
export async function handOverMessage(
  temporal: Client,
  pool: Pool,
  config: Pick<Config, 'taskQueue' | 'webhookScheduleMs'>,
  message: OutboxMessage,
): Promise<void> {
  if (message.endpointIds.length === 0) return markMessageDispatched(pool, message.messageId);
  await startWebhookRetries(temporal, config, {
    tenantId: message.tenantId,
    deliveryId: message.deliveryId,
    eventId: message.eventId,
    schedule: config.webhookScheduleMs,
    endpointIds: message.endpointIds,
  });
  await markMessageDispatched(pool, message.messageId);
}

interface Logger {
  warn(message: string, attrs?: Record<string, unknown>): void;
}

/** Starts the retry workflow of an event's message (idempotent: one per event). */
export async function startWebhookRetries(
  temporal: Client,
  config: Pick<Config, 'taskQueue'>,
  input: WebhookFanoutInput,
): Promise<void> {
  // One run per event, ever: a closed one (an earlier fan-out of the same event) is not run again, and a start that
  // the sweeper or another worker made first counts.
  await startWorkflowOnce<typeof webhookFanoutWorkflow>(temporal, 'webhookFanoutWorkflow', {
    taskQueue: config.taskQueue,
    workflowId: webhookFanoutWorkflowId(input.eventId),
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
}

export function createWebhookDispatcher(deps: {
  pool: Pool;
  config: Pick<Config, 'taskQueue'>;
  /** Starts retry workflows; without it (a worker-less test) a failed first attempt waits for the sweeper. */
  temporal?: Client;
  /** One attempt (src/webhooks/sender.ts attemptWebhook), with the target read with the message when there is one. */
  attempt: (
    input: AttemptInput,
    first?: { target: AttemptTarget; dispatchesMessage: boolean },
  ) => Promise<AttemptResult>;
  log: Logger;
}) {
  const { pool, attempt, log } = deps;
  let inFlight = 0;

  async function send(message: OutboxMessage, schedule: readonly number[]): Promise<void> {
    const failed: string[] = [];
    const retryAfterMs: Record<string, number | null> = {};
    // A message for one endpoint is marked dispatched by its successful attempt itself (one statement less).
    const alone = message.endpointIds.length === 1;
    let dispatched = false;
    await Promise.all(
      message.endpointIds.map(async (endpointId) => {
        const target = message.targets?.[endpointId];
        const input: AttemptInput = {
          endpointId,
          messageId: message.messageId,
          attempt: 1,
          lastAttempt: schedule.length <= 1,
          trigger: 'event',
        };
        const result = await attempt(input, target && { target, dispatchesMessage: alone }).then(
          (r) => {
            if (target && alone && r.outcome === 'succeeded') dispatched = true;
            return r;
          },
          (err: Error): AttemptResult => {
            log.warn('webhook first attempt failed to run; the retry workflow takes it', {
              messageId: message.messageId,
              error: err.message,
            });
            return { outcome: 'retry', statusCode: null, retryAfterMs: null };
          },
        );
        if (result.outcome === 'retry') {
          failed.push(endpointId);
          retryAfterMs[endpointId] = result.retryAfterMs;
        }
      }),
    );
    if (failed.length > 0) {
      if (!deps.temporal) return; // the sweeper starts the retries
      await startWebhookRetries(deps.temporal, deps.config, {
        tenantId: message.tenantId,
        deliveryId: message.deliveryId,
        eventId: message.eventId,
        schedule: [...schedule],
        endpointIds: failed,
        startAt: 1,
        retryAfterMs,
      });
    }
    if (!dispatched) await markMessageDispatched(pool, message.messageId);
  }

  return {
    /** Sends the message's first attempts in the background; never throws and never waits. */
    dispatch(message: OutboxMessage, schedule: readonly number[] = DEFAULT_WEBHOOK_SCHEDULE_MS): void {
      if (inFlight >= MAX_IN_FLIGHT) return; // the sweeper sends it
      inFlight++;
      send(message, schedule.length ? schedule : DEFAULT_WEBHOOK_SCHEDULE_MS)
        .catch((err: Error) =>
          log.warn('webhook dispatch failed; the sweeper sends it', {
            messageId: message.messageId,
            error: err.message,
          }),
        )
        .finally(() => inFlight--);
    },
  };
}
export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;

/**
 * Hands every message left undispatched for UNDISPATCHED_AFTER_MS to its retry workflow (all its endpoints, from the
 * first attempt; endpoints that took it already are skipped there). Returns how many it handed over.
 */
export async function sweepUndispatched(
  temporal: Client,
  pool: Pool,
  config: Pick<Config, 'taskQueue' | 'webhookScheduleMs'>,
  limit = 100,
): Promise<number> {
  const stale = await undispatchedMessages(pool, UNDISPATCHED_AFTER_MS, limit);
  for (const m of stale) {
    await startWebhookRetries(temporal, config, {
      tenantId: m.tenant_id,
      deliveryId: m.delivery_id,
      eventId: m.event_id,
      schedule: config.webhookScheduleMs,
      ...(m.endpoint_ids ? { endpointIds: m.endpoint_ids } : {}),
    });
    await markMessageDispatched(pool, m.id);
  }
  return stale.length;
}
