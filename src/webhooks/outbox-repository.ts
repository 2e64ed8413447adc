// The outbox's statements (src/webhooks/dispatcher.ts): recording a workflow's event reads back, in the same round trip,
// what its webhook message needs (the delivery as the event left it, its tenant's enabled endpoints of its mode, with
// what their first attempts sign with), and the fan-out's read of a recorded event does the same.
import type { Db, Pool } from '../platform/db.js';
import type { EventType } from '../../shared/deliveries/vocabulary.js';
import {
  SUMMARY_COLUMNS,
  type DeliveryEventRow,
  type DeliverySummaryRow,
  type RecordEventInput,
} from '../deliveries/repository.js';

/** An enabled endpoint of a delivery's tenant and mode, with what its first attempt signs and sends with. */
export interface EndpointTarget {
  id: string;
  events: string[] | null;
  url: string;
  secret: string;
  previous_secret: string | null;
  rotating: boolean;
}

/** The enabled endpoints of the delivery `d` (tenant and mode), oldest first, as one JSON array (EndpointTarget[]). */
const ENDPOINT_TARGETS_OF_D = `(SELECT coalesce(json_agg(json_build_object('id', e.id, 'events', e.events, 'url', e.url,
     'secret', e.secret, 'previous_secret', e.previous_secret,
     'rotating', coalesce(e.previous_secret_expires_at > now(), false)) ORDER BY e.created_at, e.id), '[]'::json)
   FROM webhook_endpoints e
  WHERE e.tenant_id = d.tenant_id AND e.livemode = d.livemode AND e.deleted_at IS NULL AND e.status = 'enabled')`;

/** What recording an event reads back of its delivery, as the event left it: its webhook envelope's summary, and more. */
export type RecordedDelivery = DeliverySummaryRow & { tenant_id: string; return_of: string | null };

/**
 * The outbox's statement (src/webhooks/dispatcher.ts): inserts a workflow's event and applies its status change, and
 * reads back in the same round trip the delivery as it now stands and, with `withEndpoints`, its tenant's enabled
 * endpoints of its mode. Null, changing nothing, when the event id is recorded already (a retried activity).
 */
export async function insertEventWithContext(
  client: Db,
  input: RecordEventInput,
  withEndpoints: boolean,
): Promise<{ delivery: RecordedDelivery; endpoints: EndpointTarget[] | null } | null> {
  const { rows } = await client.query<RecordedDelivery & { endpoints: EndpointTarget[] | null }>(
    `WITH inserted AS (
       INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, occurred_at, source, payload, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT livemode FROM deliveries WHERE id = $2))
       ON CONFLICT (id) DO NOTHING RETURNING delivery_id
     ), d AS (
       UPDATE deliveries SET status = coalesce($8, status),
              courier_tracking_ref = CASE WHEN $9::boolean THEN $10 ELSE courier_tracking_ref END,
              company_id = coalesce($11, company_id), quoted_fee_aoa = coalesce($12, quoted_fee_aoa), updated_at = now()
        WHERE id = (SELECT delivery_id FROM inserted)
        RETURNING *
     )
     SELECT ${SUMMARY_COLUMNS}, d.tenant_id, d.return_of,
            CASE WHEN $13::boolean THEN ${ENDPOINT_TARGETS_OF_D} END AS endpoints
       FROM d LEFT JOIN courier_companies c ON c.id = d.company_id`,
    [
      input.eventId,
      input.deliveryId,
      input.tenantId,
      input.eventType,
      input.occurredAt,
      input.source,
      input.payload,
      input.toStatus,
      input.trackingRef !== undefined,
      input.trackingRef ?? null,
      input.companyId ?? null,
      input.quotedFeeAoa ?? null,
      withEndpoints,
    ],
  );
  if (!rows[0]) return null;
  const { endpoints, ...delivery } = rows[0];
  return { delivery, endpoints };
}

/**
 * A recorded event of a delivery of the tenant with what its webhook message needs, in one statement: the delivery
 * (of the event's mode) and its tenant's enabled endpoints of that mode. Null when there is no such event.
 */
export async function eventWithContext(
  pool: Pool,
  input: { tenantId: string; deliveryId: string; eventId: string },
): Promise<{ event: DeliveryEventRow; delivery: RecordedDelivery; endpoints: EndpointTarget[] } | null> {
  const { rows } = await pool.query<
    RecordedDelivery & {
      e_id: string;
      e_type: EventType;
      e_at: Date;
      e_source: string | null;
      e_payload: DeliveryEventRow['payload'];
      endpoints: EndpointTarget[];
    }
  >(
    `SELECT ${SUMMARY_COLUMNS}, d.tenant_id, d.return_of, ev.id AS e_id, ev.event_type AS e_type, ev.occurred_at AS e_at,
            ev.source AS e_source, ev.payload AS e_payload, ${ENDPOINT_TARGETS_OF_D} AS endpoints
       FROM delivery_events ev
       JOIN deliveries d ON d.id = ev.delivery_id AND d.tenant_id = ev.tenant_id AND d.livemode = ev.livemode
       JOIN courier_companies c ON c.id = d.company_id
      WHERE ev.id = $1 AND ev.delivery_id = $2 AND ev.tenant_id = $3`,
    [input.eventId, input.deliveryId, input.tenantId],
  );
  if (!rows[0]) return null;
  const {
    e_id: id,
    e_type: event_type,
    e_at: occurred_at,
    e_source: source,
    e_payload: payload,
    endpoints,
    ...delivery
  } = rows[0];
  return { event: { id, event_type, occurred_at, source, payload }, delivery, endpoints };
}
