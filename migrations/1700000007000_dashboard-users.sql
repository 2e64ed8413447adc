-- Up Migration
-- The merchant dashboard (docs/dashboard.md): a tenant's users, their one-time set-password links, their sessions
-- (behind an httpOnly cookie) and the failed sign-ins that rate-limit and lock sign-in.

-- One user belongs to one tenant; an email signs in to one tenant only (stored lower-cased).
-- password_hash is null until the user opens the set-password link (`scrypt$...`, src/users/passwords.ts).
CREATE TABLE users (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  password_hash text,
  password_set_at timestamptz,
  last_sign_in_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_idx ON users (email);
CREATE INDEX users_tenant_idx ON users (tenant_id, created_at);

-- A set-password link's token, stored as its SHA-256 only; usable once (deleted when used), until expires_at.
-- Expired links and sessions are deleted in batches at each sign-in (src/users/repository.ts deleteExpired).
CREATE TABLE user_password_links (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_password_links_user_idx ON user_password_links (user_id);
CREATE INDEX user_password_links_expires_idx ON user_password_links (expires_at);

-- A signed-in browser: the cookie's value is stored as its SHA-256 only. Removing the user removes its sessions.
-- idle_expires_at moves forward while the session is used; expires_at never does.
CREATE TABLE dashboard_sessions (
  id_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  idle_expires_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);
CREATE INDEX dashboard_sessions_idle_expires_idx ON dashboard_sessions (idle_expires_at);

-- Failed sign-ins, per subject (`email:<address>` or `ip:<client address>`), counted over a sliding window.
CREATE TABLE sign_in_failures (
  subject text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_subject_idx ON sign_in_failures (subject, failed_at);
CREATE INDEX sign_in_failures_failed_idx ON sign_in_failures (failed_at);

-- Down Migration
DROP TABLE IF EXISTS sign_in_failures;
DROP TABLE IF EXISTS dashboard_sessions;
DROP TABLE IF EXISTS user_password_links;
DROP TABLE IF EXISTS users;
