// Cash on delivery's remittances in SQL (migrations/1700000030000_cash-on-delivery.sql): the remittances a courier
// reported or a merchant recorded, and their items.
import type { Db, PoolClient } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';

// --- Remittances -------------------------------------------------------------------------------------------------

export type RemittanceStatus = 'reported' | 'confirmed' | 'disputed';

export interface RemittanceRow {
  id: string;
  tenant_id: string;
  livemode: boolean;
  company_id: string;
  company_name: string;
  remittance_ref: string | null;
  source: 'courier' | 'merchant' | 'test_helper';
  status: RemittanceStatus;
  method: string;
  bank_reference: string | null;
  paid_at: Date;
  total_aoa: string;
  fee_deducted_aoa: string;
  request_hash: string;
  dispute_reason: string | null;
  created_at: Date;
  confirmed_at: Date | null;
  disputed_at: Date | null;
}

export interface RemittanceItemRow {
  remittance_id: string;
  delivery_id: string;
  position: number;
  tracking_ref: string;
  amount_aoa: string;
  fee_deducted_aoa: string;
}

const REMITTANCE = `SELECT r.*, c.name AS company_name FROM cod_remittances r JOIN courier_companies c ON c.id = r.company_id`;

/** Serialises the remittances of one (company, remittance_ref) until the caller's transaction ends. */
export async function lockRemittanceRef(client: PoolClient, companyId: string, ref: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 28))', [`cod:${companyId}:${ref}`]);
}

export async function remittanceByRef(db: Db, companyId: string, ref: string): Promise<RemittanceRow | null> {
  const { rows } = await db.query<RemittanceRow>(`${REMITTANCE} WHERE r.company_id = $1 AND r.remittance_ref = $2`, [
    companyId,
    ref,
  ]);
  return rows[0] ?? null;
}

export async function insertRemittance(
  client: PoolClient,
  r: Omit<RemittanceRow, 'company_name' | 'created_at' | 'confirmed_at' | 'disputed_at' | 'dispute_reason'>,
  items: Omit<RemittanceItemRow, 'remittance_id'>[],
): Promise<void> {
  await client.query(
    `INSERT INTO cod_remittances (id, tenant_id, livemode, company_id, remittance_ref, source, status, method, bank_reference,
                                  paid_at, total_aoa, fee_deducted_aoa, request_hash, confirmed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $7 = 'confirmed' THEN now() END)`,
    [
      r.id,
      r.tenant_id,
      r.livemode,
      r.company_id,
      r.remittance_ref,
      r.source,
      r.status,
      r.method,
      r.bank_reference,
      r.paid_at,
      r.total_aoa,
      r.fee_deducted_aoa,
      r.request_hash,
    ],
  );
  await client.query(
    `INSERT INTO cod_remittance_items (remittance_id, delivery_id, position, tracking_ref, amount_aoa, fee_deducted_aoa)
     SELECT $1, d, p, t, a, f FROM unnest($2::uuid[], $3::int[], $4::text[], $5::bigint[], $6::bigint[]) AS x(d, p, t, a, f)`,
    [
      r.id,
      items.map((i) => i.delivery_id),
      items.map((i) => i.position),
      items.map((i) => i.tracking_ref),
      items.map((i) => i.amount_aoa),
      items.map((i) => i.fee_deducted_aoa),
    ],
  );
}

/** A scope's remittance (locked with `forUpdate`, in the caller's transaction). */
export async function remittanceById(
  db: Db,
  scope: Scope,
  id: string,
  forUpdate = false,
): Promise<RemittanceRow | null> {
  const { rows } = await db.query<RemittanceRow>(
    `${REMITTANCE} WHERE r.id = $1 AND r.tenant_id = $2 AND r.livemode = $3${forUpdate ? ' FOR UPDATE OF r' : ''}`,
    [id, scope.tenantId, scope.livemode],
  );
  return rows[0] ?? null;
}

export async function itemsOf(db: Db, remittanceIds: string[]): Promise<RemittanceItemRow[]> {
  const { rows } = await db.query<RemittanceItemRow>(
    'SELECT * FROM cod_remittance_items WHERE remittance_id = ANY($1::uuid[]) ORDER BY remittance_id, position',
    [remittanceIds],
  );
  return rows;
}

