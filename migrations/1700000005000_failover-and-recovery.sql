-- Up Migration
-- Automatic failover (docs/deliveries.md "Automatic failover"): a tenant's dispatch policy, and every courier booking a
-- delivery had, so a late fleet event from a company the delivery moved away from is recognised (superseded_booking).
CREATE TABLE tenant_dispatch_policies (
  tenant_id uuid PRIMARY KEY REFERENCES tenants(id),
  auto_redispatch boolean NOT NULL DEFAULT false,
  max_fee_increase_aoa bigint NOT NULL DEFAULT 0 CHECK (max_fee_increase_aoa >= 0),
  max_redispatches integer NOT NULL DEFAULT 2 CHECK (max_redispatches BETWEEN 0 AND 10),
  assign_timeout_minutes integer NOT NULL DEFAULT 20 CHECK (assign_timeout_minutes BETWEEN 1 AND 1440),
  preferred_company_ids uuid[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE delivery_bookings (
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  tracking_ref text NOT NULL,
  delivery_id uuid NOT NULL REFERENCES deliveries(id),
  booked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, tracking_ref)
);
CREATE INDEX delivery_bookings_delivery_idx ON delivery_bookings (delivery_id);

-- The list filters by company_id within a tenant.
CREATE INDEX deliveries_tenant_company_inserted_idx ON deliveries (tenant_id, livemode, company_id, inserted_at DESC, id DESC);

-- A delivery whose workflow was closed by hand (Terminate or Request Cancellation in the Temporal UI) while it was
-- not final is started again by the reconciler (src/deliveries/recovery.ts), at most a few times.
ALTER TABLE deliveries ADD COLUMN workflow_restarts integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE deliveries DROP COLUMN IF EXISTS workflow_restarts;
DROP INDEX IF EXISTS deliveries_tenant_company_inserted_idx;
DROP TABLE IF EXISTS delivery_bookings;
DROP TABLE IF EXISTS tenant_dispatch_policies;
