// Bulk-loads the cash-on-delivery ledger for bench/cod.ts with generate_series, following
// migrations/1700000030000_cash-on-delivery.sql and the bookings of src/cod/ledger.ts: each delivery (cod, delivered,
// with its used quote) has its collection (cod_collections and a `collection` journal transaction), and by its pattern
// a remittance covering it (recorded by the merchant: confirmed at once; reported by the courier: in transit, some
// confirmed since), with or without the courier's fee kept out of the cash (a `fee_deduction` transaction). Patterns,
// by block of tenants x companies deliveries (so every tenant and company gets each):
//   0, 1, 7  collected only (outstanding)        2 entries
//   2        merchant's record                   4
//   3        merchant's record, fee kept         6
//   4        courier's report                    4
//   5        courier's report, confirmed         6
//   6        courier's report, fee kept          6          (4 entries per delivery on average)
// The ledger's own triggers (entries join an open transaction, every transaction balances at commit) are off during
// the load and back on after it; ledgerFigures() then checks every transaction balances, in SQL.
import type { Pool } from '../src/platform/db.js';

const FEE_KEPT = 50_000; // 500 Kz, below every delivery's locked fee and cash

/** A version-4 UUID made from the md5 of a text (the API's schemas take only RFC 9562 UUIDs). */
const uuidOf = (text: string) => `overlay(overlay(md5(${text}) placing '4' from 13) placing '8' from 17)::uuid`;

export interface LedgerLoad {
  tenants: string[];
  companies: string[];
  /** About this many ledger entries (rounded up to whole blocks of the patterns)... */
  entries?: number;
  /** ...or exactly this many deliveries. */
  deliveries?: number;
  /** Every delivery collected and outstanding (the remittance benchmark's). */
  outstandingOnly?: boolean;
}

const PLAN = `
CREATE UNLOGGED TABLE bench_cod_plan AS
SELECT g, t.tenant_id, c.company_id,
       ${uuidOf("'bench-cod-delivery:' || g || ':' || $5")} AS delivery_id,
       ${uuidOf("'bench-cod-quote:' || g || ':' || $5")} AS quote_id,
       p, (100000 + (g % 50) * 10000)::bigint AS cash, (100000 + (g % 500) * 100)::bigint AS fee,
       CASE WHEN p IN (3, 6) THEN ${FEE_KEPT} ELSE 0 END::bigint AS kept,
       CASE WHEN p BETWEEN 2 AND 6
            THEN ${uuidOf("'bench-cod-remittance:' || t.tenant_id || c.company_id || p || ':' || (g / ($2 * $4 * 80)) || $5")}
       END AS remittance_id,
       now() - (g::double precision / $6) * interval '30 days' AS collected_at
  FROM generate_series(0, $6 - 1) AS g
  CROSS JOIN LATERAL (SELECT ($1::uuid[])[1 + g % $2] AS tenant_id) t
  CROSS JOIN LATERAL (SELECT ($3::uuid[])[1 + (g / $2) % $4] AS company_id) c
  CROSS JOIN LATERAL (SELECT CASE WHEN $7 THEN 0 ELSE ((g / ($2 * $4)) % 8)::int END AS p) x`;

