-- Up Migration
-- Test mode (docs/test-mode.md): sk_test_ / pk_test_ keys see and create only test objects, live keys only live ones.
-- Every row a request creates says which mode it belongs to; rows from before test mode are live.
ALTER TABLE api_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE quotes ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE deliveries ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE delivery_events ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_endpoints ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_messages ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_attempts ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE idempotency_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;

-- An Idempotency-Key of a test key never answers for a live one (nor the reverse): the mode is part of the key's identity.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (tenant_id, livemode, key_scope, idempotency_key);
DROP INDEX IF EXISTS deliveries_tenant_idempotency_key_idx;
CREATE UNIQUE INDEX deliveries_tenant_idempotency_key_idx ON deliveries (tenant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- The list reads one tenant's deliveries of one mode, newest first.
DROP INDEX IF EXISTS deliveries_tenant_inserted_idx;
DROP INDEX IF EXISTS deliveries_tenant_status_inserted_idx;
CREATE INDEX deliveries_tenant_inserted_idx ON deliveries (tenant_id, livemode, inserted_at DESC, id DESC);
CREATE INDEX deliveries_tenant_status_inserted_idx ON deliveries (tenant_id, livemode, status, inserted_at DESC, id DESC);

-- Down Migration
-- Live mode only again: test objects go first.
DELETE FROM webhook_attempts WHERE livemode = false;
DELETE FROM webhook_messages WHERE livemode = false;
DELETE FROM webhook_endpoints WHERE livemode = false;
DELETE FROM delivery_events WHERE livemode = false;
DELETE FROM deliveries WHERE livemode = false;
DELETE FROM quotes WHERE livemode = false;
DELETE FROM idempotency_keys WHERE livemode = false;
DELETE FROM api_keys WHERE livemode = false;
DROP INDEX IF EXISTS deliveries_tenant_status_inserted_idx;
DROP INDEX IF EXISTS deliveries_tenant_inserted_idx;
CREATE INDEX deliveries_tenant_inserted_idx ON deliveries (tenant_id, inserted_at DESC, id DESC);
CREATE INDEX deliveries_tenant_status_inserted_idx ON deliveries (tenant_id, status, inserted_at DESC, id DESC);
DROP INDEX IF EXISTS deliveries_tenant_idempotency_key_idx;
CREATE UNIQUE INDEX deliveries_tenant_idempotency_key_idx ON deliveries (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (tenant_id, key_scope, idempotency_key);
ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS livemode;
ALTER TABLE webhook_attempts DROP COLUMN IF EXISTS livemode;
ALTER TABLE webhook_messages DROP COLUMN IF EXISTS livemode;
ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS livemode;
ALTER TABLE delivery_events DROP COLUMN IF EXISTS livemode;
ALTER TABLE deliveries DROP COLUMN IF EXISTS livemode;
ALTER TABLE quotes DROP COLUMN IF EXISTS livemode;
ALTER TABLE api_keys DROP COLUMN IF EXISTS livemode;
