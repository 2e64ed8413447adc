// Deliveries and their events in the query model. The API's reads are scoped to a tenant and a mode (Scope: a test
// key's reads find test deliveries only, a live key's live ones); the worker's writes (recordEvent,
// recordIgnoredEvents) are keyed by the workflow's event ids, so a retried activity changes nothing twice. An event
// takes the mode of its delivery.
import type { Db, Pool, PoolClient } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { isUuid } from '../platform/uuid.js';
import type { Address, Parcel } from '../couriers/schemas.js';
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
}

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
  d.inserted_at, d.updated_at`;

/** What a list shows of a delivery (toSummary, src/deliveries/views.ts): a page reads these columns only. */
const SUMMARY_COLUMNS = `d.id, d.reference, d.status, d.livemode, c.name AS courier_name, d.origin, d.destination, d.parcel, d.quoted_fee_aoa,
  d.courier_tracking_ref, d.inserted_at`;
export type DeliverySummaryRow = Pick<
  DeliveryRow,
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
  companyId?: string;
  ascending: boolean;
  limit: number;
  offset: number;
}

/** One page of the scope's deliveries (tenant and mode), fetching one extra row to tell whether there are more. */
export async function listDeliveries(
  pool: Pool,
  scope: Scope,
  f: ListFilter,
): Promise<{ rows: DeliverySummaryRow[]; hasMore: boolean }> {
  const where = ['d.tenant_id = $1', 'd.livemode = $2'];
  const params: unknown[] = [scope.tenantId, scope.livemode];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.statuses?.length) add((p) => `d.status = ANY(${p}::text[])`, f.statuses);
  if (f.insertedFrom) add((p) => `d.inserted_at >= ${p}`, f.insertedFrom);
  if (f.insertedTo) add((p) => `d.inserted_at <= ${p}`, f.insertedTo);
  if (f.companyId) add((p) => `d.company_id = ${p}`, f.companyId);
  if (f.search) {
    add(
      (p) => `(${SEARCH_FIELDS.map((field) => `${field} LIKE ${p}`).join(' OR ')})`,
      `%${f.search.toLowerCase().replace(/[\\%_]/g, (m) => '\\' + m)}%`,
    );
  }
  const dir = f.ascending ? 'ASC' : 'DESC';
  params.push(f.limit + 1, f.offset);
  // Two steps: the page's ids from an index (an index-only scan for most shapes, deep offsets included),
  // then only those rows in full.
  const { rows } = await pool.query<DeliverySummaryRow>(
    `WITH page AS (
       SELECT d.id, d.inserted_at FROM deliveries d
        WHERE ${where.join(' AND ')}
        ORDER BY d.inserted_at ${dir}, d.id ${dir}
        LIMIT $${params.length - 1} OFFSET $${params.length})
     SELECT ${SUMMARY_COLUMNS} FROM page JOIN deliveries d ON d.id = page.id JOIN courier_companies c ON c.id = d.company_id
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
  webhookId: string,
): Promise<{
  id: string;
  tenant_id: string;
  status: Status;
  delivery_pin: string | null;
  seen: boolean;
  superseded: boolean;
} | null> {
  // With it, in the same round trip: whether this webhook-id of the courier was taken before (fleet_webhook_receipts),
  // and whether the job is one the delivery moved away from (automatic failover: an earlier booking, superseded).
  const { rows } = await pool.query<{
    id: string;
    tenant_id: string;
    status: Status;
    delivery_pin: string | null;
    seen: boolean;
    superseded: boolean;
  }>(
    `SELECT id, tenant_id, status, delivery_pin,
            EXISTS (SELECT 1 FROM fleet_webhook_receipts r WHERE r.courier_id = $1 AND r.webhook_id = $3) AS seen,
            NOT (company_id = $1 AND (courier_tracking_ref = $2 OR (courier_tracking_ref IS NULL AND reference = $2))) AS superseded
       FROM deliveries
      WHERE (company_id = $1 AND (courier_tracking_ref = $2 OR (courier_tracking_ref IS NULL AND reference = $2)))
         OR id = (SELECT delivery_id FROM delivery_bookings b WHERE b.company_id = $1 AND b.tracking_ref = $2)
      ORDER BY superseded LIMIT 1`,
    [companyId, trackingRef, webhookId],
  );
  return rows[0] ?? null;
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
  scheduled_pickup_at: Date | null;
  company_id: string;
  courier_tracking_ref: string | null;
}

