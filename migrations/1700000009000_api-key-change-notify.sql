-- Up Migration
-- Every change to an API key (a revocation, new allowed origins, a widget policy, a deleted tenant's keys) is announced
-- on channel api_keys_changed, its payload the key's id, when the change commits. The API processes cache the keys
-- they authenticate (src/keys/cache.ts) and forget one as soon as it is announced.
CREATE FUNCTION api_keys_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_keys_changed', OLD.id::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_keys_notify_change();

-- Down Migration
DROP TRIGGER IF EXISTS api_keys_changed ON api_keys;
DROP FUNCTION IF EXISTS api_keys_notify_change();
