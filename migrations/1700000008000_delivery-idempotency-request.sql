-- Up Migration
-- A delivery keeps the Idempotency-Key it was made under for good (no longer only 24 h), with the hash of the request
-- body that made it: the key reused after its idempotency record expired answers with that delivery when the body is
-- the same, and 422 idempotency_key_reused when it differs (src/deliveries/create.ts). Null on deliveries made before
-- this migration (their quote_id stands in) and on deliveries made without a key.
ALTER TABLE deliveries ADD COLUMN idempotency_request_hash text;

-- Down Migration
ALTER TABLE deliveries DROP COLUMN IF EXISTS idempotency_request_hash;
