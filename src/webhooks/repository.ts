// Webhook endpoints, messages and attempts in Postgres. Every read by the API is scoped to a tenant;
// a deleted endpoint (deleted_at set) is gone for the API but keeps its attempt log rows.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../db.js';
import { isUuid } from '../deliveries/repository.js';
import { generateWebhookSecret } from '../lib/keys.js';

export interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  events: string[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
}

export interface AttemptRow {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_id: string;
  event_type: string;
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

const ENDPOINT_COLUMNS = 'id, tenant_id, url, description, events, secret, previous_secret, previous_secret_expires_at, status, disabled_reason, created_at';

/** How long the old secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export async function createEndpoint(pool: Pool, tenantId: string, input: { url: string; description?: string | null; events?: string[] | null }): Promise<EndpointRow> {
  const { rows } = await pool.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, description, events, secret, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, date_trunc('milliseconds', now())) RETURNING ${ENDPOINT_COLUMNS}`,
    [randomUUID(), tenantId, input.url, input.description ?? null, input.events ?? null, generateWebhookSecret()],
  );
  return rows[0];
}

export async function countEndpoints(pool: Pool, tenantId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1 AND deleted_at IS NULL', [tenantId]);
  return rows[0].n;
}

/** The tenant's endpoint, or null (unknown, malformed, deleted, or another tenant's). */
export async function findEndpoint(pool: Pool, tenantId: string, id: string): Promise<EndpointRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`, [id, tenantId]);
  return rows[0] ?? null;
}

/** Newest first, one extra row fetched to tell whether there are more. */
export async function listEndpoints(pool: Pool, tenantId: string, limit: number, offset: number): Promise<{ rows: EndpointRow[]; hasMore: boolean }> {
  const { rows } = await pool.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND deleted_at IS NULL
      ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [tenantId, limit + 1, offset],
  );
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export async function updateEndpoint(
  pool: Pool,
  tenantId: string,
  id: string,
  patch: { url?: string; description?: string | null; events?: string[] | null; status?: 'enabled' | 'disabled' },
): Promise<EndpointRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [id, tenantId];
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
  if (sets.length === 0) return findEndpoint(pool, tenantId, id);
  const { rows } = await pool.query<EndpointRow>(
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
    params,
  );
  return rows[0] ?? null;
}

export async function deleteEndpoint(pool: Pool, tenantId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL', [id, tenantId]);
  return rowCount === 1;
}

/** A new secret; the current one keeps signing (second signature) for ROTATION_OVERLAP_MS. */
export async function rotateSecret(pool: Pool, tenantId: string, id: string): Promise<EndpointRow | null> {
  const { rows } = await pool.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, secret = $3,
            previous_secret_expires_at = date_trunc('milliseconds', now()) + make_interval(secs => $4::double precision / 1000)
      WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
    [id, tenantId, generateWebhookSecret(), ROTATION_OVERLAP_MS],
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

export async function findMessage(pool: Pool, tenantId: string, messageId: string): Promise<MessageRow | null> {
  const { rows } = await pool.query<MessageRow>('SELECT * FROM webhook_messages WHERE id = $1 AND tenant_id = $2', [messageId, tenantId]);
  return rows[0] ?? null;
}

/** Ids of the tenant's messages created in [since, until] whose type the filter takes, oldest first; at most `limit`. */
export async function messagesInRange(pool: Pool, tenantId: string, since: Date, until: Date, events: string[] | null, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM webhook_messages
      WHERE tenant_id = $1 AND created_at >= $2 AND created_at <= $3 AND ($4::text[] IS NULL OR event_type = ANY($4::text[]))
      ORDER BY created_at, id LIMIT $5`,
    [tenantId, since, until, events, limit],
  );
  return rows.map((r) => r.id);
}
