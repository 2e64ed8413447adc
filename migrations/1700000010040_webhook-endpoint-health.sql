-- Up Migration
-- Webhook endpoint health (design.md, third round, "Webhook retries"; docs/webhooks.md "Endpoint health").
-- failing_since: the time of the oldest failed attempt since the endpoint's last successful one (null: its last
-- attempt succeeded, or none failed yet). Written when an attempt is logged; an endpoint whose failing_since is 24 h
-- old is shown `failing`, and the first failed attempt 5 days after it disables the endpoint (reason `failing`).
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS failing_since timestamptz;
-- Replays are bounded: the start times of the endpoint's replays in the last hour (at most 10 an hour), and the
-- Temporal workflows of its latest replay (one replay in flight per endpoint).
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS replay_started_at timestamptz[] NOT NULL DEFAULT '{}';
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS replay_workflow_ids text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS replay_workflow_ids;
ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS replay_started_at;
ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS failing_since;
