-- Up Migration
-- The dispatch policy is per (tenant, mode), like everything else of test mode (docs/test-mode.md): a test key reads
-- and changes the test policy, which test deliveries take; a live key the live one. Until now one row served both
-- modes, so each mode starts from it, keeping the preferred companies of its own mode (simulated test couriers for
-- test mode, the others for live mode).
ALTER TABLE tenant_dispatch_policies ADD COLUMN livemode boolean NOT NULL DEFAULT true;

INSERT INTO tenant_dispatch_policies (tenant_id, livemode, auto_redispatch, max_fee_increase_aoa, max_redispatches, assign_timeout_minutes,
                                      preferred_company_ids, updated_at)
SELECT p.tenant_id, false, p.auto_redispatch, p.max_fee_increase_aoa, p.max_redispatches, p.assign_timeout_minutes,
       ARRAY(SELECT u.id FROM unnest(p.preferred_company_ids) WITH ORDINALITY AS u(id, n)
               JOIN courier_companies c ON c.id = u.id WHERE c.adapter = 'simulated' ORDER BY u.n),
       p.updated_at
  FROM tenant_dispatch_policies p;

UPDATE tenant_dispatch_policies p
   SET preferred_company_ids = ARRAY(SELECT u.id FROM unnest(p.preferred_company_ids) WITH ORDINALITY AS u(id, n)
                                       JOIN courier_companies c ON c.id = u.id WHERE c.adapter <> 'simulated' ORDER BY u.n)
 WHERE p.livemode;

ALTER TABLE tenant_dispatch_policies ALTER COLUMN livemode DROP DEFAULT;
ALTER TABLE tenant_dispatch_policies DROP CONSTRAINT tenant_dispatch_policies_pkey;
ALTER TABLE tenant_dispatch_policies ADD PRIMARY KEY (tenant_id, livemode);

-- Down Migration
DELETE FROM tenant_dispatch_policies WHERE NOT livemode;
ALTER TABLE tenant_dispatch_policies DROP CONSTRAINT tenant_dispatch_policies_pkey;
ALTER TABLE tenant_dispatch_policies ADD PRIMARY KEY (tenant_id);
ALTER TABLE tenant_dispatch_policies DROP COLUMN livemode;
