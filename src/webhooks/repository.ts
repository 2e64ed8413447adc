// Webhook endpoints, messages and attempts in Postgres. Every read by the API is scoped to a tenant and a mode (an
// endpoint registered with a test key is a test endpoint: it gets test deliveries' messages only, and a live key
// never sees it); a deleted endpoint (deleted_at set) is gone for the API but keeps its attempt log rows.
import { randomUUID } from 'node:crypto';
import { inTransaction, type Db, type Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { isUuid } from '../platform/uuid.js';
import { generateWebhookSecret } from '../platform/secrets.js';
import type { EventType } from '../../shared/deliveries/vocabulary.js';

export interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  events: EventType[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  /** The oldest failed attempt since the last successful one; null when the last attempt succeeded (or none failed). */
  failing_since: Date | null;
  livemode: boolean;
  created_at: Date;
}

export interface AttemptRow {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_id: string;
  event_type: EventType;
  attempt: number;
  status: 'succeeded' | 'failed' | 'exhausted';
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  trigger: 'event' | 'replay';
  attempted_at: Date;
}

export interface MessageRow {
  id: string;
  tenant_id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  body: string;
  created_at: Date;
}

const ENDPOINT_COLUMNS =
  'id, tenant_id, url, description, events, secret, previous_secret, previous_secret_expires_at, status, disabled_reason, failing_since, livemode, created_at';

/** An endpoint whose attempts have all failed this long is shown `health: "failing"` (docs/webhooks.md "Endpoint health"). */
export const FAILING_AFTER_MS = 24 * 3600 * 1000;
/** ... and the first failed attempt this long after its failures began disables it with reason `failing`. */
const DISABLE_FAILING_AFTER_MS = 5 * 24 * 3600 * 1000;
/** `disabled_reason` of an endpoint disabled after DISABLE_FAILING_AFTER_MS of failures. */
const FAILING_REASON = 'failing';

/** How long the old secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * A new endpoint of the scope's mode, or null when the scope already has `max` endpoints (each mode has its own
 * allowance). The count and the insert share one transaction, serialised per tenant and mode by a transaction-scoped
 * advisory lock, so concurrent creations never pass the limit together.
 */
export async function createEndpointWithinLimit(
  pool: Pool,
  scope: Scope,
  input: { url: string; description?: string | null; events?: string[] | null },
  max: number,
): Promise<EndpointRow | null> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1 || ':' || $2, 0))`, [
      scope.tenantId,
      scope.livemode,
    ]);
    const counted = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1 AND livemode = $2 AND deleted_at IS NULL',
      [scope.tenantId, scope.livemode],
    );
    if (counted.rows[0].n >= max) return null;
    return createEndpoint(client, scope, input);
  });
}

/** A new endpoint of the scope's mode, whatever the limit (the API creates them with createEndpointWithinLimit). */
export async function createEndpoint(
  db: Db,
  scope: Scope,
  input: { url: string; description?: string | null; events?: string[] | null },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, description, events, secret, livemode, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, date_trunc('milliseconds', now())) RETURNING ${ENDPOINT_COLUMNS}`,
    [
      randomUUID(),
      scope.tenantId,
      input.url,
      input.description ?? null,
      input.events ?? null,
      generateWebhookSecret(),
      scope.livemode,
    ],
  );
  return rows[0];
}

