// The merchant's list of deliveries (GET /v1/deliveries): one page of a tenant's deliveries in one mode, with its
// filters (status, dates, company, search, metadata, recipient phone). The rows and columns: repository.ts.
import type { Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';
import { SUMMARY_COLUMNS, type DeliverySummaryRow } from './repository.js';

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

/** The destination contact's phone, digits only: the `recipient_phone` filter compares it. */
const RECIPIENT_PHONE_DIGITS = "regexp_replace(d.destination->'contact'->>'phone', '[^0-9]', '', 'g')";

/** A filter value that reads as a JSON number or boolean, as that; otherwise undefined. */
function jsonScalar(value: string): number | boolean | undefined {
  if (value === 'true' || value === 'false') return value === 'true';
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) && /^-?[0-9.eE+-]+$/.test(value) ? n : undefined;
}

export interface ListFilter {
  statuses?: Status[];
  insertedFrom?: Date;
  insertedTo?: Date;
  search?: string;
  companyId?: string;
  /** Exact metadata values (`metadata ->> key`, as text), all of them. */
  metadata?: Record<string, string>;
  /** The destination contact's phone, digits only (compared with the stored phone's digits). */
  recipientPhoneDigits?: string;
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
  // Containment, which the GIN index of migrations/1700000020100_list-filters.sql serves; a value that reads as a
  // JSON number or boolean also matches the number or boolean (metadata[qty]=3 finds {"qty": 3} and {"qty": "3"}).
  for (const [key, value] of Object.entries(f.metadata ?? {})) {
    const forms = [JSON.stringify({ [key]: value })];
    const typed = jsonScalar(value);
    if (typed !== undefined) forms.push(JSON.stringify({ [key]: typed }));
    const refs = forms.map((form) => {
      params.push(form);
      return `d.metadata @> $${params.length}::jsonb`;
    });
    where.push(`(${refs.join(' OR ')})`);
  }
  // The expression of the index migrations/1700000020100_list-filters.sql, verbatim.
  if (f.recipientPhoneDigits) add((p) => `${RECIPIENT_PHONE_DIGITS} = ${p}`, f.recipientPhoneDigits);
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
