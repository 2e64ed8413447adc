// Deliveries and their events in the query model. The API's reads are scoped to a tenant; the worker's writes
// (recordEvent, recordIgnoredEvents) are keyed by the workflow's event ids, so a retried activity changes nothing twice.
import { inTransaction, type Pool } from '../db.js';
import { isUuid } from '../lib/uuid.js';
import type { Address, Parcel } from '../schemas.js';
import type { EventType, PaymentMethod, Status } from '../../workflows/deliveries/states.js';

export interface DeliveryRow {
  id: string;
  tenant_id: string;
  reference: string;
  status: Status;
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
}

export interface DeliveryEventRow {
  id: string;
  event_type: EventType;
  occurred_at: Date;
  source: string | null;
  payload: Record<string, unknown> | null;
}

export const DELIVERY_COLUMNS = `d.id, d.tenant_id, d.reference, d.status, d.company_id, c.name AS courier_name, c.slug AS courier_slug,
  coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin,
  d.origin, d.destination, d.parcel, d.payment_method, d.cash_collect_aoa, d.quoted_fee_aoa, d.courier_tracking_ref,
  d.delivery_pin, d.scheduled_pickup_at, d.scheduled_delivery_at, d.sla_deadline_at, d.metadata, d.workflow_started_at,
  d.inserted_at, d.updated_at`;

/** A delivery of this tenant, or null (unknown, malformed id, or another tenant's). A null tenant reads any (public tracking). */
export async function findDelivery(pool: Pool, tenantId: string | null, id: string): Promise<DeliveryRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM deliveries d JOIN courier_companies c ON c.id = d.company_id
      WHERE d.id = $1 AND ($2::uuid IS NULL OR d.tenant_id = $2)`,
    [id, tenantId],
  );
  return rows[0] ?? null;
}

/**
 * A delivery of this tenant with its events, oldest first, read in one statement: one snapshot, so the status and the
 * events always agree (two queries could see a status change between them). Null as findDelivery.
 */
export async function findDeliveryWithEvents(
  pool: Pool,
  tenantId: string | null,
  id: string,
): Promise<{ delivery: DeliveryRow; events: DeliveryEventRow[] } | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<
    DeliveryRow & { e_id: string | null; e_type: EventType; e_at: Date; e_source: string | null; e_payload: DeliveryEventRow['payload'] }
  >(
    `SELECT ${DELIVERY_COLUMNS}, e.id AS e_id, e.event_type AS e_type, e.occurred_at AS e_at, e.source AS e_source, e.payload AS e_payload
       FROM deliveries d JOIN courier_companies c ON c.id = d.company_id
       LEFT JOIN delivery_events e ON e.delivery_id = d.id
      WHERE d.id = $1 AND ($2::uuid IS NULL OR d.tenant_id = $2)
      ORDER BY e.occurred_at, e.seq`,
    [id, tenantId],
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

/**
 * The fields `search` looks in, one at a time: a term matches when it is a substring of one of them, never across
 * two ("Luanda Rua" does not match a delivery from Luanda whose address line starts with Rua). Each expression is
 * a column of the trigram index (migrations/1700000001600_search-per-field.sql); the filter must use them verbatim.
 */
const SEARCH_FIELDS = [
  'lower(d.reference)',
  "lower(d.origin->>'city')",
  "lower(d.destination->>'city')",
  "lower(d.origin->>'address_line')",
  "lower(d.destination->>'address_line')",
];

export interface ListFilter {
  statuses?: Status[];
  insertedFrom?: Date;
  insertedTo?: Date;
  search?: string;
  ascending: boolean;
  limit: number;
  offset: number;
}

/** One page of the tenant's deliveries, fetching one extra row to tell whether there are more. */
export async function listDeliveries(pool: Pool, tenantId: string, f: ListFilter): Promise<{ rows: DeliveryRow[]; hasMore: boolean }> {
  const where = ['d.tenant_id = $1'];
  const params: unknown[] = [tenantId];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.statuses?.length) add((p) => `d.status = ANY(${p}::text[])`, f.statuses);
  if (f.insertedFrom) add((p) => `d.inserted_at >= ${p}`, f.insertedFrom);
  if (f.insertedTo) add((p) => `d.inserted_at <= ${p}`, f.insertedTo);
  if (f.search) {
    add((p) => `(${SEARCH_FIELDS.map((field) => `${field} LIKE ${p}`).join(' OR ')})`, `%${f.search.toLowerCase().replace(/[\\%_]/g, (m) => '\\' + m)}%`);
  }
  const dir = f.ascending ? 'ASC' : 'DESC';
  params.push(f.limit + 1, f.offset);
  // Two steps: the page's ids from an index (an index-only scan for most shapes, deep offsets included),
  // then only those rows in full.
  const { rows } = await pool.query<DeliveryRow>(
    `WITH page AS (
       SELECT d.id, d.inserted_at FROM deliveries d
        WHERE ${where.join(' AND ')}
        ORDER BY d.inserted_at ${dir}, d.id ${dir}
        LIMIT $${params.length - 1} OFFSET $${params.length})
     SELECT ${DELIVERY_COLUMNS} FROM page JOIN deliveries d ON d.id = page.id JOIN courier_companies c ON c.id = d.company_id
      ORDER BY page.inserted_at ${dir}, page.id ${dir}`,
    params,
  );
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** A delivery's status whatever its tenant (operators), or null when there is none. */
export async function deliveryStatus(pool: Pool, id: string): Promise<Status | null> {
  const { rows } = await pool.query<{ status: Status }>('SELECT status FROM deliveries WHERE id = $1', [id]);
  return rows[0]?.status ?? null;
}

/** The delivery a company's fleet event is about: by the company's tracking ref, or by our reference before it has one. */
export async function deliveryForFleetEvent(
  pool: Pool,
  companyId: string,
  trackingRef: string,
): Promise<{ id: string; tenant_id: string; status: Status; delivery_pin: string | null } | null> {
  const { rows } = await pool.query<{ id: string; tenant_id: string; status: Status; delivery_pin: string | null }>(
    `SELECT id, tenant_id, status, delivery_pin FROM deliveries
      WHERE company_id = $1 AND (courier_tracking_ref = $2 OR (courier_tracking_ref IS NULL AND reference = $2))`,
    [companyId, trackingRef],
  );
  return rows[0] ?? null;
}

/** Records an event that changes no status (occurred now). Its id is the caller's, so a retry records it once. */
export async function insertEventOnce(
  pool: Pool,
  event: { id: string; deliveryId: string; tenantId: string; eventType: string; source: string; payload: Record<string, unknown> },
): Promise<void> {
  await pool.query(
    `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, source, payload) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING`,
    [event.id, event.deliveryId, event.tenantId, event.eventType, event.source, event.payload],
  );
}

/** The stored hash of a delivery's client secret (null: none, e.g. a delivery created with the secret key). */
export async function storedClientSecretHash(pool: Pool, tenantId: string, deliveryId: string): Promise<Buffer | null> {
  const { rows } = await pool.query<{ client_secret_hash: Buffer | null }>('SELECT client_secret_hash FROM deliveries WHERE id = $1 AND tenant_id = $2', [
    deliveryId,
    tenantId,
  ]);
  return rows[0]?.client_secret_hash ?? null;
}

/** What booking a delivery with its company needs (src/deliveries/dispatch.ts), whatever its tenant. */
export interface BookableDelivery {
  id: string;
  reference: string;
  origin: Address;
  destination: Address;
  parcel: Parcel;
  payment_method: PaymentMethod;
  cash_collect_aoa: number | null;
  scheduled_pickup_at: Date | null;
  company_id: string;
  courier_tracking_ref: string | null;
}

export async function bookableDelivery(pool: Pool, deliveryId: string): Promise<BookableDelivery | null> {
  const { rows } = await pool.query<BookableDelivery>(
    `SELECT d.id, d.reference, d.origin, d.destination, d.parcel, d.payment_method, d.cash_collect_aoa,
            d.scheduled_pickup_at, d.company_id, d.courier_tracking_ref
       FROM deliveries d WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

