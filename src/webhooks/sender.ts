// Sending merchant webhooks: build a delivery event's message once, and make one signed HTTP attempt per call
// (the fan-out workflow owns the schedule; nothing here retries by itself). Every attempt is logged.
// The worker runs these as the prepareWebhookMessage / attemptWebhook activities (activities/webhooks).
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../platform/config.js';
import type { Pool } from '../platform/db.js';
import type { DeliveryEventRow, DeliverySummaryRow } from '../deliveries/repository.js';
import { toEvent, toSummary } from '../deliveries/views.js';
import { attemptTarget, disableEndpoint, insertAttempt, insertMessageOnce, type AttemptTarget } from './repository.js';
import { eventWithContext, type EndpointTarget } from './outbox-repository.js';
import { checkUrlSyntax, guardedLookup, type Resolver } from './url.js';
import { webhookAttempts, webhookDelay } from '../platform/observability/metrics.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';
import {
  MAX_RETRY_AFTER_MS,
  webhookMessageId,
  type AttemptInput,
  type AttemptResult,
} from '../../shared/webhooks/definitions.js';

export interface PrepareInput {
  tenantId: string;
  deliveryId: string;
  eventId: string;
  status?: Status;
}

export interface PreparedMessage {
  messageId: string;
  eventType: string;
  /** Enabled endpoints of the tenant whose filter takes this event type. */
  endpointIds: string[];
}

/** `Retry-After`: delay-seconds or an HTTP date; capped; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  let ms: number;
  if (/^\s*\d+\s*$/.test(raw)) ms = Number(raw) * 1000;
  else {
    const at = Date.parse(raw);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** The webhook-signature header: one `v1,<sig>` per secret, space-separated (new secret first). */
export function signatureHeader(secrets: string[], messageId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' ');
}

const errorText = (err: unknown): string => {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout: no answer within the request timeout';
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 500);
};

interface Logger {
  warn(message: string, attrs?: Record<string, unknown>): void;
}

/**
 * The message of a delivery event for those of `endpoints` (the tenant's enabled endpoints of the delivery's mode: a
 * test delivery's messages go to test endpoints only) that take the event's type: its envelope, built once, and the
 * row that stores it. Null when no endpoint takes it.
 */
export function webhookMessageOf<E extends { id: string; events: string[] | null }>(input: {
  tenantId: string;
  deliveryId: string;
  delivery: DeliverySummaryRow;
  event: DeliveryEventRow;
  endpoints: E[];
  status?: Status;
}): { prepared: PreparedMessage; targets: E[]; row: Parameters<typeof insertMessageOnce>[1] } | null {
  const { event, delivery } = input;
  const targets = input.endpoints.filter((e) => e.events === null || e.events.includes(event.event_type));
  if (targets.length === 0) return null;
  const messageId = webhookMessageId(event.id);
  const envelope = {
    id: messageId,
    type: event.event_type,
    created_at: event.occurred_at.toISOString(),
    livemode: delivery.livemode,
    data: {
      delivery: { ...toSummary(delivery), ...(input.status ? { status: input.status } : {}) },
      event: toEvent(event),
      metadata: delivery.metadata ?? {},
    },
  };
  const endpointIds = targets.map((e) => e.id);
  return {
    prepared: { messageId, eventType: event.event_type, endpointIds },
    targets,
    row: {
      id: messageId,
      tenantId: input.tenantId,
      livemode: delivery.livemode,
      deliveryId: input.deliveryId,
      eventId: event.id,
      eventType: event.event_type,
      body: JSON.stringify(envelope),
      createdAt: event.occurred_at,
      endpointIds,
    },
  };
}

/**
 * An attempt's metrics (src/platform/observability/metrics.ts): its outcome and, for an event's webhook (not a replay), how long
 * after the event the first attempt started and the webhook arrived. The event's time is the envelope's `created_at`.
 */
function observeAttempt(input: AttemptInput, outcome: AttemptResult['outcome'], body: string, startedAt: number): void {
  webhookAttempts.inc({ outcome, trigger: input.trigger });
  if (input.trigger !== 'event' || (input.attempt !== 1 && outcome !== 'succeeded')) return;
  let eventAt = NaN;
  try {
    eventAt = Date.parse((JSON.parse(body) as { created_at?: string }).created_at ?? '');
  } catch {}
  if (Number.isNaN(eventAt)) return;
  if (input.attempt === 1) webhookDelay.observe({ stage: 'first_attempt' }, Math.max(0, startedAt - eventAt) / 1000);
  if (outcome === 'succeeded') webhookDelay.observe({ stage: 'delivered' }, Math.max(0, Date.now() - eventAt) / 1000);
}

