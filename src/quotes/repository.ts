// Quotes as stored: one row per courier company's answer (src/quotes/service.ts writes them, delivery creation
// takes one: src/deliveries/create.ts).
import type { Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import type { QuoteRequest } from './schemas.js';

export interface NewQuote {
  id: string;
  companyId: string;
  feeAoa: number;
  etaMinutes: number;
  /** Seconds from now (database clock). */
  validitySeconds: number;
  upstreamRef: string | null;
}

/**
 * Inserts every quote of one request in one round trip and returns each id's valid_until (database clock, like the
 * expiry check at delivery creation).
 * The statement commits with synchronous_commit = off (set_config local to its own transaction): the answer does
 * not wait for the WAL flush (a few ms on a busy disk). Postgres stays consistent; only a crash of the database
 * server itself in the next ~0.2 s could lose these rows, and then delivery creation answers quote_not_found and
 * the client re-quotes. Quotes are cheap to redo; deliveries and their events keep full durability.
 */
export async function insertQuotes(
  pool: Pool,
  scope: Scope,
  payload: QuoteRequest,
  hash: string,
  quotes: NewQuote[],
): Promise<Map<string, Date>> {
  const { rows } = await pool.query<{ id: string; valid_until: Date }>(
    `INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash, upstream_ref, livemode)
     SELECT q.id, $1::uuid, q.company_id, q.fee_aoa, q.eta_minutes, now() + make_interval(secs => q.validity), $7::jsonb, $8::jsonb, $9::jsonb, $10::text, q.upstream_ref,
            $12::boolean
       FROM (SELECT set_config('synchronous_commit', 'off', true)) AS durability,
            unnest($2::uuid[], $3::uuid[], $4::bigint[], $5::int[], $6::int[], $11::text[])
            AS q(id, company_id, fee_aoa, eta_minutes, validity, upstream_ref)
     RETURNING id, valid_until`,
    [
      scope.tenantId,
      quotes.map((q) => q.id),
      quotes.map((q) => q.companyId),
      quotes.map((q) => q.feeAoa),
      quotes.map((q) => q.etaMinutes),
      quotes.map((q) => q.validitySeconds),
      JSON.stringify(payload.origin),
      JSON.stringify(payload.destination),
      JSON.stringify(payload.parcel),
      hash,
      quotes.map((q) => q.upstreamRef),
      scope.livemode,
    ],
  );
  return new Map(rows.map((r) => [r.id, r.valid_until]));
}