export async function bookableDelivery(pool: Pool, deliveryId: string): Promise<BookableDelivery | null> {
  const { rows } = await pool.query<BookableDelivery>(
    `SELECT d.id, d.reference, d.livemode, d.origin, d.destination, d.parcel, d.payment_method, d.cash_collect_aoa,
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

/**
 * Records a workflow's event, on a client that holds the caller's transaction (src/webhooks/dispatcher.ts adds the
 * event's webhook message to it): inserts the event and applies the status change. Returns the delivery's mode, or
 * null, changing nothing, when the event id is recorded already (a retried activity).
 */
export async function insertEventAndStatus(
  client: PoolClient,
  input: RecordEventInput,
): Promise<{ livemode: boolean } | null> {
  // One round trip: the update runs only when the insert did (a retried event id changes nothing).
  const { rows } = await client.query<{ livemode: boolean }>(
    `WITH inserted AS (
       INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, occurred_at, source, payload, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${EVENT_MODE}) ON CONFLICT (id) DO NOTHING RETURNING delivery_id
     )
     UPDATE deliveries SET status = coalesce($8, status),
            courier_tracking_ref = CASE WHEN $9::boolean THEN $10 ELSE courier_tracking_ref END,
            company_id = coalesce($11, company_id), quoted_fee_aoa = coalesce($12, quoted_fee_aoa), updated_at = now()
      WHERE id = (SELECT delivery_id FROM inserted)
      RETURNING livemode`,
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
    ],
  );
  return rows[0] ?? null;
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

/** One event of one delivery of the tenant (the worker's read: with its mode), or null. */
export async function findEvent(
  pool: Pool,
  tenantId: string,
  deliveryId: string,
  eventId: string,
): Promise<(DeliveryEventRow & { livemode: boolean }) | null> {
  const { rows } = await pool.query<DeliveryEventRow & { livemode: boolean }>(
    'SELECT id, event_type, occurred_at, source, payload, livemode FROM delivery_events WHERE id = $1 AND delivery_id = $2 AND tenant_id = $3',
    [eventId, deliveryId, tenantId],
  );
  return rows[0] ?? null;
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

// --- Creating a delivery (src/deliveries/create.ts) and starting its workflow (src/deliveries/start.ts) ------------

/** The quote a creation consumes, locked (`FOR UPDATE`) until the creating transaction ends. */
export interface QuoteForDelivery {
  id: string;
  company_id: string;
  fee_aoa: number;
  eta_minutes: number;
  /** Past `valid_until` on the database clock, the one that stamped it (src/quotes/repository.ts). */
  expired: boolean;
  payload_hash: string;
  used_at: Date | null;
  slug: string;
  name: string;
  require_delivery_pin: boolean;
}

/** The scope's quote (a test quote is not found with a live key, nor the reverse). */
export async function lockQuoteForDelivery(
  client: PoolClient,
  scope: Scope,
  quoteId: string,
): Promise<QuoteForDelivery | null> {
  const { rows } = await client.query<QuoteForDelivery>(
    `SELECT q.id, q.company_id, q.fee_aoa, q.eta_minutes, q.valid_until < now() AS expired, q.payload_hash, q.used_at, c.slug, c.name,
            coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin
       FROM quotes q JOIN courier_companies c ON c.id = q.company_id
      WHERE q.id = $1 AND q.tenant_id = $2 AND q.livemode = $3 FOR UPDATE OF q`,
    [quoteId, scope.tenantId, scope.livemode],
  );
  return rows[0] ?? null;
}

/** The origin, destination and parcel a quote was made for, as stored. */
export async function quotedPayload(
  client: PoolClient,
  quoteId: string,
): Promise<{ origin: Address; destination: Address; parcel: Parcel }> {
  const { rows } = await client.query<{ origin: Address; destination: Address; parcel: Parcel }>(
    'SELECT origin, destination, parcel FROM quotes WHERE id = $1',
    [quoteId],
  );
  return rows[0];
}

/** A new delivery's row, as create.ts decided it: the stored columns of a DeliveryRow, and the ones only creation sets. */
export type NewDeliveryRow = Pick<
  DeliveryRow,
  | 'id'
  | 'tenant_id'
  | 'reference'
  | 'status'
  | 'livemode'
  | 'company_id'
  | 'origin'
  | 'destination'
  | 'parcel'
  | 'payment_method'
  | 'cash_collect_aoa'
  | 'quoted_fee_aoa'
  | 'delivery_pin'
  | 'metadata'
> & {
  quote_id: string;
  scheduled_pickup_at: string | null;
  scheduled_delivery_at: string | null;
  sla_deadline_at: Date;
  idempotency_key: string | null;
  /** sha256 of the request body's canonical JSON, beside idempotency_key: a reuse of the key with the same body replays. */
  idempotency_request_hash: string | null;
  client_secret_hash: Buffer | null;
};

/**
 * Inserts the delivery, marks its quote used and records `delivery.created`, on the creating transaction's client.
 * Returns the inserted row (without the courier's columns) and the event. The unique index on (tenant,
 * Idempotency-Key) makes the insert fail with constraint `deliveries_tenant_idempotency_key_idx` when the key made
 * another delivery (at any time: a delivery keeps its key).
 */
export async function insertDelivery(
  client: PoolClient,
  row: NewDeliveryRow,
  created: { eventId: string; source: string; payload: Record<string, unknown> },
): Promise<{
  row: Omit<DeliveryRow, 'courier_name' | 'courier_slug' | 'require_delivery_pin'>;
  event: DeliveryEventRow;
}> {
  const inserted = await client.query(
    `INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel, payment_method,
       cash_collect_aoa, quoted_fee_aoa, delivery_pin, scheduled_pickup_at, scheduled_delivery_at, sla_deadline_at, metadata, idempotency_key,
       client_secret_hash, livemode, idempotency_request_hash)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)
     RETURNING *`,
    [
      row.id,
      row.tenant_id,
      row.reference,
      row.status,
      row.company_id,
      row.quote_id,
      row.origin,
      row.destination,
      row.parcel,
      row.payment_method,
      row.cash_collect_aoa,
      row.quoted_fee_aoa,
      row.delivery_pin,
      row.scheduled_pickup_at,
      row.scheduled_delivery_at,
      row.sla_deadline_at,
      row.metadata,
      row.idempotency_key,
      row.client_secret_hash,
      row.livemode,
      row.idempotency_request_hash,
    ],
  );
  await client.query('UPDATE quotes SET used_at = now(), delivery_id = $2 WHERE id = $1', [row.quote_id, row.id]);
  const event = await client.query<DeliveryEventRow>(
    `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, source, payload, livemode) VALUES ($1, $2, $3, 'delivery.created', $4, $5, $6)
     RETURNING id, event_type, occurred_at, source, payload`,
    [created.eventId, row.id, row.tenant_id, created.source, created.payload, row.livemode],
  );
  return { row: inserted.rows[0], event: event.rows[0] };
}

/** What starting a delivery's workflow needs (src/deliveries/start.ts). */
export interface StartableDelivery {
  id: string;
  tenant_id: string;
  /** The delivery's mode: it takes the dispatch policy of that mode. */
  livemode: boolean;
  reference: string;
  company_id: string;
  courier_slug: string;
  require_delivery_pin: boolean;
  sla_deadline_at: Date | null;
  created_event_id: string;
  initial_status: Status;
}

/**
 * The delivery of this scope made under this Idempotency-Key, at any age (a delivery keeps its key), with its
 * `delivery.created` event and what tells whether a new request is the same one: the request hash stored with the key
 * (null on deliveries made before it was stored) and the quote. Null when the key made no delivery.
 */
export async function deliveryByIdempotencyKey(
  client: PoolClient,
  scope: Scope,
  idempotencyKey: string,
): Promise<{
  row: DeliveryRow & StartableDelivery;
  event: DeliveryEventRow;
  requestHash: string | null;
  quoteId: string;
} | null> {
  const { rows } = await client.query<
    DeliveryRow & StartableDelivery & { idempotency_request_hash: string | null; quote_id: string }
  >(
    `SELECT ${DELIVERY_COLUMNS}, d.idempotency_request_hash, d.quote_id, e.id AS created_event_id, e.payload->>'status' AS initial_status
       FROM deliveries d JOIN courier_companies c ON c.id = d.company_id
       JOIN delivery_events e ON e.delivery_id = d.id AND e.event_type = 'delivery.created'
      WHERE d.tenant_id = $1 AND d.livemode = $3 AND d.idempotency_key = $2`,
    [scope.tenantId, idempotencyKey, scope.livemode],
  );
  const found = rows[0];
  if (!found) return null;
  const { idempotency_request_hash: requestHash, quote_id: quoteId, ...row } = found;
  const events = await client.query<DeliveryEventRow>(
    'SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE id = $1',
    [row.created_event_id],
  );
  return { row, event: events.rows[0], requestHash, quoteId };
}

/** Notes that the delivery's workflow was started (the reconciler skips it from then on). */
export async function markWorkflowStarted(pool: Pool, deliveryId: string): Promise<void> {
  await pool.query('UPDATE deliveries SET workflow_started_at = now() WHERE id = $1 AND workflow_started_at IS NULL', [
    deliveryId,
  ]);
}

/** Deliveries committed without a started workflow (a crash between commit and start), oldest first; or just the one with `onlyId`. */
export async function unstartedDeliveries(
  pool: Pool,
  olderThanMs: number,
  limit = 100,
  onlyId: string | null = null,
): Promise<StartableDelivery[]> {
  const { rows } = await pool.query<StartableDelivery>(
    `SELECT d.id, d.tenant_id, d.livemode, d.reference, d.company_id, c.slug AS courier_slug,
            coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin,
            d.sla_deadline_at, e.id AS created_event_id, e.payload->>'status' AS initial_status
       FROM deliveries d
       JOIN courier_companies c ON c.id = d.company_id
       JOIN delivery_events e ON e.delivery_id = d.id AND e.event_type = 'delivery.created'
      WHERE d.workflow_started_at IS NULL AND d.inserted_at <= now() - make_interval(secs => $1::double precision / 1000)
        AND ($3::uuid IS NULL OR d.id = $3)
      ORDER BY d.inserted_at LIMIT $2`,
    [olderThanMs, limit, onlyId],
  );
  return rows;
}

/** Why and since when each of these deliveries is stalled (its latest `delivery.stalled` event), by id. */
export async function stalledSince(
  pool: Pool,
  ids: string[],
): Promise<Map<string, { reason: string | null; stalled_at: Date }>> {
  const { rows } = await pool.query<{ delivery_id: string; reason: string | null; stalled_at: Date }>(
    `SELECT DISTINCT ON (delivery_id) delivery_id, payload->>'reason' AS reason, occurred_at AS stalled_at
       FROM delivery_events WHERE delivery_id = ANY($1::uuid[]) AND event_type = 'delivery.stalled'
      ORDER BY delivery_id, occurred_at DESC, seq DESC`,
    [ids],
  );
  return new Map(rows.map((r) => [r.delivery_id, { reason: r.reason, stalled_at: r.stalled_at }]));
}

/** What the recipients' tracking page shows beyond the public tracking view: the shop, its help contact, the quoted ETA. */
export interface TrackingPageExtras {
  shop_name: string;
  help_email: string | null;
  help_phone: string | null;
  help_url: string | null;
  quoted_eta_minutes: number | null;
}

export async function trackingPageExtras(pool: Pool, deliveryId: string): Promise<TrackingPageExtras | null> {
  const { rows } = await pool.query<TrackingPageExtras>(
    `SELECT coalesce(t.display_name, t.name) AS shop_name, t.help_email, t.help_phone, t.help_url, q.eta_minutes AS quoted_eta_minutes
       FROM deliveries d JOIN tenants t ON t.id = d.tenant_id LEFT JOIN quotes q ON q.id = d.quote_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

