// Activities of the webhook retry workflow: thin wrappers over src/webhooks/sender.ts (build a delivery event's
// message once; one HTTP attempt per invocation, logged; the workflow owns the schedule and these never retry by
// themselves).
import { log } from '@temporalio/activity';
import type { Config } from '../../src/platform/config.js';
import type { Pool } from '../../src/platform/db.js';
import { messageDelivered } from '../../src/webhooks/repository.js';
import {
  createWebhookSender,
  type PrepareInput,
  type PreparedMessage,
  type WebhookSender,
} from '../../src/webhooks/sender.js';
import type { Resolver } from '../../src/webhooks/url.js';
import type { AttemptInput, AttemptResult } from '../../shared/webhooks/definitions.js';

/**
 * `sender`: the worker's one webhook sender (activities/index.ts); else one of its own, whose outgoing connections
 * resolve names with `resolve` (default dns.lookup; tests play DNS rebinding with it).
 */
export function createWebhookActivities(deps: {
  config: Config;
  pool: Pool;
  resolve?: Resolver;
  sender?: WebhookSender;
}) {
  const sender = deps.sender ?? createWebhookSender({ ...deps, log });
  return {
    /**
     * Builds the envelope of a delivery event once and stores it verbatim (a retry of this activity finds it),
     * and lists the endpoints to notify. Nothing is stored when the tenant has no endpoint that takes it.
     */
    async prepareWebhookMessage(input: PrepareInput): Promise<PreparedMessage | null> {
      return sender.prepareWebhookMessage(input);
    },

    /**
     * One signed POST of a stored message to one endpoint, logged. Never throws for the receiver's failures. An
     * endpoint that took the event's message already (the outbox's first attempt, before its worker died) is not
     * sent it again.
     */
    async attemptWebhook(input: AttemptInput): Promise<AttemptResult> {
      if (input.trigger === 'event' && (await messageDelivered(deps.pool, input.endpointId, input.messageId))) {
        return { outcome: 'succeeded', statusCode: null, retryAfterMs: null };
      }
      return sender.attemptWebhook(input);
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