/** The longest a webhook receiver's connection may take to open (WEBHOOK_TIMEOUT_MS when that is shorter). */
export const WEBHOOK_CONNECT_MAX_MS = 10_000;

type Target = AttemptTarget;

/** What the first attempts of a stored message send to each of its endpoints, by endpoint id (read with the message). */
export function attemptTargetsOf(
  row: { tenantId: string; livemode: boolean; eventId: string; eventType: string; body: string },
  endpoints: EndpointTarget[],
): Record<string, AttemptTarget> {
  return Object.fromEntries(
    endpoints.map((e) => [
      e.id,
      {
        tenant_id: row.tenantId,
        livemode: row.livemode,
        url: e.url,
        secret: e.secret,
        previous_secret: e.previous_secret,
        rotating: e.rotating,
        active: true,
        event_id: row.eventId,
        event_type: row.eventType,
        body: row.body,
      },
    ]),
  );
}

/**
 * Logs an attempt and what follows from it: `exhausted` after a last attempt to retry, and `final` when this attempt
 * disabled the endpoint (failing for DISABLE_FAILING_AFTER_MS). Returns the outcome the caller acts on.
 */
async function logOutcome(
  pool: Pool,
  input: AttemptInput,
  target: Target,
  startedAt: number,
  attempt: {
    result: AttemptResult;
    statusCode: number | null;
    latencyMs: number | null;
    error: string | null;
    dispatchesMessage: boolean;
  },
): Promise<AttemptResult> {
  const base = {
    endpointId: input.endpointId,
    tenantId: target.tenant_id,
    livemode: target.livemode,
    messageId: input.messageId,
    eventId: target.event_id,
    eventType: target.event_type,
    attempt: input.attempt,
    trigger: input.trigger,
  };
  let { result } = attempt;
  const { statusCode, latencyMs, error } = attempt;
  const succeeded = result.outcome === 'succeeded';
  const { disabled } = await insertAttempt(pool, {
    ...base,
    status: succeeded ? 'succeeded' : 'failed',
    statusCode,
    latencyMs,
    error,
    dispatchesMessage: attempt.dispatchesMessage,
  });
  if (disabled) {
    // Failing for DISABLE_FAILING_AFTER_MS: this attempt disabled the endpoint (reason `failing`); nothing follows.
    result = { ...result, outcome: 'final' };
  } else if (result.outcome === 'retry' && input.lastAttempt) {
    await insertAttempt(pool, {
      ...base,
      status: 'exhausted',
      statusCode: null,
      latencyMs: null,
      error: `no attempt left after ${input.attempt}`,
    });
    result = { ...result, outcome: 'exhausted' };
  }
  observeAttempt(input, result.outcome, target.body, startedAt);
  return result;
}

/** The Standard Webhooks headers of a message, signed with the endpoint's secret (and the previous one while rotating). */
function signedHeaders(target: Target, messageId: string, now: Date): Record<string, string> {
  const secrets = [target.secret, ...(target.rotating && target.previous_secret ? [target.previous_secret] : [])];
  return {
    'content-type': 'application/json',
    'user-agent': 'delivery-api-webhooks/1.0',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, messageId, now, target.body),
  };
}

