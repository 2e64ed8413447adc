-- Up Migration
-- Outgoing merchant webhooks (design.md "Outgoing webhooks").
-- A message is the signed envelope of one delivery event, built once and stored verbatim, so every retry
-- and every replay sends the same bytes under the same webhook-id (`msg_<event id>`).
CREATE TABLE webhook_messages (
  id text PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  delivery_id uuid NOT NULL REFERENCES deliveries(id),
  event_id uuid NOT NULL UNIQUE,
  event_type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX webhook_messages_tenant_created_idx ON webhook_messages (tenant_id, created_at, id);

-- Attempts made for a replay are told apart from the event's own schedule.
ALTER TABLE webhook_attempts ADD COLUMN trigger text NOT NULL DEFAULT 'event' CHECK (trigger IN ('event', 'replay'));
-- Insertion order breaks ties between rows of the same millisecond (a last failure and its `exhausted` row).
ALTER TABLE webhook_attempts ADD COLUMN seq bigserial NOT NULL;
ALTER TABLE webhook_attempts ALTER COLUMN attempted_at SET DEFAULT date_trunc('milliseconds', now());
CREATE INDEX webhook_attempts_message_idx ON webhook_attempts (message_id);
DROP INDEX IF EXISTS webhook_attempts_endpoint_idx;
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, seq DESC);
CREATE INDEX webhook_endpoints_tenant_created_idx ON webhook_endpoints (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Down Migration
DROP INDEX IF EXISTS webhook_endpoints_tenant_created_idx;
DROP INDEX IF EXISTS webhook_attempts_message_idx;
DROP INDEX IF EXISTS webhook_attempts_endpoint_idx;
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC);
ALTER TABLE webhook_attempts DROP COLUMN IF EXISTS seq;
ALTER TABLE webhook_attempts ALTER COLUMN attempted_at SET DEFAULT now();
ALTER TABLE webhook_attempts DROP COLUMN IF EXISTS trigger;
DROP TABLE IF EXISTS webhook_messages;
