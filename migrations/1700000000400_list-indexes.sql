-- Up Migration
-- Search within one tenant: the trigram index also carries tenant_id (btree_gin), so a search reads only
-- the tenant's candidates instead of every tenant's matches.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX IF EXISTS deliveries_search_trgm_idx;
CREATE INDEX deliveries_tenant_search_trgm_idx ON deliveries USING gin (
  tenant_id,
  (lower(reference || ' ' || (origin->>'city') || ' ' || (destination->>'city') || ' ' ||
         (origin->>'address_line') || ' ' || (destination->>'address_line'))) gin_trgm_ops
);

-- Down Migration
DROP INDEX IF EXISTS deliveries_tenant_search_trgm_idx;
CREATE INDEX deliveries_search_trgm_idx ON deliveries USING gin (
  (lower(reference || ' ' || (origin->>'city') || ' ' || (destination->>'city') || ' ' ||
         (origin->>'address_line') || ' ' || (destination->>'address_line'))) gin_trgm_ops
);