/** Moves a `reported` remittance to `confirmed` or `disputed`; null when it is no longer `reported`. */
export async function settleRemittance(
  client: PoolClient,
  id: string,
  status: 'confirmed' | 'disputed',
  reason: string | null,
): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE cod_remittances SET status = $2, dispute_reason = $3,
            confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END, disputed_at = CASE WHEN $2 = 'disputed' THEN now() END
      WHERE id = $1 AND status = 'reported'`,
    [id, status, reason],
  );
  return rowCount === 1;
}

export interface RemittanceFilter {
  companyId?: string;
  status?: RemittanceStatus;
  createdGte?: Date;
  createdLt?: Date;
}

function filterSql(scope: Scope, f: RemittanceFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [scope.tenantId, scope.livemode];
  const where = ['r.tenant_id = $1', 'r.livemode = $2'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (f.companyId) add('r.company_id = ?', f.companyId);
  if (f.status) add('r.status = ?', f.status);
  if (f.createdGte) add('r.created_at >= ?', f.createdGte);
  if (f.createdLt) add('r.created_at < ?', f.createdLt);
  return { where: where.join(' AND '), params };
}

/** A page of a scope's remittances, newest first. */
export async function listRemittances(
  db: Db,
  scope: Scope,
  f: RemittanceFilter,
  limit: number,
  offset: number,
): Promise<{ rows: RemittanceRow[]; hasMore: boolean }> {
  const { where, params } = filterSql(scope, f);
  const { rows } = await db.query<RemittanceRow>(
    `${REMITTANCE} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit + 1} OFFSET ${offset}`,
    params,
  );
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export interface StatementLine extends RemittanceItemRow {
  remittance_ref: string | null;
  company_id: string;
  company_name: string;
  status: RemittanceStatus;
  method: string;
  bank_reference: string | null;
  paid_at: Date;
  created_at: Date;
  reference: string;
}

/** Every item of a scope's remittances matching the filter, oldest first (the CSV statement). */
export async function statementLines(db: Db, scope: Scope, f: RemittanceFilter): Promise<StatementLine[]> {
  const { where, params } = filterSql(scope, f);
  const { rows } = await db.query<StatementLine>(
    `SELECT i.*, r.remittance_ref, r.company_id, c.name AS company_name, r.status, r.method, r.bank_reference, r.paid_at,
            r.created_at, d.reference
       FROM cod_remittances r JOIN courier_companies c ON c.id = r.company_id
       JOIN cod_remittance_items i ON i.remittance_id = r.id JOIN deliveries d ON d.id = i.delivery_id
      WHERE ${where} ORDER BY r.created_at, r.id, i.position LIMIT 100000`,
    params,
  );
  return rows;
}

// --- The deliveries a remittance names ---------------------------------------------------------------------------

export interface RemittableDelivery {
  id: string;
  tenant_id: string;
  livemode: boolean;
  company_id: string;
  tracking_ref: string;
  payment_method: string;
  quoted_fee_aoa: string;
}

/** The company's deliveries with these tracking refs (their current or an earlier booking with that company). */
export async function deliveriesByTrackingRef(
  db: Db,
  companyId: string,
  trackingRefs: string[],
): Promise<RemittableDelivery[]> {
  const { rows } = await db.query<RemittableDelivery>(
    `SELECT d.id, d.tenant_id, d.livemode, d.company_id, d.courier_tracking_ref AS tracking_ref, d.payment_method,
            d.quoted_fee_aoa
       FROM deliveries d WHERE d.company_id = $1 AND d.courier_tracking_ref = ANY($2::text[])`,
    [companyId, trackingRefs],
  );
  return rows;
}

/** A scope's deliveries with these ids (the merchant's remittance may name deliveries by id). */
export async function deliveriesById(db: Db, scope: Scope, ids: string[]): Promise<RemittableDelivery[]> {
  const { rows } = await db.query<RemittableDelivery>(
    `SELECT d.id, d.tenant_id, d.livemode, d.company_id, coalesce(d.courier_tracking_ref, '') AS tracking_ref,
            d.payment_method, d.quoted_fee_aoa
       FROM deliveries d WHERE d.tenant_id = $1 AND d.livemode = $2 AND d.id = ANY($3::uuid[])`,
    [scope.tenantId, scope.livemode, ids],
  );
  return rows;
}
