// Cash on delivery's SQL (migrations/1700000030000_cash-on-delivery.sql): the ledger's journal and entries
// (append-only), the collections, the remittances and their items, the remittance terms.
import type { Db, PoolClient } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import type { Account, Entry, JournalKind } from './ledger.js';

export const DEFAULT_TERMS_HOURS = 48;

export interface JournalInput {
  id: string;
  tenantId: string;
  livemode: boolean;
  companyId: string;
  kind: JournalKind;
  /** Unique per (tenant, mode): a replay with the same key books nothing. */
  key: string;
  deliveryId?: string | null;
  remittanceId?: string | null;
  memo?: Record<string, unknown>;
}

/** Books one journal transaction and its entries (in the caller's transaction); false when its key was booked. */
export async function bookTransaction(client: PoolClient, j: JournalInput, entries: Entry[]): Promise<boolean> {
  if (entries.length === 0) return false;
  const { rowCount } = await client.query(
    `INSERT INTO cod_journal (id, tenant_id, livemode, company_id, kind, idempotency_key, delivery_id, remittance_id, memo)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (tenant_id, livemode, idempotency_key) DO NOTHING`,
    [
      j.id,
      j.tenantId,
      j.livemode,
      j.companyId,
      j.kind,
      j.key,
      j.deliveryId ?? null,
      j.remittanceId ?? null,
      j.memo ?? {},
    ],
  );
  if (!rowCount) return false;
  await client.query(
    `INSERT INTO cod_entries (transaction_id, tenant_id, livemode, company_id, delivery_id, account, direction, amount_aoa)
     SELECT $1, $2, $3, $4, d, a, dir, amt
       FROM unnest($5::uuid[], $6::text[], $7::text[], $8::bigint[]) AS t(d, a, dir, amt)`,
    [
      j.id,
      j.tenantId,
      j.livemode,
      j.companyId,
      entries.map((e) => e.deliveryId),
      entries.map((e) => e.account),
      entries.map((e) => e.direction),
      entries.map((e) => e.amountAoa),
    ],
  );
  return true;
}

// --- Collections -------------------------------------------------------------------------------------------------

export interface CollectionTarget {
  tenant_id: string;
  livemode: boolean;
  company_id: string;
  payment_method: string;
  cash_collect_aoa: string | null;
  terms_hours: number;
}

