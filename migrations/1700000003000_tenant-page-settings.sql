-- Up Migration
-- What the recipients' tracking page (GET /track/{id}) shows of the merchant: the shop's name as customers know it
-- (else tenants.name) and a help contact. Set with `admin tenant settings`; all optional.
ALTER TABLE tenants ADD COLUMN display_name text;
ALTER TABLE tenants ADD COLUMN help_email text;
ALTER TABLE tenants ADD COLUMN help_phone text;
ALTER TABLE tenants ADD COLUMN help_url text;

-- Down Migration
ALTER TABLE tenants DROP COLUMN IF EXISTS help_url;
ALTER TABLE tenants DROP COLUMN IF EXISTS help_phone;
ALTER TABLE tenants DROP COLUMN IF EXISTS help_email;
ALTER TABLE tenants DROP COLUMN IF EXISTS display_name;