const STATEMENTS = [
  `INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash, used_at)
   SELECT quote_id, tenant_id, company_id, fee, 60, now(), '{}', '{}', '{}', '', collected_at FROM bench_cod_plan`,
  `INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel, payment_method,
                           cash_collect_aoa, quoted_fee_aoa, courier_tracking_ref, metadata, workflow_started_at, inserted_at, updated_at)
   SELECT delivery_id, tenant_id, 'DLV-' || upper(substr(md5(delivery_id::text), 1, 4) || lpad(to_hex(g), 6, '0')), 'delivered',
          company_id, quote_id,
          '{"address_line": "Rua Rainha Ginga 29", "city": "Luanda", "province": "Luanda"}',
          '{"address_line": "Avenida Deolinda Rodrigues 512", "city": "Luanda", "province": "Luanda"}',
          '{"weight_grams": 1200}', 'cod', cash, fee, 'BENCH-' || g, '{}', collected_at, collected_at - interval '2 hours', collected_at
     FROM bench_cod_plan`,
  `INSERT INTO cod_remittances (id, tenant_id, livemode, company_id, remittance_ref, source, status, method, paid_at, total_aoa,
                               fee_deducted_aoa, request_hash, created_at, confirmed_at)
   SELECT remittance_id, tenant_id, true, company_id,
          CASE WHEN p >= 4 THEN 'BENCH-REM-' || remittance_id END, CASE WHEN p >= 4 THEN 'courier' ELSE 'merchant' END,
          CASE WHEN p IN (2, 3, 5) THEN 'confirmed' ELSE 'reported' END, 'bank_transfer', max(collected_at),
          sum(cash - kept), sum(kept), '', max(collected_at), CASE WHEN p IN (2, 3, 5) THEN max(collected_at) END
     FROM bench_cod_plan WHERE remittance_id IS NOT NULL GROUP BY remittance_id, tenant_id, company_id, p`,
  `INSERT INTO cod_remittance_items (remittance_id, delivery_id, position, tracking_ref, amount_aoa, fee_deducted_aoa)
   SELECT remittance_id, delivery_id, row_number() OVER (PARTITION BY remittance_id ORDER BY g) - 1, 'BENCH-' || g, cash - kept, kept
     FROM bench_cod_plan WHERE remittance_id IS NOT NULL`,
  `INSERT INTO cod_collections (delivery_id, tenant_id, livemode, company_id, expected_aoa, collected_aoa, declared,
                               collected_at, due_at, remittance_id)
   SELECT delivery_id, tenant_id, true, company_id, cash, cash, true, collected_at, collected_at + interval '48 hours', remittance_id
     FROM bench_cod_plan`,
  // The journal: a collection per delivery; per remittance its remittance, fee deduction and confirmation.
  `INSERT INTO cod_journal (id, tenant_id, livemode, company_id, kind, idempotency_key, delivery_id, remittance_id, created_at)
   SELECT ${uuidOf("'collection:' || delivery_id")}, tenant_id, true, company_id, 'collection', 'collection:' || delivery_id,
          delivery_id, NULL, collected_at FROM bench_cod_plan
   UNION ALL
   SELECT DISTINCT ON (remittance_id, k.kind) ${uuidOf("k.kind || ':' || remittance_id")}, tenant_id, true, company_id, k.kind,
          k.kind || ':' || remittance_id, NULL::uuid, remittance_id, collected_at
     FROM bench_cod_plan
     CROSS JOIN LATERAL (VALUES ('remittance', true), ('fee_deduction', p IN (3, 6)), ('confirmation', p = 5)) AS k(kind, booked)
    WHERE remittance_id IS NOT NULL AND k.booked`,
  // The entries, each a debit and its credit on the delivery (src/cod/ledger.ts).
  `INSERT INTO cod_entries (transaction_id, tenant_id, livemode, company_id, delivery_id, account, direction, amount_aoa, created_at)
   SELECT ${uuidOf("m.kind || ':' || CASE WHEN m.kind = 'collection' THEN delivery_id ELSE remittance_id END")},
          tenant_id, true, company_id, delivery_id, e.account, e.direction, m.amount, collected_at
     FROM bench_cod_plan
     CROSS JOIN LATERAL (VALUES
       ('collection', true, cash, 'courier_cash_held', 'customer_payments'),
       ('remittance', p BETWEEN 2 AND 6, cash - kept, CASE WHEN p IN (2, 3) THEN 'merchant_cash' ELSE 'remittances_in_transit' END, 'courier_cash_held'),
       ('fee_deduction', p IN (3, 6), kept, 'courier_fees', 'courier_cash_held'),
       ('confirmation', p = 5, cash, 'merchant_cash', 'remittances_in_transit')
     ) AS m(kind, booked, amount, debit, credit)
     CROSS JOIN LATERAL (VALUES (m.debit, 'debit'), (m.credit, 'credit')) AS e(account, direction)
    WHERE m.booked`,
];

/** Loads the ledger; returns the deliveries (id, cash collected, a fee to keep out of it) and how long it took. */
export async function loadLedger(pool: Pool, l: LedgerLoad) {
  const started = Date.now();
  const block = l.tenants.length * l.companies.length * 8;
  const deliveries = l.deliveries ?? Math.ceil((l.entries ?? 0) / 4 / block) * block;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('ALTER TABLE cod_entries DISABLE TRIGGER USER');
    await client.query('ALTER TABLE cod_journal DISABLE TRIGGER USER');
    await client.query(PLAN, [
      l.tenants,
      l.tenants.length,
      l.companies,
      l.companies.length,
      String(started),
      deliveries,
      l.outstandingOnly ?? false,
    ]);
    for (const sql of STATEMENTS) await client.query(sql);
    await client.query('ALTER TABLE cod_entries ENABLE TRIGGER USER');
    await client.query('ALTER TABLE cod_journal ENABLE TRIGGER USER');
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  const { rows } = await pool.query<{ id: string; collected_aoa: number; fee_aoa: number }>(
    'SELECT delivery_id AS id, cash::int AS collected_aoa, (least(fee, cash) / 2)::int AS fee_aoa FROM bench_cod_plan ORDER BY g',
  );
  await pool.query('DROP TABLE bench_cod_plan');
  // VACUUM sets the visibility map: balances read entries from index-only scans, as in a settled table.
  for (const table of ['cod_entries', 'cod_journal', 'cod_collections', 'cod_remittances', 'deliveries'])
    await pool.query(`VACUUM ANALYZE ${table}`);
  return { deliveries, deliveryIds: rows, seconds: (Date.now() - started) / 1000 };
}

/** What the ledger holds, and how many journal transactions do not balance (or have fewer than two entries). */
export async function ledgerFigures(pool: Pool) {
  const { rows } = await pool.query<{ entries: number; transactions: number; unbalanced: number; remittances: number }>(
    `SELECT (SELECT count(*)::int FROM cod_entries) AS entries, (SELECT count(*)::int FROM cod_journal) AS transactions,
            (SELECT count(*)::int FROM cod_remittances) AS remittances,
            (SELECT count(*)::int FROM cod_journal j LEFT JOIN LATERAL (
               SELECT count(*) AS n, coalesce(sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END), 0) AS net
                 FROM cod_entries e WHERE e.transaction_id = j.id) s ON true
              WHERE s.n < 2 OR s.net <> 0) AS unbalanced`,
  );
  return rows[0];
}
