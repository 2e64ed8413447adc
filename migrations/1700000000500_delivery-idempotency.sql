-- Up Migration
-- The Idempotency-Key a delivery was created under: a retry after a crash between commit and answer finds
-- the delivery its first attempt created (the quote is consumed by then) and answers with it.
ALTER TABLE deliveries ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX deliveries_tenant_idempotency_key_idx ON deliveries (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS deliveries_tenant_idempotency_key_idx;
ALTER TABLE deliveries DROP COLUMN IF EXISTS idempotency_key;
