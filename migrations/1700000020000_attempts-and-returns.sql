-- Up Migration
-- Failed attempts and returns to sender (design.md "Attempts, returns and proof of delivery"): the tenant's
-- max_delivery_attempts (dispatch settings, per mode) and the two links between a delivery and its return.
ALTER TABLE tenant_dispatch_policies
  ADD COLUMN max_delivery_attempts integer NOT NULL DEFAULT 2
  CONSTRAINT tenant_dispatch_policies_max_delivery_attempts_range CHECK (max_delivery_attempts BETWEEN 1 AND 5);

-- A return is a delivery of its own: return_of names the original, the original's return_delivery_id the return.
-- At most one return per original (the unique index), which makes creating it idempotent.
ALTER TABLE deliveries
  ADD COLUMN return_of uuid REFERENCES deliveries(id) ON DELETE SET NULL,
  ADD COLUMN return_delivery_id uuid REFERENCES deliveries(id) ON DELETE SET NULL;
CREATE UNIQUE INDEX deliveries_return_of_idx ON deliveries (return_of) WHERE return_of IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS deliveries_return_of_idx;
ALTER TABLE deliveries DROP COLUMN IF EXISTS return_delivery_id, DROP COLUMN IF EXISTS return_of;
ALTER TABLE tenant_dispatch_policies DROP COLUMN IF EXISTS max_delivery_attempts;
