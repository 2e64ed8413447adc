-- Up Migration
-- Fleet secret rotation (admin `courier rotate-secret`): the secret being replaced stays valid until
-- previous_fleet_secret_expires_at (24 h after the rotation), so a courier can switch without losing events.
ALTER TABLE courier_companies ADD COLUMN previous_fleet_secret text;
ALTER TABLE courier_companies ADD COLUMN previous_fleet_secret_expires_at timestamptz;

-- Down Migration
ALTER TABLE courier_companies DROP COLUMN IF EXISTS previous_fleet_secret_expires_at;
ALTER TABLE courier_companies DROP COLUMN IF EXISTS previous_fleet_secret;
