-- Up Migration
-- GET /v1/deliveries filters on the merchant's own words (design.md "Finding deliveries by the merchant's own
-- words"): `metadata[key]=value` as containment (`metadata @> {"key": "value"}`), served by a GIN index led by the
-- tenant (btree_gin, as the search index); `recipient_phone` on the destination contact's phone, digits only (the
-- expression of src/deliveries/repository.ts RECIPIENT_PHONE_DIGITS, verbatim).
CREATE INDEX deliveries_tenant_metadata_idx ON deliveries USING gin (tenant_id, metadata jsonb_path_ops);
CREATE INDEX deliveries_tenant_recipient_phone_idx ON deliveries (
  tenant_id,
  livemode,
  (regexp_replace(destination->'contact'->>'phone', '[^0-9]', '', 'g'))
);

-- Down Migration
DROP INDEX IF EXISTS deliveries_tenant_recipient_phone_idx;
DROP INDEX IF EXISTS deliveries_tenant_metadata_idx;
