-- Up Migration
-- A delivery's client-given times (and the SLA deadline computed from them) stay within 1970-01-01T00:00:00Z ..
-- 9999-12-31T23:59:59.999Z, the range the API accepts (src/schemas.ts, DateTimeInput): a row outside it could not be
-- serialised by a later read (a 500 on every GET of it). Rows written before the check are brought into the range
-- first (a year-10000 deadline becomes 9999-12-31T23:59:59.999Z), then the constraint is added without a long lock.
UPDATE deliveries
SET scheduled_pickup_at = LEAST(GREATEST(scheduled_pickup_at, '1970-01-01T00:00:00Z'), '9999-12-31T23:59:59.999Z'),
    scheduled_delivery_at = LEAST(GREATEST(scheduled_delivery_at, '1970-01-01T00:00:00Z'), '9999-12-31T23:59:59.999Z'),
    sla_deadline_at = LEAST(GREATEST(sla_deadline_at, '1970-01-01T00:00:00Z'), '9999-12-31T23:59:59.999Z')
WHERE scheduled_pickup_at NOT BETWEEN '1970-01-01T00:00:00Z' AND '9999-12-31T23:59:59.999Z'
   OR scheduled_delivery_at NOT BETWEEN '1970-01-01T00:00:00Z' AND '9999-12-31T23:59:59.999Z'
   OR sla_deadline_at NOT BETWEEN '1970-01-01T00:00:00Z' AND '9999-12-31T23:59:59.999Z';

ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_dates_in_range;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_dates_in_range CHECK (
  (scheduled_pickup_at IS NULL OR scheduled_pickup_at BETWEEN '1970-01-01T00:00:00Z' AND '9999-12-31T23:59:59.999Z')
  AND (scheduled_delivery_at IS NULL OR scheduled_delivery_at BETWEEN '1970-01-01T00:00:00Z' AND '9999-12-31T23:59:59.999Z')
  AND (sla_deadline_at IS NULL OR sla_deadline_at BETWEEN '1970-01-01T00:00:00Z' AND '9999-12-31T23:59:59.999Z')
) NOT VALID;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_dates_in_range;

-- Down Migration
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_dates_in_range;
