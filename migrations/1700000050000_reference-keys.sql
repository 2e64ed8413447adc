-- Up Migration
-- The API reference's test key (docs/reference.md): a developer or owner signed in to the dashboard who opens /docs
-- finds a sk_test_ key of their tenant filled in. It is an ordinary test secret key (only its hash is stored), bound
-- to the dashboard session it was made for: `dashboard_session` is that session's id hash, and the key ends with it,
-- at its absolute deadline (`expires_at`: an expired key reads as revoked) or when the session row goes (sign-out,
-- the purge of expired sessions, the user's or tenant's removal), whichever comes first.
ALTER TABLE api_keys ADD COLUMN dashboard_session bytea;
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
CREATE INDEX api_keys_dashboard_session_idx ON api_keys (dashboard_session) WHERE dashboard_session IS NOT NULL;

CREATE FUNCTION dashboard_session_revoke_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE api_keys SET revoked_at = now() WHERE dashboard_session = OLD.id_hash AND revoked_at IS NULL;
  RETURN NULL;
END;
$$;

CREATE TRIGGER dashboard_sessions_revoke_keys AFTER DELETE ON dashboard_sessions
  FOR EACH ROW EXECUTE FUNCTION dashboard_session_revoke_keys();

-- Down Migration
DROP TRIGGER IF EXISTS dashboard_sessions_revoke_keys ON dashboard_sessions;
DROP FUNCTION IF EXISTS dashboard_session_revoke_keys();
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE dashboard_session IS NOT NULL;
DROP INDEX IF EXISTS api_keys_dashboard_session_idx;
ALTER TABLE api_keys DROP COLUMN IF EXISTS expires_at;
ALTER TABLE api_keys DROP COLUMN IF EXISTS dashboard_session;