/** The POST itself: the receiver's status and Retry-After. Throws when the receiver cannot be reached in time. */
async function postSigned(agent: Agent, timeoutMs: number, target: Target, headers: Record<string, string>) {
  const res = await request(target.url, {
    method: 'POST',
    headers,
    body: target.body,
    dispatcher: agent,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
  await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
  return { statusCode: res.statusCode, retryAfterMs };
}

/**
 * Builds the envelope of a delivery event once and stores it verbatim (a retry of this activity finds it),
 * and lists the endpoints to notify, with what their first attempts send (`targets`, for the outbox's sender in
 * this process: never in a workflow's history). Nothing is stored when the tenant has no endpoint that takes it.
 */
async function prepareMessage(
  pool: Pool,
  log: Logger,
  input: PrepareInput,
): Promise<(PreparedMessage & { targets: Record<string, AttemptTarget> }) | null> {
  const found = await eventWithContext(pool, input);
  if (!found) {
    log.warn('webhook fan-out: event not found', { eventId: input.eventId, deliveryId: input.deliveryId });
    return null;
  }
  const message = webhookMessageOf({ ...input, ...found });
  if (!message) return null;
  await insertMessageOnce(pool, message.row);
  return { ...message.prepared, targets: attemptTargetsOf(message.row, message.targets) };
}

/** `resolve`: the DNS resolver of outgoing connections (default dns.lookup; tests play DNS rebinding with it). */
export function createWebhookSender(deps: { config: Config; pool: Pool; resolve?: Resolver; log?: Logger }) {
  const { pool, config } = deps;
  const log: Logger = deps.log ?? { warn: () => {} };
  const timeoutMs = config.webhookTimeoutMs;
  // Keep-alive connections to receivers. Every connection's resolved address is checked (SSRF, DNS rebinding):
  // no special-use address, loopback only with ALLOW_LOOPBACK_WEBHOOKS. HTTP/1.1 only, as with every receiver so far
  // (undici 8 would otherwise negotiate HTTP/2 over TLS).
  const agent = new Agent({
    allowH2: false,
    connect: {
      timeout: Math.min(timeoutMs, WEBHOOK_CONNECT_MAX_MS),
      lookup: guardedLookup(config.allowLoopbackWebhooks, deps.resolve),
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connections: 64,
  });

  return {
    prepareMessage: (input: PrepareInput) => prepareMessage(pool, log, input),

    /** prepareMessage without the targets: what the fan-out workflow's activity returns. */
    async prepareWebhookMessage(input: PrepareInput): Promise<PreparedMessage | null> {
      const message = await prepareMessage(pool, log, input);
      if (!message) return null;
      const { targets: _targets, ...prepared } = message;
      return prepared;
    },

    /**
     * One signed POST of a stored message to one endpoint, logged. Never throws for the receiver's failures. `first`:
     * the outbox's first attempt in this process, with the target it read in the transaction that stored the message
     * (no second read) and, for a message with this one endpoint, the message marked dispatched with a success.
     */
    async attemptWebhook(
      input: AttemptInput,
      first?: { target: AttemptTarget; dispatchesMessage: boolean },
    ): Promise<AttemptResult> {
      const startedAt = Date.now();
      const target = first?.target ?? (await attemptTarget(pool, input.endpointId, input.messageId));
      if (!target || !target.active) {
        webhookAttempts.inc({ outcome: 'inactive', trigger: input.trigger });
        return { outcome: 'inactive', statusCode: null, retryAfterMs: null };
      }

      const finish = (
        result: AttemptResult,
        statusCode: number | null,
        latencyMs: number | null,
        error: string | null,
      ) =>
        logOutcome(pool, input, target, startedAt, {
          result,
          statusCode,
          latencyMs,
          error,
          dispatchesMessage: first?.dispatchesMessage ?? false,
        });

      // A URL that is no longer acceptable (e.g. registered before production rules applied) is a final failure.
      const refused = checkUrlSyntax(target.url, config.allowLoopbackWebhooks);
      if (refused) return finish({ outcome: 'final', statusCode: null, retryAfterMs: null }, null, 0, refused.detail);

      const now = new Date();
      const headers = signedHeaders(target, input.messageId, now);
      const started = performance.now();
      let answer: { statusCode: number; retryAfterMs: number | null };
      try {
        answer = await postSigned(agent, timeoutMs, target, headers);
      } catch (err) {
        const latency = Math.round(performance.now() - started);
        return finish({ outcome: 'retry', statusCode: null, retryAfterMs: null }, null, latency, errorText(err));
      }
      const { statusCode, retryAfterMs } = answer;
      const latency = Math.round(performance.now() - started);
      if (statusCode >= 200 && statusCode < 300)
        return finish({ outcome: 'succeeded', statusCode, retryAfterMs: null }, statusCode, latency, null);
      if (statusCode === 410) {
        await disableEndpoint(pool, input.endpointId, `the receiver answered 410 Gone on ${now.toISOString()}`);
        return finish(
          { outcome: 'final', statusCode, retryAfterMs: null },
          statusCode,
          latency,
          'HTTP 410 Gone: endpoint disabled',
        );
      }
      // Every other answer (3xx, 4xx, 5xx) is retried on the schedule, as Stripe and Svix do: a receiver with a wrong
      // secret or a bug answering 400 gets the message again once it is fixed.
      return finish({ outcome: 'retry', statusCode, retryAfterMs }, statusCode, latency, `HTTP ${statusCode}`);
    },
  };
}
export type WebhookSender = ReturnType<typeof createWebhookSender>;