/**
 * What automatic failover quotes again for a delivery: its tenant and mode, route, parcel, its current fee
 * (`quoted_fee_aoa`, which follows each redispatch) and the fee locked at creation (`locked_fee_aoa`: the fee of the
 * quote it was created from, `deliveries.quote_id`, which a redispatch never changes).
 */
export async function redispatchSource(
  pool: Pool,
  deliveryId: string,
): Promise<{
  tenant_id: string;
  livemode: boolean;
  origin: Address;
  destination: Address;
  parcel: Parcel;
  quoted_fee_aoa: number;
  locked_fee_aoa: number;
} | null> {
  const { rows } = await pool.query(
    `SELECT d.tenant_id, d.livemode, d.origin, d.destination, d.parcel, d.quoted_fee_aoa, q.fee_aoa AS locked_fee_aoa
       FROM deliveries d JOIN quotes q ON q.id = d.quote_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

/** The quote an automatic failover booked is used up by the delivery (it keeps its first quote as `quote_id`). */
export async function useQuoteForRedispatch(pool: Pool, quoteId: string, deliveryId: string): Promise<void> {
  await pool.query('UPDATE quotes SET used_at = now(), delivery_id = $2 WHERE id = $1 AND used_at IS NULL', [
    quoteId,
    deliveryId,
  ]);
}

/**
 * What restarting a delivery's closed workflow needs (src/deliveries/recovery.ts): how it starts, and its state now,
 * from the delivery row and its events; null when the delivery is final (nothing to restart) or unknown.
 */
export async function restartableDelivery(
  pool: Pool,
  deliveryId: string,
): Promise<
  | (StartableDelivery & {
      status: Status;
      courier_tracking_ref: string | null;
      previous_status: Status | null;
      changed_at: Date;
      workflow_restarts: number;
      /** Automatic failover: the companies it moved away from, oldest first (each delivery.redispatched with automatic: true). */
      redispatched_from: string[];
      /** When the current booking was made (delivery_bookings), for the assign timeout; null without one. */
      booked_at: Date | null;
    })
  | null
> {
  const { rows } = await pool.query(
    `SELECT d.id, d.tenant_id, d.livemode, d.reference, d.company_id, c.slug AS courier_slug,
            coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin,
            d.sla_deadline_at, e.id AS created_event_id, e.payload->>'status' AS initial_status,
            d.status, d.courier_tracking_ref, d.updated_at AS changed_at, d.workflow_restarts,
            (SELECT s.payload->>'previous_status' FROM delivery_events s WHERE s.delivery_id = d.id AND s.event_type = 'delivery.stalled'
              ORDER BY s.occurred_at DESC, s.seq DESC LIMIT 1) AS previous_status,
            ARRAY(SELECT r.payload->>'from_company_id' FROM delivery_events r
                   WHERE r.delivery_id = d.id AND r.event_type = 'delivery.redispatched' AND r.payload->>'automatic' = 'true'
                   ORDER BY r.occurred_at, r.seq) AS redispatched_from,
            (SELECT b.booked_at FROM delivery_bookings b
              WHERE b.delivery_id = d.id AND b.company_id = d.company_id AND b.tracking_ref = d.courier_tracking_ref) AS booked_at
       FROM deliveries d
       JOIN courier_companies c ON c.id = d.company_id
       JOIN delivery_events e ON e.delivery_id = d.id AND e.event_type = 'delivery.created'
      WHERE d.id = $1 AND d.status NOT IN ('delivered', 'cancelled', 'failed')`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

/** Counts a restart of the delivery's workflow (the reconciler gives up after a few). */
export async function countWorkflowRestart(pool: Pool, deliveryId: string): Promise<void> {
  await pool.query('UPDATE deliveries SET workflow_restarts = workflow_restarts + 1 WHERE id = $1', [deliveryId]);
}
