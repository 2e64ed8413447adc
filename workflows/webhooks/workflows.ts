// Merchant webhooks' retries. One fan-out workflow per delivery event (`webhook-<event id>`), started by the worker's
// outbox with the client for the endpoints whose first attempt failed (src/webhooks/dispatcher.ts), or by the sweeper
// for a message its worker never sent; deliveries recorded before the outbox started it as an abandoned child. It runs
// one independent loop per endpoint in parallel, so a slow or dead endpoint never delays another. Each attempt is one activity invocation
// (no activity retries); the loop waits the schedule (with jitter) or the receiver's Retry-After between them.
import { proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks/activities.js';
import {
  DEFAULT_WEBHOOK_SCHEDULE_MS,
  WEBHOOK_JITTER,
  webhookMessageId,
  type AttemptResult,
  type AttemptTrigger,
  type WebhookFanoutInput,
  type WebhookReplayInput,
} from '../../shared/webhooks/definitions.js';
import { WEBHOOK_ATTEMPT_MS } from '../../shared/timeouts.js';

const { prepareWebhookMessage } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

const { attemptWebhook } = proxyActivities<WebhookActivities>({
  // The request (WEBHOOK_TIMEOUT_MS), plus the attempt log writes.
  startToCloseTimeout: WEBHOOK_ATTEMPT_MS,
  retry: { maximumAttempts: 1 },
});

const jittered = (ms: number) =>
  ms <= 0 ? 0 : Math.round(ms * (1 - WEBHOOK_JITTER + 2 * WEBHOOK_JITTER * Math.random()));

/** Sends one message to one endpoint on the schedule, until it succeeds, fails for good, or the schedule runs out. */
async function deliverToEndpoint(
  endpointId: string,
  messageId: string,
  schedule: readonly number[],
  trigger: AttemptTrigger,
  startAt = 0,
  retryAfterMs: number | null = null,
): Promise<AttemptResult['outcome']> {
  let wait = startAt === 0 ? (schedule[0] ?? 0) : (retryAfterMs ?? jittered(schedule[startAt] ?? 0));
  for (let i = startAt; i < schedule.length; i++) {
    if (wait > 0) await sleep(wait);
    const lastAttempt = i === schedule.length - 1;
    let result: AttemptResult;
    try {
      result = await attemptWebhook({ endpointId, messageId, attempt: i + 1, lastAttempt, trigger });
    } catch {
      // The activity itself failed (database, worker lost): counts as a failed attempt; the schedule goes on.
      result = { outcome: lastAttempt ? 'exhausted' : 'retry', statusCode: null, retryAfterMs: null };
    }
    if (result.outcome !== 'retry') return result.outcome;
    wait = result.retryAfterMs ?? jittered(schedule[i + 1] ?? 0);
  }
  return 'exhausted';
}

export async function webhookFanoutWorkflow(
  input: WebhookFanoutInput,
): Promise<{ messageId: string | null; outcomes: Record<string, string> }> {
  const schedule = input.schedule?.length ? input.schedule : DEFAULT_WEBHOOK_SCHEDULE_MS;
  // Started by the outbox (src/webhooks/dispatcher.ts) the message is stored already, its endpoints given.
  const message = input.endpointIds
    ? { messageId: webhookMessageId(input.eventId), endpointIds: input.endpointIds }
    : await prepareWebhookMessage({
        tenantId: input.tenantId,
        deliveryId: input.deliveryId,
        eventId: input.eventId,
        status: input.status,
      });
  if (!message) return { messageId: null, outcomes: {} };
  const outcomes: Record<string, string> = {};
  await Promise.all(
    message.endpointIds.map(async (endpointId) => {
      const after = input.retryAfterMs?.[endpointId] ?? null;
      outcomes[endpointId] = await deliverToEndpoint(
        endpointId,
        message.messageId,
        schedule,
        'event',
        input.startAt ?? 0,
        after,
      );
    }),
  );
  return { messageId: message.messageId, outcomes };
}

/** POST /v1/webhook_endpoints/{id}/replay: resends stored messages to one endpoint, a few at a time, each on the schedule. */
export async function webhookReplayWorkflow(input: WebhookReplayInput): Promise<{ outcomes: Record<string, string> }> {
  const schedule = input.schedule?.length ? input.schedule : DEFAULT_WEBHOOK_SCHEDULE_MS;
  const queue = [...input.messageIds];
  const outcomes: Record<string, string> = {};
  const lane = async () => {
    for (let messageId = queue.shift(); messageId !== undefined; messageId = queue.shift()) {
      outcomes[messageId] = await deliverToEndpoint(input.endpointId, messageId, schedule, 'replay');
    }
  };
  await Promise.all(Array.from({ length: Math.min(10, queue.length) }, lane));
  return { outcomes };
}
