-- Up Migration
-- Nothing grows forever (docs/operations.md "Retention"): the maintenance purge deletes expired rows in bounded
-- batches; each table it purges gets an index on the column its cutoff reads, so a batch never scans the table.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
CREATE INDEX quotes_unused_valid_until_idx ON quotes (valid_until) WHERE used_at IS NULL;
CREATE INDEX fleet_webhook_receipts_received_idx ON fleet_webhook_receipts (received_at);
CREATE INDEX webhook_messages_created_idx ON webhook_messages (created_at);
CREATE INDEX webhook_attempts_attempted_idx ON webhook_attempts (attempted_at);
CREATE INDEX workflow_pings_written_idx ON workflow_pings (written_at);

-- One delivery per quote, enforced by the database as well (src/deliveries/create.ts already locks and consumes
-- the quote). The API never made two deliveries of one quote; only bulk loads did (the list benchmark's seed gave
-- all of a tenant's deliveries one quote): each extra delivery gets its own copy of that quote first.
CREATE TEMP TABLE quote_copies ON COMMIT DROP AS
  SELECT d.id AS delivery_id, d.quote_id, gen_random_uuid() AS new_quote_id
    FROM (SELECT id, quote_id, row_number() OVER (PARTITION BY quote_id ORDER BY inserted_at, id) AS n FROM deliveries) d
   WHERE d.n > 1;
INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash,
                    upstream_ref, used_at, delivery_id, created_at)
  SELECT c.new_quote_id, q.tenant_id, q.company_id, q.fee_aoa, q.eta_minutes, q.valid_until, q.origin, q.destination, q.parcel,
         q.payload_hash, q.upstream_ref, coalesce(q.used_at, now()), c.delivery_id, q.created_at
    FROM quote_copies c JOIN quotes q ON q.id = c.quote_id;
UPDATE deliveries d SET quote_id = c.new_quote_id FROM quote_copies c WHERE d.id = c.delivery_id;
DROP TABLE quote_copies;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_quote_id_key UNIQUE (quote_id);

-- Responses holding a secret are no longer kept whole in the idempotency cache (src/plugins/idempotency.ts): the
-- secret fields are left out of the stored body and named here, so a replay can say what it withholds.
ALTER TABLE idempotency_keys ADD COLUMN withheld_fields text[];
UPDATE idempotency_keys SET response_body = response_body - 'secret', withheld_fields = '{secret}'
 WHERE jsonb_typeof(response_body) = 'object' AND response_body ? 'secret';

-- Down Migration
ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS withheld_fields;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_quote_id_key;
DROP INDEX IF EXISTS workflow_pings_written_idx;
DROP INDEX IF EXISTS webhook_attempts_attempted_idx;
DROP INDEX IF EXISTS webhook_messages_created_idx;
DROP INDEX IF EXISTS fleet_webhook_receipts_received_idx;
DROP INDEX IF EXISTS quotes_unused_valid_until_idx;
DROP INDEX IF EXISTS idempotency_keys_created_idx;
