// Deliveries and their events in the query model. The API's reads are scoped to a tenant and a mode (Scope: a test
// key's reads find test deliveries only, a live key's live ones); the worker's writes (recordEvent,
// recordIgnoredEvents) are keyed by the workflow's event ids, so a retried activity changes nothing twice. An event
// takes the mode of its delivery. Creating, starting and restarting a delivery: start-repository.ts.
import type { Db, Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { isUuid } from '../platform/uuid.js';
import type { Address, Parcel } from '../couriers/schemas.js';
import { COLUMNS as COURIER_COLUMNS, type CourierRow } from '../couriers/repository.js';
import type { EventType, PaymentMethod, Status } from '../../shared/deliveries/vocabulary.js';

export interface DeliveryRow {
  id: string;
  tenant_id: string;
  reference: string;
  status: Status;
  /** false: a test delivery (created with a test key). */
  livemode: boolean;
  company_id: string;
  courier_name: string;
  courier_slug: string;
  require_delivery_pin: boolean;
  origin: Address;
  destination: Address;
  parcel: Parcel;
  payment_method: PaymentMethod;
  cash_collect_aoa: number | null;
  quoted_fee_aoa: number;
  courier_tracking_ref: string | null;
  delivery_pin: string | null;
  scheduled_pickup_at: Date | null;
  scheduled_delivery_at: Date | null;
  sla_deadline_at: Date | null;
  metadata: Record<string, unknown>;
  workflow_started_at: Date | null;
  inserted_at: Date;
  updated_at: Date;
  /** A return to sender: the delivery it returns (null otherwise). */
  return_of: string | null;
  /** The return to sender of this delivery, once started (null otherwise). */
  return_delivery_id: string | null;
  /** Cash on delivery's figures of the delivery (COD_LINE): null before collection (or not cash on delivery). */
  cod_line?: CodLineRow | null;
}

/** A collected cash-on-delivery delivery's figures from the ledger (docs/cash-on-delivery.md). */
export interface CodLineRow {
  collected_aoa: number;
  remitted_aoa: number;
  fee_deducted_aoa: number;
  remittance_id: string | null;
  remittance_status: 'reported' | 'confirmed' | 'disputed' | null;
}

/** The ledger's figures of one delivery (sums of its entries), for its full form; null before its cash is collected. */
const COD_LINE = `(SELECT json_build_object(
    'collected_aoa', cc.collected_aoa,
    'remittance_id', cc.remittance_id,
    'remittance_status', (SELECT r.status FROM cod_remittances r WHERE r.id = cc.remittance_id),
    'remitted_aoa', coalesce(sum(CASE WHEN e.direction = 'debit' THEN e.amount_aoa ELSE -e.amount_aoa END)
                              FILTER (WHERE e.account IN ('remittances_in_transit', 'merchant_cash')), 0),
    'fee_deducted_aoa', coalesce(sum(CASE WHEN e.direction = 'debit' THEN e.amount_aoa ELSE -e.amount_aoa END)
                                  FILTER (WHERE e.account = 'courier_fees'), 0))
   FROM cod_collections cc LEFT JOIN cod_entries e ON e.delivery_id = cc.delivery_id
  WHERE cc.delivery_id = d.id GROUP BY cc.delivery_id, cc.collected_aoa, cc.remittance_id)`;

export interface DeliveryEventRow {
  id: string;
  event_type: EventType;
  occurred_at: Date;
  source: string | null;
  payload: Record<string, unknown> | null;
}

export const DELIVERY_COLUMNS = `d.id, d.tenant_id, d.reference, d.status, d.livemode, d.company_id, c.name AS courier_name, c.slug AS courier_slug,
  coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin,
  d.origin, d.destination, d.parcel, d.payment_method, d.cash_collect_aoa, d.quoted_fee_aoa, d.courier_tracking_ref,
  d.delivery_pin, d.scheduled_pickup_at, d.scheduled_delivery_at, d.sla_deadline_at, d.metadata, d.workflow_started_at,
  d.inserted_at, d.updated_at, d.return_of, d.return_delivery_id,
  CASE WHEN d.payment_method = 'cod' THEN ${COD_LINE} END AS cod_line`;

/** What a list shows of a delivery (toSummary, src/deliveries/views.ts): a page reads these columns only. */
export const SUMMARY_COLUMNS = `d.id, d.reference, d.status, d.livemode, c.name AS courier_name, d.origin, d.destination, d.parcel, d.quoted_fee_aoa,
  d.courier_tracking_ref, d.inserted_at, d.metadata`;
export type DeliverySummaryRow = Pick<
  DeliveryRow,
  | 'metadata'
  | 'id'
  | 'reference'
  | 'status'
  | 'livemode'
  | 'courier_name'
  | 'origin'
  | 'destination'
  | 'parcel'
  | 'quoted_fee_aoa'
  | 'courier_tracking_ref'
  | 'inserted_at'
>;

/** `d.id = $1`, and the scope's tenant and mode as $2 and $3 when there is one (a null scope reads any: public tracking). */
const SCOPED = '($2::uuid IS NULL OR (d.tenant_id = $2 AND d.livemode = $3))';
const scopeParams = (scope: Scope | null) => [scope?.tenantId ?? null, scope?.livemode ?? null];

/** A delivery of this scope, or null (unknown, malformed id, another tenant's or the other mode's). A null scope reads any (public tracking). */
export async function findDelivery(pool: Db, scope: Scope | null, id: string): Promise<DeliveryRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM deliveries d JOIN courier_companies c ON c.id = d.company_id
      WHERE d.id = $1 AND ${SCOPED}`,
    [id, ...scopeParams(scope)],
  );
  return rows[0] ?? null;
}

/**
 * A delivery of this tenant with its events, oldest first, read in one statement: one snapshot, so the status and the
 * events always agree (two queries could see a status change between them). Null as findDelivery.
 */
export async function findDeliveryWithEvents(
  pool: Pool,
  scope: Scope | null,
  id: string,
): Promise<{ delivery: DeliveryRow; events: DeliveryEventRow[] } | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<
    DeliveryRow & {
      e_id: string | null;
      e_type: EventType;
      e_at: Date;
      e_source: string | null;
      e_payload: DeliveryEventRow['payload'];
    }
  >(
    `SELECT ${DELIVERY_COLUMNS}, e.id AS e_id, e.event_type AS e_type, e.occurred_at AS e_at, e.source AS e_source, e.payload AS e_payload
       FROM deliveries d JOIN courier_companies c ON c.id = d.company_id
       LEFT JOIN delivery_events e ON e.delivery_id = d.id
      WHERE d.id = $1 AND ${SCOPED}
      ORDER BY e.occurred_at, e.seq`,
    [id, ...scopeParams(scope)],
  );
  if (rows.length === 0) return null;
  const { e_id: _id, e_type: _type, e_at: _at, e_source: _source, e_payload: _payload, ...delivery } = rows[0];
  const events = rows
    .filter((r) => r.e_id !== null)
    .map((r) => ({ id: r.e_id!, event_type: r.e_type, occurred_at: r.e_at, source: r.e_source, payload: r.e_payload }));
  return { delivery, events };
}

/** Events oldest first (ties broken by insertion order). */
export async function deliveryEvents(pool: Pool, deliveryId: string): Promise<DeliveryEventRow[]> {
  const { rows } = await pool.query<DeliveryEventRow>(
    'SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE delivery_id = $1 ORDER BY occurred_at, seq',
    [deliveryId],
  );
  return rows;
}

/** A delivery's status whatever its tenant (operators), or null when there is none. */
export async function deliveryStatus(pool: Pool, id: string): Promise<Status | null> {
  const { rows } = await pool.query<{ status: Status }>('SELECT status FROM deliveries WHERE id = $1', [id]);
  return rows[0]?.status ?? null;
}

/** The delivery a company's fleet event is about (courierWithFleetDelivery). */
export interface FleetEventDelivery {
  id: string;
  tenant_id: string;
  status: Status;
  delivery_pin: string | null;
  /** This webhook-id of the courier was taken before (fleet_webhook_receipts). */
  seen: boolean;
  /** The job is one the delivery moved away from (automatic failover: an earlier booking, superseded). */
  superseded: boolean;
}

/**
 * A fleet event's sender and, in the same round trip, the delivery its job names: the company by its slug (null when
 * there is none), and the delivery by the company's tracking ref, or by our reference before it has one, else the
 * delivery an earlier booking of the job was for (`superseded`), with whether the courier's webhook-id was taken
 * before (`seen`); `delivery` null when the job names none. The route checks the sender before it uses the delivery.
 */
export async function courierWithFleetDelivery(
  pool: Pool,
  slug: string,
  trackingRef: string,
  webhookId: string,
): Promise<{ courier: CourierRow; delivery: FleetEventDelivery | null } | null> {
  const { rows } = await pool.query<CourierRow & { fleet_delivery: FleetEventDelivery | null }>(
    `SELECT ${COURIER_COLUMNS},
            (SELECT row_to_json(fd) FROM (
               SELECT id, tenant_id, status, delivery_pin,
                      EXISTS (SELECT 1 FROM fleet_webhook_receipts r WHERE r.courier_id = c.id AND r.webhook_id = $3) AS seen,
                      NOT (company_id = c.id AND (courier_tracking_ref = $2 OR (courier_tracking_ref IS NULL AND reference = $2))) AS superseded
                 FROM deliveries
                WHERE (company_id = c.id AND (courier_tracking_ref = $2 OR (courier_tracking_ref IS NULL AND reference = $2)))
                   OR id = (SELECT delivery_id FROM delivery_bookings b WHERE b.company_id = c.id AND b.tracking_ref = $2)
                ORDER BY superseded LIMIT 1) fd) AS fleet_delivery
       FROM courier_companies c WHERE c.slug = $1`,
    [slug, trackingRef, webhookId],
  );
  if (!rows[0]) return null;
  const { fleet_delivery: delivery, ...courier } = rows[0];
  return { courier, delivery };
}

/** An event's mode: its delivery's, the delivery being parameter $2 of the statement. */
const EVENT_MODE = '(SELECT livemode FROM deliveries WHERE id = $2)';

/** Records an event that changes no status (occurred now). Its id is the caller's, so a retry records it once. */
export async function insertEventOnce(
  pool: Pool,
  event: {
    id: string;
    deliveryId: string;
    tenantId: string;
    eventType: string;
    source: string;
    payload: Record<string, unknown>;
  },
): Promise<void> {
  await pool.query(
    `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, source, payload, livemode) VALUES ($1, $2, $3, $4, $5, $6, ${EVENT_MODE})
     ON CONFLICT (id) DO NOTHING`,
    [event.id, event.deliveryId, event.tenantId, event.eventType, event.source, event.payload],
  );
}

/** The stored hash of a delivery's client secret (null: none, e.g. a delivery created with the secret key). */
export async function storedClientSecretHash(pool: Pool, scope: Scope, deliveryId: string): Promise<Buffer | null> {
  const { rows } = await pool.query<{ client_secret_hash: Buffer | null }>(
    'SELECT client_secret_hash FROM deliveries WHERE id = $1 AND tenant_id = $2 AND livemode = $3',
    [deliveryId, scope.tenantId, scope.livemode],
  );
  return rows[0]?.client_secret_hash ?? null;
}

/** What booking a delivery with its company needs (src/deliveries/dispatch.ts), whatever its tenant. */
export interface BookableDelivery {
  id: string;
  reference: string;
  livemode: boolean;
  origin: Address;
  destination: Address;
  parcel: Parcel;
  payment_method: PaymentMethod;
  cash_collect_aoa: number | null;
  /** As Postgres writes a timestamp in JSON (ISO 8601 with an offset). */
  scheduled_pickup_at: string | null;
  company_id: string;
  courier_tracking_ref: string | null;
}

/**
 * The delivery as booking it needs, with its company in the same round trip (null: the company is gone); null when
 * there is no such delivery.
 */
export async function bookableDelivery(
  pool: Pool,
  deliveryId: string,
): Promise<{ delivery: BookableDelivery; courier: CourierRow | null } | null> {
  const { rows } = await pool.query<CourierRow & { bookable: BookableDelivery }>(
    `SELECT ${COURIER_COLUMNS},
            json_build_object('id', d.id, 'reference', d.reference, 'livemode', d.livemode, 'origin', d.origin,
              'destination', d.destination, 'parcel', d.parcel, 'payment_method', d.payment_method,
              'cash_collect_aoa', d.cash_collect_aoa, 'scheduled_pickup_at', d.scheduled_pickup_at,
              'company_id', d.company_id, 'courier_tracking_ref', d.courier_tracking_ref) AS bookable
       FROM deliveries d LEFT JOIN courier_companies c ON c.id = d.company_id WHERE d.id = $1`,
    [deliveryId],
  );
  if (!rows[0]) return null;
  const { bookable, ...courier } = rows[0];
  return { delivery: bookable, courier: courier.id === null ? null : courier };
}

/**
 * Keeps the courier's job reference as soon as the courier has answered a booking, before the workflow records
 * `delivery.dispatched`: a courier that calls back at once (POST /v1/fleet/{slug}/events) finds its job even while
 * the worker is busy. Only for the company the booking was made with (an operator may have moved the delivery on).
 */
export async function rememberTrackingRef(
  pool: Pool,
  deliveryId: string,
  companyId: string,
  trackingRef: string,
): Promise<void> {
  // Every booking is kept (delivery_bookings): after an automatic failover the first company's late events are known.
  await pool.query(
    `WITH booking AS (
       INSERT INTO delivery_bookings (company_id, tracking_ref, delivery_id) VALUES ($2, $3, $1) ON CONFLICT DO NOTHING
     )
     UPDATE deliveries SET courier_tracking_ref = $3, updated_at = now() WHERE id = $1 AND company_id = $2`,
    [deliveryId, companyId, trackingRef],
  );
}

/** A delivery event as the workflow records it (its id is the workflow's, so a retry changes nothing). */
export interface RecordEventInput {
  deliveryId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
  occurredAt: string;
  source: string;
  payload: Record<string, unknown> | null;
  /** The new status; null records an event that changes no status (dispatched, ignored fleet events). */
  toStatus: Status | null;
  trackingRef?: string | null;
  companyId?: string;
  /** The delivery's fee from now on (automatic failover to another company). */
  quotedFeeAoa?: number;
}

/** Events that change no status, many in one statement, in the given order; ids are the caller's, so a retry inserts nothing twice. */
export async function recordIgnoredEvents(
  pool: Pool,
  input: {
    deliveryId: string;
    tenantId: string;
    events: {
      eventId: string;
      eventType: string;
      occurredAt: string;
      source: string;
      payload: Record<string, unknown>;
    }[];
  },
): Promise<{ inserted: number }> {
  const { rowCount } = await pool.query(
    `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, occurred_at, source, payload, livemode)
     SELECT e."eventId", $1::uuid, $2::uuid, e."eventType", e."occurredAt", e.source, e.payload, (SELECT livemode FROM deliveries WHERE id = $1::uuid)
       FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS ("eventId" uuid, "eventType" text, "occurredAt" timestamptz, source text, payload jsonb))
            WITH ORDINALITY AS e("eventId", "eventType", "occurredAt", source, payload, n)
      ORDER BY e.n
     ON CONFLICT (id) DO NOTHING`,
    [input.deliveryId, input.tenantId, JSON.stringify(input.events)],
  );
  return { inserted: rowCount ?? 0 };
}

/** Test helpers: the event a fleet event became once its workflow recorded it (the workflow keeps the webhook-id in the payload), or null. */
export async function eventOfFleetWebhook(
  pool: Pool,
  deliveryId: string,
  webhookId: string,
): Promise<DeliveryEventRow | null> {
  const { rows } = await pool.query<DeliveryEventRow>(
    `SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE delivery_id = $1 AND payload->>'webhook_id' = $2`,
    [deliveryId, webhookId],
  );
  return rows[0] ?? null;
}

/** What the recipients' tracking page shows beyond the public tracking view: the shop, its help contact, the quoted ETA. */
export interface TrackingPageExtras {
  shop_name: string;
  help_email: string | null;
  help_phone: string | null;
  help_url: string | null;
  quoted_eta_minutes: number | null;
  /** The recipient link's token (docs/recipients.md): compared, never shown. */
  recipient_token: string;
}

export async function trackingPageExtras(pool: Pool, deliveryId: string): Promise<TrackingPageExtras | null> {
  const { rows } = await pool.query<TrackingPageExtras>(
    `SELECT coalesce(t.display_name, t.name) AS shop_name, t.help_email, t.help_phone, t.help_url, q.eta_minutes AS quoted_eta_minutes,
            d.recipient_token
       FROM deliveries d JOIN tenants t ON t.id = d.tenant_id LEFT JOIN quotes q ON q.id = d.quote_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
}
