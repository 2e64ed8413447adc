-- Up Migration
-- Publishable keys readable at any time (docs/dashboard.md "Developers"): a publishable key is public by design (it
-- sits in the shop's page for every visitor to read), so the whole key is kept next to its hash and the dashboard and
-- GET /v1/api_keys show it whenever asked, as Stripe does. Keys are still found by their hash (plugins/auth.ts); secret
-- keys stay hash-only (the CHECK). Publishable keys issued before this migration keep a null `publishable_key`: rotate
-- them (create a new one, revoke the old) to read them.
ALTER TABLE api_keys ADD COLUMN publishable_key text;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_publishable_key_kind
  CHECK (publishable_key IS NULL OR kind = 'publishable');

-- Down Migration
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_publishable_key_kind;
ALTER TABLE api_keys DROP COLUMN IF EXISTS publishable_key;
