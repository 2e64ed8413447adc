// The SMS outbox's SQL (docs/recipients.md "The outbox"): what a message needs of its delivery, the row written in the
// event's transaction, the sender's claims under a lease, the outcome of each submit, receipts and opt-outs.
import type { Db, Pool } from '../platform/db.js';
import type { NotificationKind, NotificationLanguage } from '../../shared/notifications/messages.js';

/** The channel NOTIFY wakes the senders on when a queued message is committed. */
export const OUTBOX_CHANNEL = 'sms_outbox';

export interface NotificationContext {
  tenant_id: string;
  livemode: boolean;
  phone: string;
  recipient_token: string;
  delivery_pin: string | null;
  require_delivery_pin: boolean;
  shop: string;
  /** The tenant's setting of the delivery's mode; null: no row (the default of the mode). */
  sms_enabled: boolean | null;
  language: NotificationLanguage | null;
  sender_id: string | null;
}

/** What a message of this delivery needs; null when there is no one to send it to (no phone, or a return). */
export async function notificationContext(client: Db, deliveryId: string): Promise<NotificationContext | null> {
  const { rows } = await client.query<NotificationContext>(
    `SELECT d.tenant_id, d.livemode, d.destination->'contact'->>'phone' AS phone, d.recipient_token, d.delivery_pin,
            coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin,
            coalesce(nullif(t.display_name, ''), t.name) AS shop, s.sms_enabled, s.language, s.sender_id
       FROM deliveries d
       JOIN tenants t ON t.id = d.tenant_id
       LEFT JOIN courier_companies c ON c.id = d.company_id
       LEFT JOIN notification_settings s ON s.tenant_id = d.tenant_id AND s.livemode = d.livemode
      WHERE d.id = $1 AND d.return_of IS NULL AND d.destination->'contact'->>'phone' IS NOT NULL`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

export interface NewNotification {
  id: string;
  tenantId: string;
  livemode: boolean;
  deliveryId: string;
  eventId: string;
  kind: NotificationKind;
  recipient: string;
  language: NotificationLanguage;
  senderId: string;
  body: string;
  encoding: 'gsm7' | 'ucs2';
  segments: number;
  /** queued, or not_sent with `reason` (SMS off for the tenant); an opted-out phone makes it not_sent opted_out. */
  status: 'queued' | 'not_sent';
  reason: string | null;
}

/**
 * The message of an event, once per (event, channel): a second recording of the event inserts nothing. A queued one
 * to a phone that opted out of the tenant's messages is stored not_sent (opted_out); a queued one wakes the senders at
 * commit (NOTIFY). One statement.
 */
export async function insertNotification(client: Db, n: NewNotification): Promise<void> {
  await client.query(
    `WITH opted AS (
       SELECT EXISTS (SELECT 1 FROM sms_opt_outs WHERE tenant_id = $2 AND livemode = $3 AND phone = $7) AS out
     ), inserted AS (
       INSERT INTO notifications (id, tenant_id, livemode, delivery_id, event_id, kind, recipient, language, sender_id, body,
                                  encoding, segments, status, reason)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
              CASE WHEN $13 = 'queued' AND opted.out THEN 'not_sent' ELSE $13 END,
              CASE WHEN $13 = 'queued' AND opted.out THEN 'opted_out' ELSE $14 END
         FROM opted
       ON CONFLICT (event_id, channel) DO NOTHING
       RETURNING status
     )
     SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM inserted WHERE status = 'queued'`,
    [
      n.id,
      n.tenantId,
      n.livemode,
      n.deliveryId,
      n.eventId,
      n.kind,
      n.recipient,
      n.language,
      n.senderId,
      n.body,
      n.encoding,
      n.segments,
      n.status,
      n.reason,
    ],
  );
}

export interface ClaimedNotification {
  id: string;
  recipient: string;
  sender_id: string;
  body: string;
  /** Tries made before this one. */
  attempts: number;
}

/**
 * Claims up to `limit` due messages (queued, their next try due, no live lease) for `leaseMs`: another sender skips
 * them (SKIP LOCKED while claiming, the lease after) until the lease runs out, when a dead sender's are claimed again.
 * `tenantId` limits the claim to one tenant (tests sharing a database).
 */
export async function claimDue(
  pool: Pool,
  limit: number,
  leaseMs: number,
  tenantId: string | null = null,
): Promise<ClaimedNotification[]> {
  const { rows } = await pool.query<ClaimedNotification>(
    `UPDATE notifications n SET locked_until = now() + $2 * interval '1 millisecond', updated_at = now()
      WHERE n.id IN (
        SELECT id FROM notifications
         WHERE status = 'queued' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
           AND ($3::uuid IS NULL OR tenant_id = $3)
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING n.id, n.recipient, n.sender_id, n.body, n.attempts`,
    [limit, leaseMs, tenantId],
  );
  return rows;
}

/**
 * The SMSC took it. False when the row was no longer queued (its lease ran out and another sender finished it).
 * This and the marks below guard with `(status = 'queued') IS TRUE`: by the primary key, not the partial index of
 * queued messages (docs/operations.md "A guard by its primary key").
 */
export async function markSubmitted(pool: Pool, id: string, messageId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE notifications SET status = 'submitted', provider_message_id = $2, attempts = attempts + 1, reason = NULL,
            submitted_at = now(), locked_until = NULL, updated_at = now()
      WHERE id = $1 AND (status = 'queued') IS TRUE`,
    [id, messageId],
  );
  return rowCount === 1;
}

/** A try failed and another is due after `delayMs`. */
/** A later try in `delayMs`; `counted`: this try counts towards the message's limit (not when the SMSC throttled). */
export async function markRetry(
  pool: Pool,
  id: string,
  delayMs: number,
  reason: string,
  counted = true,
): Promise<void> {
  await pool.query(
    `UPDATE notifications SET attempts = attempts + $4, reason = $3, locked_until = NULL, updated_at = now(),
            next_attempt_at = now() + $2 * interval '1 millisecond'
      WHERE id = $1 AND (status = 'queued') IS TRUE`,
    [id, delayMs, reason, counted ? 1 : 0],
  );
}

/** The last try: `failed` (the SMSC refused it, or every try failed) or `not_sent` (no SMS provider). */
export async function markFinal(
  pool: Pool,
  id: string,
  status: 'failed' | 'not_sent',
  reason: string,
  tried: boolean,
): Promise<void> {
  await pool.query(
    `UPDATE notifications SET status = $2, reason = $3, attempts = attempts + $4, locked_until = NULL, updated_at = now()
      WHERE id = $1 AND (status = 'queued') IS TRUE`,
    [id, status, reason, tried ? 1 : 0],
  );
}

/** A delivery receipt: returns whether it named a submitted message of the log. */
export async function applyReceipt(
  pool: Pool,
  messageId: string,
  status: 'delivered' | 'failed',
  reason: string | null,
  at: Date,
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE notifications SET status = $2, reason = $3, delivered_at = CASE WHEN $2 = 'delivered' THEN $4::timestamptz END,
            updated_at = now()
      WHERE provider_message_id = $1 AND status = 'submitted'`,
    [messageId, status, reason, at],
  );
  return rowCount === 1;
}

/**
 * A reply PARAR / STOP from `phone` to `to`: opts the phone out for the tenant (and mode) of the latest message sent to
 * it under the sender id `to` (else of the latest message sent to it at all), and stores its queued messages not_sent
 * opted_out. Returns the tenant opted out of, or null when no message of ours went to that phone.
 */
export async function optOut(
  pool: Pool,
  phone: string,
  to: string,
  keyword: string,
): Promise<{ tenant_id: string; livemode: boolean } | null> {
  const { rows } = await pool.query<{ tenant_id: string; livemode: boolean }>(
    `WITH latest AS (
       SELECT tenant_id, livemode FROM notifications
        WHERE recipient = $1 AND provider_message_id IS NOT NULL
        ORDER BY (lower(sender_id) = lower($2)) DESC, submitted_at DESC NULLS LAST LIMIT 1
     ), opted AS (
       INSERT INTO sms_opt_outs (tenant_id, livemode, phone, keyword)
       SELECT tenant_id, livemode, $1, $3 FROM latest
       ON CONFLICT (tenant_id, livemode, phone) DO NOTHING
     ), held AS (
       UPDATE notifications n SET status = 'not_sent', reason = 'opted_out', locked_until = NULL, updated_at = now()
         FROM latest
        WHERE n.tenant_id = latest.tenant_id AND n.livemode = latest.livemode AND n.recipient = $1 AND n.status = 'queued'
     )
     SELECT tenant_id, livemode FROM latest`,
    [phone, to, keyword],
  );
  return rows[0] ?? null;
}

/** Subscribes `client` (a connection of its own) to the wake-ups of insertNotification. */
export async function listenForQueued(client: { query(sql: string): Promise<unknown> }): Promise<void> {
  await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
}
