// Reading deliveries and their events from the query model. Every read is scoped to a tenant.
import type { Pool } from '../db.js';
import type { Address, Parcel } from '../schemas.js';
import type { PaymentMethod, Status } from '../../workflows/deliveries/states.js';

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
  event_type: string;
  occurred_at: Date;
  source: string | null;
  payload: Record<string, unknown> | null;
}

export const DELIVERY_COLUMNS = `d.id, d.tenant_id, d.reference, d.status, d.company_id, c.name AS courier_name, c.slug AS courier_slug,
  coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin,
  d.origin, d.destination, d.parcel, d.payment_method, d.cash_collect_aoa, d.quoted_fee_aoa, d.courier_tracking_ref,
  d.delivery_pin, d.scheduled_pickup_at, d.scheduled_delivery_at, d.sla_deadline_at, d.metadata, d.workflow_started_at,
  d.inserted_at, d.updated_at`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

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

/** Events oldest first (ties broken by insertion order). */
export async function deliveryEvents(pool: Pool, deliveryId: string): Promise<DeliveryEventRow[]> {
  const { rows } = await pool.query<DeliveryEventRow>(
    'SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE delivery_id = $1 ORDER BY occurred_at, seq',
    [deliveryId],
  );
  return rows;
}

/** The expression the trigram index covers; the search filter must use it verbatim. */
export const SEARCH_EXPRESSION = `lower(d.reference || ' ' || (d.origin->>'city') || ' ' || (d.destination->>'city') || ' ' ||
         (d.origin->>'address_line') || ' ' || (d.destination->>'address_line'))`;

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
  if (f.search) add((p) => `${SEARCH_EXPRESSION} LIKE ${p}`, `%${f.search.toLowerCase().replace(/[\\%_]/g, (m) => '\\' + m)}%`);
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
