-- Up Migration
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE tenants (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- API keys: only the SHA-256 hash of a key is stored. `prefix` keeps the first characters for display.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  kind text NOT NULL CHECK (kind IN ('secret', 'publishable')),
  key_hash bytea NOT NULL UNIQUE,
  prefix text NOT NULL,
  allowed_origins text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);

-- Courier companies carry the Courier fields of the spec plus the adapter configuration.
CREATE TABLE courier_companies (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  logo_url text,
  base_fee_aoa bigint,
  base_eta_minutes integer,
  active_drivers integer,
  service_zones text[] NOT NULL DEFAULT '{}',
  operating_hours jsonb,
  capabilities jsonb NOT NULL DEFAULT '{}',
  adapter text NOT NULL CHECK (adapter IN ('rate_card', 'http')),
  endpoint text,
  timeout_ms integer NOT NULL DEFAULT 2000,
  rate_card jsonb NOT NULL DEFAULT '{}',
  fleet_secret text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenant_couriers (
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  courier_id uuid NOT NULL REFERENCES courier_companies(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, courier_id)
);

CREATE TABLE quotes (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  fee_aoa bigint NOT NULL,
  eta_minutes integer NOT NULL,
  valid_until timestamptz NOT NULL,
  origin jsonb NOT NULL,
  destination jsonb NOT NULL,
  parcel jsonb NOT NULL,
  payload_hash text NOT NULL,
  upstream_ref text,
  used_at timestamptz,
  delivery_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quotes_tenant_idx ON quotes (tenant_id, created_at);

CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  reference text NOT NULL UNIQUE,
  status text NOT NULL,
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  quote_id uuid NOT NULL REFERENCES quotes(id),
  origin jsonb NOT NULL,
  destination jsonb NOT NULL,
  parcel jsonb NOT NULL,
  payment_method text NOT NULL,
  cash_collect_aoa bigint,
  quoted_fee_aoa bigint NOT NULL,
  courier_tracking_ref text,
  delivery_pin text,
  scheduled_pickup_at timestamptz,
  scheduled_delivery_at timestamptz,
  sla_deadline_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  workflow_started_at timestamptz,
  inserted_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_tenant_inserted_idx ON deliveries (tenant_id, inserted_at DESC, id DESC);
CREATE INDEX deliveries_tenant_status_inserted_idx ON deliveries (tenant_id, status, inserted_at DESC, id DESC);
CREATE INDEX deliveries_unstarted_idx ON deliveries (inserted_at) WHERE workflow_started_at IS NULL;
CREATE UNIQUE INDEX deliveries_tracking_ref_idx ON deliveries (company_id, courier_tracking_ref) WHERE courier_tracking_ref IS NOT NULL;
-- Search: substring match on reference, cities and address lines, case-insensitive, trigram-indexed.
CREATE INDEX deliveries_search_trgm_idx ON deliveries USING gin (
  (lower(reference || ' ' || (origin->>'city') || ' ' || (destination->>'city') || ' ' ||
         (origin->>'address_line') || ' ' || (destination->>'address_line'))) gin_trgm_ops
);

-- Append-only history. Event ids are generated deterministically by the workflow, so retries never duplicate.
CREATE TABLE delivery_events (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES deliveries(id),
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  event_type text NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  source text,
  payload jsonb,
  seq bigserial NOT NULL
);
CREATE INDEX delivery_events_delivery_idx ON delivery_events (delivery_id, occurred_at, seq);

CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL,
  key_scope text NOT NULL,
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, key_scope, idempotency_key)
);

CREATE TABLE fleet_webhook_receipts (
  courier_id uuid NOT NULL REFERENCES courier_companies(id),
  webhook_id text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (courier_id, webhook_id)
);

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  url text NOT NULL,
  description text,
  events text[],
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  message_id text NOT NULL,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL,
  status text NOT NULL CHECK (status IN ('succeeded', 'failed', 'exhausted')),
  status_code integer,
  latency_ms integer,
  error text,
  attempted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC);

-- The foundation's round-trip check: a workflow writes through an activity here.
CREATE TABLE workflow_pings (
  id uuid PRIMARY KEY,
  message text NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE IF EXISTS workflow_pings, webhook_attempts, webhook_endpoints, fleet_webhook_receipts,
  idempotency_keys, delivery_events, deliveries, quotes, tenant_couriers, courier_companies, api_keys, tenants;