/**
 * Keeps the courier's job reference as soon as the courier has answered a booking, before the workflow records
 * `delivery.dispatched`: a courier that calls back at once (POST /v1/fleet/{slug}/events) finds its job even while
 * the worker is busy. Only for the company the booking was made with (an operator may have moved the delivery on).
 */
export async function rememberTrackingRef(pool: Pool, deliveryId: string, companyId: string, trackingRef: string): Promise<void> {
  await pool.query('UPDATE deliveries SET courier_tracking_ref = $3, updated_at = now() WHERE id = $1 AND company_id = $2', [
    deliveryId,
    companyId,
    trackingRef,
  ]);
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
}

/** Inserts the event and applies the status change in one transaction. A retry with the same event id changes nothing. */
export async function recordEvent(pool: Pool, input: RecordEventInput): Promise<{ inserted: boolean }> {
  return inTransaction(pool, async (client) => {
    const inserted = await client.query(
      `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, occurred_at, source, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
      [input.eventId, input.deliveryId, input.tenantId, input.eventType, input.occurredAt, input.source, input.payload],
    );
    if (inserted.rowCount === 0) return { inserted: false };
    await client.query(
      `UPDATE deliveries SET status = coalesce($2, status),
              courier_tracking_ref = CASE WHEN $3::boolean THEN $4 ELSE courier_tracking_ref END,
              company_id = coalesce($5, company_id), updated_at = now()
        WHERE id = $1`,
      [input.deliveryId, input.toStatus, input.trackingRef !== undefined, input.trackingRef ?? null, input.companyId ?? null],
    );
    return { inserted: true };
  });
}

/** Events that change no status, many in one statement, in the given order; ids are the caller's, so a retry inserts nothing twice. */
export async function recordIgnoredEvents(
  pool: Pool,
  input: {
    deliveryId: string;
    tenantId: string;
    events: { eventId: string; eventType: string; occurredAt: string; source: string; payload: Record<string, unknown> }[];
  },
): Promise<{ inserted: number }> {
  const { rowCount } = await pool.query(
    `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, occurred_at, source, payload)
     SELECT e."eventId", $1::uuid, $2::uuid, e."eventType", e."occurredAt", e.source, e.payload
       FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS ("eventId" uuid, "eventType" text, "occurredAt" timestamptz, source text, payload jsonb))
            WITH ORDINALITY AS e("eventId", "eventType", "occurredAt", source, payload, n)
      ORDER BY e.n
     ON CONFLICT (id) DO NOTHING`,
    [input.deliveryId, input.tenantId, JSON.stringify(input.events)],
  );
  return { inserted: rowCount ?? 0 };
}

/** One event of one delivery of the tenant, or null. */
export async function findEvent(pool: Pool, tenantId: string, deliveryId: string, eventId: string): Promise<DeliveryEventRow | null> {
  const { rows } = await pool.query<DeliveryEventRow>(
    'SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE id = $1 AND delivery_id = $2 AND tenant_id = $3',
    [eventId, deliveryId, tenantId],
  );
  return rows[0] ?? null;
}