/** The delivery as a collection needs it, with the remittance terms of its company for its tenant. */
export async function collectionTarget(db: Db, deliveryId: string): Promise<CollectionTarget | null> {
  const { rows } = await db.query<CollectionTarget>(
    `SELECT d.tenant_id, d.livemode, d.company_id, d.payment_method, d.cash_collect_aoa,
            coalesce(t.terms_hours, ${DEFAULT_TERMS_HOURS}) AS terms_hours
       FROM deliveries d
       LEFT JOIN cod_remittance_terms t ON t.tenant_id = d.tenant_id AND t.company_id = d.company_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

export interface CollectionRow {
  delivery_id: string;
  tenant_id: string;
  livemode: boolean;
  company_id: string;
  expected_aoa: string;
  collected_aoa: string;
  declared: boolean;
  collected_at: Date;
  due_at: Date;
  remittance_id: string | null;
}

/** Inserts a delivery's collection once; null when it was collected already. */
export async function insertCollection(
  client: PoolClient,
  c: Omit<CollectionRow, 'collected_at' | 'due_at' | 'remittance_id' | 'expected_aoa' | 'collected_aoa'> & {
    expected_aoa: number;
    collected_aoa: number;
    terms_hours: number;
  },
): Promise<CollectionRow | null> {
  const { rows } = await client.query<CollectionRow>(
    `INSERT INTO cod_collections (delivery_id, tenant_id, livemode, company_id, expected_aoa, collected_aoa, declared, due_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8 * interval '1 hour')
     ON CONFLICT (delivery_id) DO NOTHING RETURNING *`,
    [c.delivery_id, c.tenant_id, c.livemode, c.company_id, c.expected_aoa, c.collected_aoa, c.declared, c.terms_hours],
  );
  return rows[0] ?? null;
}

/** The collections of these deliveries, locked (in delivery id order, so two remittances never deadlock). */
export async function lockCollections(client: PoolClient, deliveryIds: string[]): Promise<CollectionRow[]> {
  const { rows } = await client.query<CollectionRow>(
    'SELECT * FROM cod_collections WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id FOR UPDATE',
    [deliveryIds],
  );
  return rows;
}

/** Points collections at the remittance that covers them (null: outstanding again, after a dispute). */
export async function setCollectionsRemittance(
  client: PoolClient,
  deliveryIds: string[],
  remittanceId: string | null,
): Promise<void> {
  await client.query('UPDATE cod_collections SET remittance_id = $2 WHERE delivery_id = ANY($1::uuid[])', [
    deliveryIds,
    remittanceId,
  ]);
}

/** The outstanding collections of a company in a scope (the test helper's remittance). */
export async function outstandingCollections(db: Db, scope: Scope, companyId: string): Promise<CollectionRow[]> {
  const { rows } = await db.query<CollectionRow>(
    `SELECT * FROM cod_collections WHERE tenant_id = $1 AND livemode = $2 AND company_id = $3 AND remittance_id IS NULL
      ORDER BY collected_at, delivery_id`,
    [scope.tenantId, scope.livemode, companyId],
  );
  return rows;
}

// --- Balances ----------------------------------------------------------------------------------------------------

export interface AccountNet {
  company_id: string;
  account: Account;
  net: string;
}

/** Net debits (debit - credit) per company and account of a scope: the balances' sums. */
export async function accountNets(db: Db, scope: Scope): Promise<AccountNet[]> {
  const { rows } = await db.query<AccountNet>(
    `SELECT company_id, account, sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END) AS net
       FROM cod_entries WHERE tenant_id = $1 AND livemode = $2 GROUP BY company_id, account`,
    [scope.tenantId, scope.livemode],
  );
  return rows;
}

export interface OutstandingSummary {
  company_id: string;
  company_name: string;
  overdue_aoa: string;
  oldest_outstanding_at: Date | null;
}

/** Per company of a scope: the companies it has collections with, overdue cash and the oldest outstanding one. */
export async function outstandingSummary(db: Db, scope: Scope): Promise<OutstandingSummary[]> {
  const { rows } = await db.query<OutstandingSummary>(
    `SELECT c.company_id, cc.name AS company_name,
            coalesce(sum(c.collected_aoa) FILTER (WHERE c.remittance_id IS NULL AND c.due_at <= now()), 0) AS overdue_aoa,
            min(c.collected_at) FILTER (WHERE c.remittance_id IS NULL AND c.collected_aoa > 0) AS oldest_outstanding_at
       FROM cod_collections c JOIN courier_companies cc ON cc.id = c.company_id
      WHERE c.tenant_id = $1 AND c.livemode = $2 GROUP BY c.company_id, cc.name ORDER BY cc.name, c.company_id`,
    [scope.tenantId, scope.livemode],
  );
  return rows;
}

// --- Overdue -----------------------------------------------------------------------------------------------------

/** Collections past due, not remitted and not yet announced, locked for this run (other runs skip them). */
export async function claimOverdue(client: PoolClient, limit: number): Promise<CollectionRow[]> {
  const { rows } = await client.query<CollectionRow>(
    `SELECT * FROM cod_collections
      WHERE remittance_id IS NULL AND overdue_notified_at IS NULL AND due_at <= now() AND collected_aoa > 0
      ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows;
}

export async function markOverdueNotified(client: PoolClient, deliveryIds: string[]): Promise<void> {
  await client.query('UPDATE cod_collections SET overdue_notified_at = now() WHERE delivery_id = ANY($1::uuid[])', [
    deliveryIds,
  ]);
}

/** Live overdue cash per company holding outstanding cash (0: outstanding, none overdue), for the Prometheus gauge. */
export async function overdueByCompany(db: Db): Promise<{ courier: string; overdue_aoa: number }[]> {
  const { rows } = await db.query<{ courier: string; overdue_aoa: number }>(
    `SELECT cc.slug AS courier, coalesce(sum(c.collected_aoa) FILTER (WHERE c.due_at <= now()), 0)::float8 AS overdue_aoa
       FROM cod_collections c JOIN courier_companies cc ON cc.id = c.company_id
      WHERE c.livemode AND c.remittance_id IS NULL GROUP BY cc.slug`,
  );
  return rows;
}

// --- Remittance terms --------------------------------------------------------------------------------------------

export async function termsOf(db: Db, tenantId: string): Promise<{ company_id: string; terms_hours: number }[]> {
  const { rows } = await db.query<{ company_id: string; terms_hours: number }>(
    'SELECT company_id, terms_hours FROM cod_remittance_terms WHERE tenant_id = $1 ORDER BY company_id',
    [tenantId],
  );
  return rows;
}

/** Sets (or, with null, resets to the default) the terms of a tenant's company. */
export async function setTerms(db: Db, tenantId: string, companyId: string, hours: number | null): Promise<void> {
  if (hours === null) {
    await db.query('DELETE FROM cod_remittance_terms WHERE tenant_id = $1 AND company_id = $2', [tenantId, companyId]);
    return;
  }
  await db.query(
    `INSERT INTO cod_remittance_terms (tenant_id, company_id, terms_hours) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, company_id) DO UPDATE SET terms_hours = EXCLUDED.terms_hours, updated_at = now()`,
    [tenantId, companyId, hours],
  );
}