/** The scope's endpoint, or null (unknown, malformed, deleted, another tenant's or the other mode's). */
export async function findEndpoint(pool: Pool, scope: Scope, id: string): Promise<EndpointRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND tenant_id = $2 AND livemode = $3 AND deleted_at IS NULL`,
    [id, scope.tenantId, scope.livemode],
  );
  return rows[0] ?? null;
}

/** Newest first, one extra row fetched to tell whether there are more. */
export async function listEndpoints(
  pool: Pool,
  scope: Scope,
  limit: number,
  offset: number,
): Promise<{ rows: EndpointRow[]; hasMore: boolean }> {
  const { rows } = await pool.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND livemode = $2 AND deleted_at IS NULL
      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [scope.tenantId, scope.livemode, limit + 1, offset],
  );
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** `id = $1 AND tenant_id = $2 AND livemode = $3`: one endpoint of the scope. */
const ENDPOINT_OF_SCOPE = 'id = $1 AND tenant_id = $2 AND livemode = $3 AND deleted_at IS NULL';

export async function updateEndpoint(
  pool: Pool,
  scope: Scope,
  id: string,
  patch: { url?: string; description?: string | null; events?: string[] | null; status?: 'enabled' | 'disabled' },
): Promise<EndpointRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [id, scope.tenantId, scope.livemode];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (patch.url !== undefined) set('url', patch.url);
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.events !== undefined) set('events', patch.events);
  if (patch.status !== undefined) {
    set('status', patch.status);
    sets.push(patch.status === 'enabled' ? 'disabled_reason = NULL' : "disabled_reason = 'disabled by the merchant'");
  }
  // Enabled again, or pointed elsewhere: its health starts afresh (an old failure would disable it at the next one).
  if (patch.status === 'enabled' || patch.url !== undefined) sets.push('failing_since = NULL');
  if (sets.length === 0) return findEndpoint(pool, scope, id);
  const { rows } = await pool.query<EndpointRow>(
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE ${ENDPOINT_OF_SCOPE} RETURNING ${ENDPOINT_COLUMNS}`,
    params,
  );
  return rows[0] ?? null;
}

export async function deleteEndpoint(pool: Pool, scope: Scope, id: string): Promise<boolean> {
  const { rowCount } = await pool.query(`UPDATE webhook_endpoints SET deleted_at = now() WHERE ${ENDPOINT_OF_SCOPE}`, [
    id,
    scope.tenantId,
    scope.livemode,
  ]);
  return rowCount === 1;
}

