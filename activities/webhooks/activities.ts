// Activities of the webhook fan-out: build a delivery event's message once, and make one HTTP attempt per
// invocation (the workflow owns the schedule; these never retry by themselves). Every attempt is logged.
import { log } from '@temporalio/activity';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../../src/config.js';
import type { Pool } from '../../src/db.js';
import { findDelivery } from '../../src/deliveries/repository.js';
import { toEvent, toSummary } from '../../src/deliveries/view.js';
import { checkUrlSyntax, publicOnlyLookup } from '../../src/webhooks/url.js';
import type { Status } from '../../workflows/deliveries/states.js';
import {
  MAX_RETRY_AFTER_MS,
  RETRYABLE_4XX,
  webhookMessageId,
  type AttemptInput,
  type AttemptResult,
} from '../../workflows/webhooks/definitions.js';

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

export function createWebhookActivities(deps: { config: Config; pool: Pool }) {
  const { pool, config } = deps;
  const timeoutMs = config.webhookTimeoutMs;
  // Keep-alive connections to receivers; in production every connection's address is checked (no internal targets).
  const agent = new Agent({
    connect: { timeout: Math.min(timeoutMs, 10_000), ...(config.allowLoopbackWebhooks ? {} : { lookup: publicOnlyLookup }) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connections: 64,
  });

  async function logAttempt(row: {
    endpointId: string;
    tenantId: string;
    messageId: string;
    eventId: string;
    eventType: string;
    attempt: number;
    status: 'succeeded' | 'failed' | 'exhausted';
    statusCode: number | null;
    latencyMs: number | null;
    error: string | null;
    trigger: string;
  }) {
    await pool.query(
      `INSERT INTO webhook_attempts (id, endpoint_id, tenant_id, message_id, event_id, event_type, attempt, status, status_code, latency_ms, error, trigger)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [randomUUID(), row.endpointId, row.tenantId, row.messageId, row.eventId, row.eventType, row.attempt, row.status, row.statusCode, row.latencyMs, row.error, row.trigger],
    );
  }

  return {
    /**
     * Builds the envelope of a delivery event once and stores it verbatim (a retry of this activity finds it),
     * and lists the endpoints to notify. Nothing is stored when the tenant has no endpoint that takes it.
     */
    async prepareWebhookMessage(input: PrepareInput): Promise<PreparedMessage | null> {
      const messageId = webhookMessageId(input.eventId);
      // Independent reads in parallel (this sits on the path from a fleet event to the merchant).
      const [{ rows: events }, { rows: endpoints }, delivery] = await Promise.all([
        pool.query<{ id: string; event_type: string; occurred_at: Date; source: string | null; payload: Record<string, unknown> | null }>(
          'SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE id = $1 AND delivery_id = $2 AND tenant_id = $3',
          [input.eventId, input.deliveryId, input.tenantId],
        ),
        pool.query<{ id: string; events: string[] | null }>(
          `SELECT id, events FROM webhook_endpoints WHERE tenant_id = $1 AND deleted_at IS NULL AND status = 'enabled' ORDER BY created_at, id`,
          [input.tenantId],
        ),
        findDelivery(pool, input.tenantId, input.deliveryId),
      ]);
      const event = events[0];
      if (!event || !delivery) {
        log.warn('webhook fan-out: event or delivery not found', { eventId: input.eventId, deliveryId: input.deliveryId });
        return null;
      }
      const targets = endpoints.filter((e) => e.events === null || e.events.includes(event.event_type));
      if (targets.length === 0) return null;
      const envelope = {
        id: messageId,
        type: event.event_type,
        created_at: event.occurred_at.toISOString(),
        data: {
          delivery: { ...toSummary(delivery), ...(input.status ? { status: input.status } : {}) },
          event: toEvent(event),
          metadata: delivery.metadata ?? {},
        },
      };
      // Built once: a retry of this activity keeps the stored body (ON CONFLICT DO NOTHING).
      await pool.query(
        `INSERT INTO webhook_messages (id, tenant_id, delivery_id, event_id, event_type, body, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
        [messageId, input.tenantId, input.deliveryId, input.eventId, event.event_type, JSON.stringify(envelope), event.occurred_at],
      );
      const endpointIds = targets.map((e) => e.id);
      return { messageId, eventType: event.event_type, endpointIds };
    },

    /** One signed POST of a stored message to one endpoint, logged. Never throws for the receiver's failures. */
    async attemptWebhook(input: AttemptInput): Promise<AttemptResult> {
      const { rows } = await pool.query<{
        tenant_id: string;
        url: string;
        secret: string;
        previous_secret: string | null;
        rotating: boolean;
        active: boolean;
        event_id: string;
        event_type: string;
        body: string;
      }>(
        `SELECT e.tenant_id, e.url, e.secret, e.previous_secret,
                coalesce(e.previous_secret_expires_at > now(), false) AS rotating,
                (e.deleted_at IS NULL AND e.status = 'enabled') AS active,
                m.event_id, m.event_type, m.body
           FROM webhook_endpoints e JOIN webhook_messages m ON m.id = $2 AND m.tenant_id = e.tenant_id
          WHERE e.id = $1`,
        [input.endpointId, input.messageId],
      );
      const target = rows[0];
      if (!target || !target.active) return { outcome: 'inactive', statusCode: null, retryAfterMs: null };

      const base = {
        endpointId: input.endpointId,
        tenantId: target.tenant_id,
        messageId: input.messageId,
        eventId: target.event_id,
        eventType: target.event_type,
        attempt: input.attempt,
        trigger: input.trigger,
      };
      const finish = async (result: AttemptResult, statusCode: number | null, latencyMs: number | null, error: string | null): Promise<AttemptResult> => {
        const succeeded = result.outcome === 'succeeded';
        await logAttempt({ ...base, status: succeeded ? 'succeeded' : 'failed', statusCode, latencyMs, error });
        if (result.outcome === 'retry' && input.lastAttempt) {
          await logAttempt({ ...base, status: 'exhausted', statusCode: null, latencyMs: null, error: `no attempt left after ${input.attempt}` });
          return { ...result, outcome: 'exhausted' };
        }
        return result;
      };

      // A URL that is no longer acceptable (e.g. registered before production rules applied) is a final failure.
      const refused = checkUrlSyntax(target.url, config.allowLoopbackWebhooks);
      if (refused) return finish({ outcome: 'final', statusCode: null, retryAfterMs: null }, null, 0, refused.detail);

      const now = new Date();
      const secrets = [target.secret, ...(target.rotating && target.previous_secret ? [target.previous_secret] : [])];
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'delivery-api-webhooks/1.0',
        'webhook-id': input.messageId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, input.messageId, now, target.body),
      };
      const started = performance.now();
      let statusCode: number;
      let retryAfterMs: number | null;
      try {
        const res = await request(target.url, { method: 'POST', headers, body: target.body, dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
        statusCode = res.statusCode;
        retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      } catch (err) {
        const latency = Math.round(performance.now() - started);
        return finish({ outcome: 'retry', statusCode: null, retryAfterMs: null }, null, latency, errorText(err));
      }
      const latency = Math.round(performance.now() - started);
      if (statusCode >= 200 && statusCode < 300) return finish({ outcome: 'succeeded', statusCode, retryAfterMs: null }, statusCode, latency, null);
      if (statusCode === 410) {
        await pool.query(
          "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2 WHERE id = $1 AND status = 'enabled'",
          [input.endpointId, `the receiver answered 410 Gone on ${now.toISOString()}`],
        );
        return finish({ outcome: 'final', statusCode, retryAfterMs: null }, statusCode, latency, 'HTTP 410 Gone: endpoint disabled');
      }
      if (statusCode >= 400 && statusCode < 500 && !RETRYABLE_4XX.includes(statusCode)) {
        return finish({ outcome: 'final', statusCode, retryAfterMs: null }, statusCode, latency, `HTTP ${statusCode}: not retried`);
      }
      return finish({ outcome: 'retry', statusCode, retryAfterMs }, statusCode, latency, `HTTP ${statusCode}`);
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
