-- Up Migration
-- The simulated test couriers (src/couriers/adapters/simulated.ts): built into the service, offered to every
-- tenant's test keys without linking, never to live keys. Their behaviour is the adapter's, by slug; the rows
-- carry what the API shows of them and their prices. Nobody outside knows their fleet secret: they send no
-- fleet events through POST /v1/fleet/{slug}/events.
ALTER TABLE courier_companies DROP CONSTRAINT IF EXISTS courier_companies_adapter_check;
ALTER TABLE courier_companies ADD CONSTRAINT courier_companies_adapter_check CHECK (adapter IN ('rate_card', 'http', 'simulated'));
INSERT INTO courier_companies (id, name, slug, base_fee_aoa, base_eta_minutes, active_drivers, service_zones, capabilities, adapter,
                               timeout_ms, rate_card, fleet_secret)
SELECT t.id::uuid, t.name, t.slug, t.base_fee_aoa, 30, 1, '{}',
       jsonb_build_object('bank_transfer_enabled', false, 'bank_name', null, 'bank_account_holder', null, 'bank_iban', null,
                          'max_weight_grams', null, 'parcel_types', t.parcel_types, 'require_delivery_pin', t.pin),
       'simulated', t.timeout_ms, '{"per_km_aoa": 5000, "eta_minutes_per_km": 2}'::jsonb,
       'whsec_' || encode(sha256(convert_to(gen_random_uuid()::text || clock_timestamp()::text, 'UTF8')), 'base64')
  FROM (VALUES
    ('8da57b84-642c-4662-bedb-196b0b8a2e88', 'Test Courier: Delivers by Itself', 'test-auto', 100000, NULL::jsonb, false, 2000),
    ('9c8aa328-00c4-439c-8cd7-62d7a3888572', 'Test Courier: Waits for Test Helpers', 'test-manual', 110000, NULL, false, 2000),
    ('34a49fdd-d958-43ff-a05e-bb3452fb4ede', 'Test Courier: Requires a PIN', 'test-pin', 120000, NULL, true, 2000),
    ('581c79b4-fbd9-4ea4-9934-2e35f9f06249', 'Test Courier: Never Assigns', 'test-never-assigns', 130000, NULL, false, 2000),
    ('f76631d5-7b74-439e-a507-4db89e3f7b6b', 'Test Courier: Rejects Bookings', 'test-rejects', 140000, NULL, false, 2000),
    ('e743bf49-056f-4ed4-bf26-adbedd92175e', 'Test Courier: Slow Quotes', 'test-slow-quotes', 150000, '["slow_quote"]', false, 5000)
  ) AS t(id, name, slug, base_fee_aoa, parcel_types, pin, timeout_ms);

-- Down Migration
-- What refers to the simulated couriers goes with them: the test deliveries booked and the test quotes priced with them.
CREATE TEMP TABLE simulated_deliveries ON COMMIT DROP AS
  SELECT d.id FROM deliveries d JOIN courier_companies c ON c.id = d.company_id WHERE c.adapter = 'simulated';
DELETE FROM webhook_attempts WHERE message_id IN (SELECT id FROM webhook_messages WHERE delivery_id IN (SELECT id FROM simulated_deliveries));
DELETE FROM webhook_messages WHERE delivery_id IN (SELECT id FROM simulated_deliveries);
DELETE FROM delivery_events WHERE delivery_id IN (SELECT id FROM simulated_deliveries);
DELETE FROM deliveries WHERE id IN (SELECT id FROM simulated_deliveries);
DELETE FROM quotes WHERE company_id IN (SELECT id FROM courier_companies WHERE adapter = 'simulated');
DELETE FROM fleet_webhook_receipts WHERE courier_id IN (SELECT id FROM courier_companies WHERE adapter = 'simulated');
DELETE FROM tenant_couriers WHERE courier_id IN (SELECT id FROM courier_companies WHERE adapter = 'simulated');
DELETE FROM courier_companies WHERE adapter = 'simulated';
ALTER TABLE courier_companies DROP CONSTRAINT IF EXISTS courier_companies_adapter_check;
ALTER TABLE courier_companies ADD CONSTRAINT courier_companies_adapter_check CHECK (adapter IN ('rate_card', 'http'));
