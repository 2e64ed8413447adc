-- Up Migration
-- Recipients hear from the service (design.md "Recipients hear from the service", docs/recipients.md).

-- Per tenant and mode. No row: the defaults, SMS off in live mode and on in test mode (against the SMSC simulator).
CREATE TABLE notification_settings (
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  livemode boolean NOT NULL,
  sms_enabled boolean NOT NULL,
  language text NOT NULL DEFAULT 'pt-AO' CHECK (language IN ('pt-AO', 'en')),
  -- The SMS sender id (up to 11 letters and digits, or a number); null: the service's default (SMS_SENDER_ID).
  sender_id text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, livemode)
);

-- The outbox and the message log in one: a row per (delivery event, channel), written in the transaction that records
-- the event; the worker's sender claims due rows (status queued, next_attempt_at passed, lease expired) and submits them.
CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  livemode boolean NOT NULL,
  delivery_id uuid NOT NULL REFERENCES deliveries(id),
  -- The delivery event the message announces: one message per (event, channel).
  event_id uuid NOT NULL,
  channel text NOT NULL DEFAULT 'sms' CHECK (channel IN ('sms')),
  kind text NOT NULL CHECK (kind IN ('created', 'out_for_delivery', 'attempt_failed', 'delivered')),
  -- The recipient's phone, digits only (country code first).
  recipient text NOT NULL,
  language text NOT NULL CHECK (language IN ('pt-AO', 'en')),
  sender_id text NOT NULL,
  body text NOT NULL,
  encoding text NOT NULL CHECK (encoding IN ('gsm7', 'ucs2')),
  segments int NOT NULL CHECK (segments >= 1),
  -- queued: waiting (or between tries); submitted: the SMSC took it; delivered / failed: its receipt (or the last try);
  -- not_sent: never submitted, `reason` says why (opted_out, disabled, ...).
  status text NOT NULL CHECK (status IN ('queued', 'submitted', 'delivered', 'failed', 'not_sent')),
  reason text,
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  provider_message_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  submitted_at timestamptz,
  delivered_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, channel)
);
CREATE INDEX notifications_due_idx ON notifications (next_attempt_at) WHERE status = 'queued';
CREATE INDEX notifications_delivery_idx ON notifications (delivery_id, created_at);
CREATE UNIQUE INDEX notifications_provider_message_idx ON notifications (provider_message_id)
  WHERE provider_message_id IS NOT NULL;

-- A reply PARAR or STOP: no more messages to that phone from that tenant (in that mode).
CREATE TABLE sms_opt_outs (
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  livemode boolean NOT NULL,
  phone text NOT NULL,
  keyword text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, livemode, phone)
);

-- Down Migration
DROP TABLE IF EXISTS sms_opt_outs;
DROP TABLE IF EXISTS notifications;
DROP TABLE IF EXISTS notification_settings;
