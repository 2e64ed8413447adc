-- Up Migration
-- The worker's deliveries-by-status gauge (src/observability/repository.ts) counts the deliveries that can still
-- change on every scrape: an index-only scan of this small partial index instead of a scan of every delivery ever made.
CREATE INDEX deliveries_open_status_idx ON deliveries (status) WHERE status NOT IN ('delivered', 'cancelled', 'failed');

-- Down Migration
DROP INDEX IF EXISTS deliveries_open_status_idx;
