-- Up Migration
-- Merchant webhooks leave through an outbox: the worker stores a delivery event's message in the transaction that
-- records the event, with the endpoints it goes to, and sends the first attempts at once from that process. A
-- message is `dispatched` once its first attempts are made and any failure is handed to a retry workflow; one left
-- undispatched (its worker died) is picked up by the worker's sweeper (docs/webhooks.md).
ALTER TABLE webhook_messages ADD COLUMN endpoint_ids uuid[];
ALTER TABLE webhook_messages ADD COLUMN dispatched_at timestamptz;
-- Messages stored before the outbox were sent by their fan-out workflow.
UPDATE webhook_messages SET dispatched_at = created_at;
CREATE INDEX webhook_messages_undispatched_idx ON webhook_messages (created_at) WHERE dispatched_at IS NULL;

-- Down Migration
DROP INDEX IF EXISTS webhook_messages_undispatched_idx;
ALTER TABLE webhook_messages DROP COLUMN IF EXISTS dispatched_at;
ALTER TABLE webhook_messages DROP COLUMN IF EXISTS endpoint_ids;
