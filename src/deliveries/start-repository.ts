// The writes that make and (re)start a delivery: creating it from its quote (src/deliveries/create.ts), starting its
// workflow and finding the ones never started (src/deliveries/start.ts), redispatching after a failover
// (src/deliveries/failover.ts) and restarting a closed workflow (src/deliveries/recovery.ts). The reads of the API
// and the worker's event writes are in repository.ts.
import type { Pool, PoolClient } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import type { Address, Parcel } from '../couriers/schemas.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';
import { DELIVERY_COLUMNS, type DeliveryEventRow, type DeliveryRow } from './repository.js';
import { DISPATCH_POLICY_COLUMNS } from '../tenants/repository.js';
import { DEFAULT_DISPATCH_POLICY, type DispatchPolicy } from '../tenants/dispatch-policy.js';

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

/** What starting a new delivery's workflow reads, read by its creation (src/deliveries/start.ts). */
export interface StartContext {
  /** The tenant's dispatch policy of the delivery's mode (the defaults when it never set one). */
  policy: DispatchPolicy;
  facts: WorkflowSummaryFacts | null;
}

/**
 * Inserts the delivery, marks its quote used and records `delivery.created`, on the creating transaction's client, in
 * one statement that also reads what starting its workflow needs (the tenant's dispatch policy, the Temporal UI's
 * facts): one round trip where there were five (docs/operations.md "Postgres round trips"). Returns the inserted row
 * (without the courier's columns), the event and that context. The unique index on (tenant, Idempotency-Key) makes the
 * insert fail with constraint `deliveries_tenant_idempotency_key_idx` when the key made another delivery (at any time:
 * a delivery keeps its key).
 */
export async function insertDelivery(
  client: PoolClient,
  row: NewDeliveryRow,
  created: { eventId: string; source: string; payload: Record<string, unknown> },
): Promise<{
  row: Omit<DeliveryRow, 'courier_name' | 'courier_slug' | 'require_delivery_pin'>;
  event: DeliveryEventRow;
  start: StartContext;
}> {
  // The event names the new delivery by its id: Postgres checks its foreign key at the end of the statement, when the
  // delivery's row is in.
  const { rows } = await client.query(
    `WITH d AS (
       INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel, payment_method,
         cash_collect_aoa, quoted_fee_aoa, delivery_pin, scheduled_pickup_at, scheduled_delivery_at, sla_deadline_at, metadata, idempotency_key,
         client_secret_hash, livemode, idempotency_request_hash)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)
       RETURNING *
     ), used AS (
       UPDATE quotes SET used_at = now(), delivery_id = $1 WHERE id = $6
     ), e AS (
       INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, source, payload, livemode)
       VALUES ($22, $1, $2, 'delivery.created', $23, $24, $20)
       RETURNING id, event_type, occurred_at, source, payload
     )
     SELECT d.*, e.id AS created_e_id, e.event_type AS created_e_type, e.occurred_at AS created_e_at,
            e.source AS created_e_source, e.payload AS created_e_payload,
            (SELECT to_json(f) FROM (SELECT ${WORKFLOW_SUMMARY_FACTS}
                                       FROM tenants t, courier_companies c WHERE t.id = d.tenant_id AND c.id = d.company_id) f)
              AS start_facts,
            (SELECT to_json(p) FROM (SELECT ${DISPATCH_POLICY_COLUMNS} FROM tenant_dispatch_policies
                                      WHERE tenant_id = d.tenant_id AND livemode = d.livemode) p) AS start_policy
       FROM d, e`,
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
      created.eventId,
      created.source,
      created.payload,
    ],
  );
  const {
    created_e_id: id,
    created_e_type: event_type,
    created_e_at: occurred_at,
    created_e_source: source,
    created_e_payload: payload,
    start_facts: facts,
    start_policy: policy,
    ...inserted
  } = rows[0];
  return {
    row: inserted,
    event: { id, event_type, occurred_at, source, payload },
    start: { policy: policy ?? { ...DEFAULT_DISPATCH_POLICY }, facts },
  };
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
  /** A return to sender: the delivery it brings back (absent or null otherwise). */
  return_of?: string | null;
  /** The delivery's payment method (cash on delivery books its collection); absent: the workflow asks at delivery. */
  payment_method?: string;
}

/** What a delivery's workflow summary and details show (src/deliveries/workflow-summary.ts), as it stands now. */
export interface WorkflowSummaryFacts {
  delivery_id: string;
  reference: string;
  tenant_id: string;
  /** The shop's name as customers know it (tenants.display_name), else the tenant's name. */
  shop_name: string;
  livemode: boolean;
  courier_name: string;
  courier_slug: string;
  origin: { city: string | null; province: string | null };
  destination: { city: string | null; province: string | null };
  weight_grams: number;
  payment_method: string | null;
  quoted_fee_aoa: number;
  cash_collect_aoa: number | null;
  return_of: string | null;
}

/** WorkflowSummaryFacts' columns, of the delivery `d`, its tenant `t` and its company `c`. */
const WORKFLOW_SUMMARY_FACTS = `d.id AS delivery_id, d.reference, d.tenant_id, coalesce(t.display_name, t.name) AS shop_name,
  d.livemode, c.name AS courier_name, c.slug AS courier_slug,
  json_build_object('city', d.origin->>'city', 'province', d.origin->>'province') AS origin,
  json_build_object('city', d.destination->>'city', 'province', d.destination->>'province') AS destination,
  (d.parcel->>'weight_grams')::int AS weight_grams, d.payment_method, d.quoted_fee_aoa, d.cash_collect_aoa, d.return_of`;

export async function workflowSummaryFacts(pool: Pool, deliveryId: string): Promise<WorkflowSummaryFacts | null> {
  const { rows } = await pool.query<WorkflowSummaryFacts>(
    `SELECT ${WORKFLOW_SUMMARY_FACTS}
       FROM deliveries d JOIN tenants t ON t.id = d.tenant_id JOIN courier_companies c ON c.id = d.company_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
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

/**
 * Notes that the delivery's workflow was started (the reconciler skips it from then on). Guards here written
 * `(...) IS TRUE` keep Postgres on the primary key, not a partial index (docs/operations.md "A guard by its primary key").
 */
export async function markWorkflowStarted(pool: Pool, deliveryId: string): Promise<void> {
  await pool.query(
    'UPDATE deliveries SET workflow_started_at = now() WHERE id = $1 AND (workflow_started_at IS NULL) IS TRUE',
    [deliveryId],
  );
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
            d.sla_deadline_at, e.id AS created_event_id, e.payload->>'status' AS initial_status, d.return_of,
            d.payment_method
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
  await pool.query('UPDATE quotes SET used_at = now(), delivery_id = $2 WHERE id = $1 AND (used_at IS NULL) IS TRUE', [
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
            d.sla_deadline_at, e.id AS created_event_id, e.payload->>'status' AS initial_status, d.payment_method,
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
      WHERE d.id = $1 AND (d.status NOT IN ('delivered', 'cancelled', 'failed')) IS TRUE`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

/** Counts a restart of the delivery's workflow (the reconciler gives up after a few). */
export async function countWorkflowRestart(pool: Pool, deliveryId: string): Promise<void> {
  await pool.query('UPDATE deliveries SET workflow_restarts = workflow_restarts + 1 WHERE id = $1', [deliveryId]);
}