/** A new secret; the current one keeps signing (second signature) for ROTATION_OVERLAP_MS. */
export async function rotateSecret(pool: Pool, scope: Scope, id: string): Promise<EndpointRow | null> {
  const { rows } = await pool.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, secret = $4,
            previous_secret_expires_at = date_trunc('milliseconds', now()) + make_interval(secs => $5::double precision / 1000)
      WHERE ${ENDPOINT_OF_SCOPE} RETURNING ${ENDPOINT_COLUMNS}`,
    [id, scope.tenantId, scope.livemode, generateWebhookSecret(), ROTATION_OVERLAP_MS],
  );
  return rows[0] ?? null;
}

export async function listAttempts(
  pool: Pool,
  endpointId: string,
  f: { limit: number; offset: number; messageId?: string; status?: string },
): Promise<{ rows: AttemptRow[]; hasMore: boolean }> {
  const where = ['endpoint_id = $1'];
  const params: unknown[] = [endpointId];
  if (f.messageId) {
    params.push(f.messageId);
    where.push(`message_id = $${params.length}`);
  }
  if (f.status) {
    params.push(f.status);
    where.push(`status = $${params.length}`);
  }
  params.push(f.limit + 1, f.offset);
  const { rows } = await pool.query<AttemptRow>(
    `SELECT id, endpoint_id, message_id, event_id, event_type, attempt, status, status_code, latency_ms, error, trigger, attempted_at
       FROM webhook_attempts WHERE ${where.join(' AND ')}
      ORDER BY attempted_at DESC, seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** The scope's message (a test delivery's message is not a live key's to replay, nor the reverse), or null. */
export async function findMessage(pool: Pool, scope: Scope, messageId: string): Promise<MessageRow | null> {
  const { rows } = await pool.query<MessageRow>(
    'SELECT * FROM webhook_messages WHERE id = $1 AND tenant_id = $2 AND livemode = $3',
    [messageId, scope.tenantId, scope.livemode],
  );
  return rows[0] ?? null;
}

/** Ids of the scope's messages created in [since, until] whose type the filter takes, oldest first; at most `limit`. */
export async function messagesInRange(
  pool: Pool,
  scope: Scope,
  since: Date,
  until: Date,
  events: string[] | null,
  limit: number,
): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM webhook_messages
      WHERE tenant_id = $1 AND livemode = $6 AND created_at >= $2 AND created_at <= $3 AND ($4::text[] IS NULL OR event_type = ANY($4::text[]))
      ORDER BY created_at, id LIMIT $5`,
    [scope.tenantId, since, until, events, limit, scope.livemode],
  );
  return rows.map((r) => r.id);
}

// The worker's side (src/webhooks/sender.ts): messages built once, attempts logged.

/** Stores a message's body once: a second insert with the same id keeps the first body. Whether this one stored it. */
export async function insertMessageOnce(
  pool: Db,
  m: {
    id: string;
    tenantId: string;
    livemode: boolean;
    deliveryId: string;
    eventId: string;
    eventType: string;
    body: string;
    createdAt: Date;
    endpointIds?: string[];
  },
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `INSERT INTO webhook_messages (id, tenant_id, delivery_id, event_id, event_type, body, created_at, endpoint_ids, livemode)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
    [m.id, m.tenantId, m.deliveryId, m.eventId, m.eventType, m.body, m.createdAt, m.endpointIds ?? null, m.livemode],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The message is in the hands of its sender: first attempts made, failures handed to a retry workflow. The guard's
 * `IS TRUE` keeps Postgres on the primary key, not the undispatched partial index (docs/operations.md "A guard by its primary key").
 */
export async function markMessageDispatched(pool: Pool, messageId: string): Promise<void> {
  await pool.query(
    'UPDATE webhook_messages SET dispatched_at = now() WHERE id = $1 AND (dispatched_at IS NULL) IS TRUE',
    [messageId],
  );
}

/** Messages stored but not dispatched for `olderThanMs` (their worker died before sending): oldest first. */
export async function undispatchedMessages(
  pool: Pool,
  olderThanMs: number,
  limit: number,
): Promise<{ id: string; tenant_id: string; delivery_id: string; event_id: string; endpoint_ids: string[] | null }[]> {
  const { rows } = await pool.query(
    `SELECT id, tenant_id, delivery_id, event_id, endpoint_ids FROM webhook_messages
      WHERE dispatched_at IS NULL AND created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows;
}

/** Whether this endpoint already took this message (a succeeded attempt of the event's own schedule). */
export async function messageDelivered(pool: Pool, endpointId: string, messageId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `SELECT 1 FROM webhook_attempts WHERE endpoint_id = $1 AND message_id = $2 AND status = 'succeeded' AND trigger = 'event' LIMIT 1`,
    [endpointId, messageId],
  );
  return (rowCount ?? 0) > 0;
}

/** What one attempt sends: the endpoint (whether still active, its secrets) and the stored message. */
export interface AttemptTarget {
  tenant_id: string;
  livemode: boolean;
  url: string;
  secret: string;
  previous_secret: string | null;
  rotating: boolean;
  active: boolean;
  event_id: string;
  event_type: string;
  body: string;
}

export async function attemptTarget(pool: Pool, endpointId: string, messageId: string): Promise<AttemptTarget | null> {
  const { rows } = await pool.query<AttemptTarget>(
    `SELECT e.tenant_id, e.livemode, e.url, e.secret, e.previous_secret,
            coalesce(e.previous_secret_expires_at > now(), false) AS rotating,
            (e.deleted_at IS NULL AND e.status = 'enabled') AS active,
            m.event_id, m.event_type, m.body
       FROM webhook_endpoints e JOIN webhook_messages m ON m.id = $2 AND m.tenant_id = e.tenant_id AND m.livemode = e.livemode
      WHERE e.id = $1`,
    [endpointId, messageId],
  );
  return rows[0] ?? null;
}

/**
 * One row of the attempt log. A succeeded or failed attempt also keeps the endpoint's health in the same statement:
 * a success clears `failing_since`, a failure sets it when unset, and a failure DISABLE_FAILING_AFTER_MS after it
 * disables the endpoint with reason `failing`. The endpoint row is written only when one of these changes it (a
 * healthy endpoint's attempts never write it). Returns whether this attempt disabled the endpoint.
 */
export async function insertAttempt(
  pool: Pool,
  row: {
    endpointId: string;
    tenantId: string;
    livemode: boolean;
    messageId: string;
    eventId: string;
    eventType: string;
    attempt: number;
    status: 'succeeded' | 'failed' | 'exhausted';
    statusCode: number | null;
    latencyMs: number | null;
    error: string | null;
    trigger: string;
    /** A success also marks the message dispatched (the outbox's first attempt of a message with this one endpoint). */
    dispatchesMessage?: boolean;
  },
): Promise<{ disabled: boolean }> {
  const { rows } = await pool.query<{ disabled: boolean }>(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (id, endpoint_id, tenant_id, message_id, event_id, event_type, attempt, status, status_code, latency_ms, error, trigger, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text, $9, $10, $11, $12, $13) RETURNING attempted_at
     ), dispatched AS (
       UPDATE webhook_messages SET dispatched_at = now()
        WHERE $16::boolean AND $8::text = 'succeeded' AND id = $4 AND (dispatched_at IS NULL) IS TRUE
     ), health AS (
       SELECT e.id, a.attempted_at,
              ($8::text = 'failed' AND e.status = 'enabled'
                AND e.failing_since <= a.attempted_at - make_interval(secs => $14::double precision / 1000)) AS disable
         FROM webhook_endpoints e, attempt a WHERE e.id = $2
     )
     UPDATE webhook_endpoints e
        SET failing_since = CASE WHEN $8::text = 'succeeded' THEN NULL ELSE coalesce(e.failing_since, h.attempted_at) END,
            status = CASE WHEN h.disable THEN 'disabled' ELSE e.status END,
            disabled_reason = CASE WHEN h.disable THEN $15 ELSE e.disabled_reason END
       FROM health h
      WHERE e.id = h.id
        AND (($8::text = 'succeeded' AND e.failing_since IS NOT NULL) OR ($8::text = 'failed' AND (e.failing_since IS NULL OR h.disable)))
     RETURNING h.disable AS disabled`,
    [
      randomUUID(),
      row.endpointId,
      row.tenantId,
      row.messageId,
      row.eventId,
      row.eventType,
      row.attempt,
      row.status,
      row.statusCode,
      row.latencyMs,
      row.error,
      row.trigger,
      row.livemode,
      DISABLE_FAILING_AFTER_MS,
      FAILING_REASON,
      row.dispatchesMessage ?? false,
    ],
  );
  return { disabled: rows[0]?.disabled === true };
}

/** Disables an enabled endpoint (the receiver answered 410 Gone). */
export async function disableEndpoint(pool: Pool, endpointId: string, reason: string): Promise<void> {
  await pool.query(
    "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2 WHERE id = $1 AND status = 'enabled'",
    [endpointId, reason],
  );
}

/** The endpoint's replay bookkeeping, its row locked until the transaction ends (one replay decided at a time). */
export async function lockReplayState(
  db: Db,
  endpointId: string,
): Promise<{ startedAt: Date[]; workflowIds: string[] }> {
  const { rows } = await db.query<{ replay_started_at: Date[]; replay_workflow_ids: string[] }>(
    'SELECT replay_started_at, replay_workflow_ids FROM webhook_endpoints WHERE id = $1 FOR UPDATE',
    [endpointId],
  );
  return { startedAt: rows[0]?.replay_started_at ?? [], workflowIds: rows[0]?.replay_workflow_ids ?? [] };
}

/** A replay started now with these workflows; start times older than `windowMs` are forgotten. */
export async function recordReplay(db: Db, endpointId: string, workflowIds: string[], windowMs: number): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints
        SET replay_started_at = array(SELECT t FROM unnest(replay_started_at) t
                                       WHERE t > now() - make_interval(secs => $3::double precision / 1000) ORDER BY t) || now(),
            replay_workflow_ids = $2::text[]
      WHERE id = $1`,
    [endpointId, workflowIds, windowMs],
  );
}
