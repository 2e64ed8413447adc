-- Up Migration
-- `search` matches within one field at a time (reference, either city, either address line), no longer across
-- their concatenation (src/deliveries/repository.ts SEARCH_FIELDS). One GIN index holds a trigram column per
-- field, led by tenant_id (btree_gin) as before: the OR of the five LIKEs becomes a BitmapOr of five scans of
-- this index, each reading only the tenant's candidates. Same size and speed as the concatenated index it replaces.
DROP INDEX IF EXISTS deliveries_tenant_search_trgm_idx;
CREATE INDEX deliveries_tenant_search_fields_trgm_idx ON deliveries USING gin (
  tenant_id,
  lower(reference) gin_trgm_ops,
  lower(origin->>'city') gin_trgm_ops,
  lower(destination->>'city') gin_trgm_ops,
  lower(origin->>'address_line') gin_trgm_ops,
  lower(destination->>'address_line') gin_trgm_ops
);

-- Down Migration
DROP INDEX IF EXISTS deliveries_tenant_search_fields_trgm_idx;
CREATE INDEX deliveries_tenant_search_trgm_idx ON deliveries USING gin (
  tenant_id,
  (lower(reference || ' ' || (origin->>'city') || ' ' || (destination->>'city') || ' ' ||
         (origin->>'address_line') || ' ' || (destination->>'address_line'))) gin_trgm_ops
);
