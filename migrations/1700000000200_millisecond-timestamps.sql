-- Up Migration
-- API timestamps carry milliseconds; storing the same precision keeps inclusive filters
-- (inserted_at_gte / inserted_at_lte with a value read from a response) exact.
ALTER TABLE deliveries ALTER COLUMN inserted_at SET DEFAULT date_trunc('milliseconds', now());
ALTER TABLE delivery_events ALTER COLUMN occurred_at SET DEFAULT date_trunc('milliseconds', now());

-- Down Migration
ALTER TABLE deliveries ALTER COLUMN inserted_at SET DEFAULT now();
ALTER TABLE delivery_events ALTER COLUMN occurred_at SET DEFAULT now();
