// Merchant webhooks (design.md "Outgoing webhooks"): the vocabulary shared by the fan-out workflow, its
// activities, the API and the config. Pure data: safe inside the workflow sandbox.
import type { Status } from '../deliveries/vocabulary.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
/**
 * The Standard Webhooks retry schedule: entry 0 is the wait before the first attempt (at once), entry i the
 * wait after attempt i failed: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (about three days in all).
 */
export const DEFAULT_WEBHOOK_SCHEDULE_MS: readonly number[] = [
  0,
  5 * S,
  5 * M,
  30 * M,
  2 * H,
  5 * H,
  10 * H,
  14 * H,
  20 * H,
  24 * H,
];

/** Each wait is spread by +-10 % so that many failed messages do not retry in lockstep. */
export const WEBHOOK_JITTER = 0.1;
/** A `Retry-After` longer than this is capped (the schedule's longest wait). */
export const MAX_RETRY_AFTER_MS = 24 * H;

/** webhook-id of a delivery event's message: the same on every retry, to every endpoint, and on replay. */
export const webhookMessageId = (eventId: string) => `msg_${eventId}`;
export const webhookFanoutWorkflowId = (eventId: string) => `webhook-${eventId}`;

export interface WebhookFanoutInput {
  tenantId: string;
  deliveryId: string;
  eventId: string;
  /** Waits in ms (see DEFAULT_WEBHOOK_SCHEDULE_MS); tests pass short ones. */
  schedule?: number[];
  /** The delivery's status right after this event (the envelope's data.delivery.status); default: the current one. */
  status?: Status;
  /** The endpoints to send to (the message is stored already); absent: the message is built and its endpoints listed. */
  endpointIds?: string[];
  /** Index in `schedule` of the next attempt: 1 when the worker made the first attempts itself (the outbox). */
  startAt?: number;
  /** Per endpoint, the receiver's Retry-After from the attempt before `startAt` (else the schedule's wait). */
  retryAfterMs?: Record<string, number | null>;
}

export interface WebhookReplayInput {
  tenantId: string;
  endpointId: string;
  messageIds: string[];
  schedule?: number[];
}

export type AttemptTrigger = 'event' | 'replay';

export interface AttemptInput {
  endpointId: string;
  messageId: string;
  /** 1-based number within this schedule run. */
  attempt: number;
  /** No retry follows a retryable failure of this attempt: it also writes the `exhausted` row. */
  lastAttempt: boolean;
  trigger: AttemptTrigger;
}

export interface AttemptResult {
  /**
   * succeeded: 2xx. retry: failed, another attempt follows (any answer but 2xx and 410, or none). final: not retried
   * (410 Gone, or failing for 5 days: the endpoint is disabled; a URL the rules now refuse). exhausted: failed and no attempt is left. inactive: the endpoint was deleted or disabled, nothing sent.
   */
  outcome: 'succeeded' | 'retry' | 'final' | 'exhausted' | 'inactive';
  statusCode: number | null;
  /** From the receiver's Retry-After header, capped at MAX_RETRY_AFTER_MS. */
  retryAfterMs: number | null;
}
