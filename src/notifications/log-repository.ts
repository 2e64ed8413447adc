// The message log as the merchant reads it (GET /v1/deliveries/{id}/notifications): the notifications rows of one
// delivery of the caller's scope. The outbox that writes them: docs/recipients.md "The outbox".
import type { Db } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';

export interface NotificationRow {
  id: string;
  channel: 'sms';
  kind: 'created' | 'out_for_delivery' | 'attempt_failed' | 'delivered';
  recipient: string;
  language: 'pt-AO' | 'en';
  body: string;
  encoding: 'gsm7' | 'ucs2';
  segments: number;
  status: 'queued' | 'submitted' | 'delivered' | 'failed' | 'not_sent';
  reason: string | null;
  attempts: number;
  created_at: Date;
  submitted_at: Date | null;
  delivered_at: Date | null;
}

/**
 * The messages of delivery `deliveryId`, oldest first, or null when the scope has no such delivery (another tenant's,
 * the other mode's, or none: the route's 404). One query: the delivery, joined to its messages.
 */
export async function deliveryNotifications(
  db: Db,
  scope: Scope,
  deliveryId: string,
): Promise<NotificationRow[] | null> {
  const { rows } = await db.query<NotificationRow & { id: string | null }>(
    `SELECT n.id, n.channel, n.kind, n.recipient, n.language, n.body, n.encoding, n.segments, n.status, n.reason,
            n.attempts, n.created_at, n.submitted_at, n.delivered_at
       FROM deliveries d
       LEFT JOIN notifications n ON n.delivery_id = d.id AND n.tenant_id = d.tenant_id AND n.livemode = d.livemode
      WHERE d.id = $1 AND d.tenant_id = $2 AND d.livemode = $3
      ORDER BY n.created_at, n.id`,
    [deliveryId, scope.tenantId, scope.livemode],
  );
  if (!rows.length) return null;
  return rows.filter((r) => r.id !== null);
}
