// Activities of the webhook fan-out: thin wrappers over src/webhooks/sender.ts (build a delivery event's message
// once; one HTTP attempt per invocation, logged; the workflow owns the schedule and these never retry by themselves).
import { log } from '@temporalio/activity';
import type { Config } from '../../src/config.js';
import type { Pool } from '../../src/db.js';
import { createWebhookSender, type PrepareInput, type PreparedMessage } from '../../src/webhooks/sender.js';
import type { Resolver } from '../../src/webhooks/url.js';
import type { AttemptInput, AttemptResult } from '../../workflows/webhooks/definitions.js';

/** `resolve`: the DNS resolver of outgoing connections (default dns.lookup; tests play DNS rebinding with it). */
export function createWebhookActivities(deps: { config: Config; pool: Pool; resolve?: Resolver }) {
  const sender = createWebhookSender({ ...deps, log });
  return {
    /**
     * Builds the envelope of a delivery event once and stores it verbatim (a retry of this activity finds it),
     * and lists the endpoints to notify. Nothing is stored when the tenant has no endpoint that takes it.
     */
    async prepareWebhookMessage(input: PrepareInput): Promise<PreparedMessage | null> {
      return sender.prepareWebhookMessage(input);
    },

    /** One signed POST of a stored message to one endpoint, logged. Never throws for the receiver's failures. */
    async attemptWebhook(input: AttemptInput): Promise<AttemptResult> {
      return sender.attemptWebhook(input);
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
