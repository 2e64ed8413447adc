-- Up Migration
-- Dashboard accounts are per tenant (docs/dashboard.md "Accounts and roles"): the same email may be a user of several
-- tenants' teams, each account with its own role and password, and one tenant can no longer squat an address for
-- every other. Sign-in looks an email's accounts up by email alone (users_email_lookup_idx).
DROP INDEX IF EXISTS users_email_idx;
CREATE UNIQUE INDEX IF NOT EXISTS users_tenant_email_idx ON users (tenant_id, email);
CREATE INDEX IF NOT EXISTS users_email_lookup_idx ON users (email);

-- A sign-in attempt is counted before its password is checked (src/users/repository.ts recordFailure): the row names
-- its attempt, so that a right password forgets it again.
ALTER TABLE sign_in_failures ADD COLUMN IF NOT EXISTS attempt uuid;
CREATE INDEX IF NOT EXISTS sign_in_failures_attempt_idx ON sign_in_failures (attempt);

-- Down Migration
-- Fails while an email has users in several tenants: remove the extra ones first.
DROP INDEX IF EXISTS sign_in_failures_attempt_idx;
ALTER TABLE sign_in_failures DROP COLUMN IF EXISTS attempt;
DROP INDEX IF EXISTS users_email_lookup_idx;
DROP INDEX IF EXISTS users_tenant_email_idx;
CREATE UNIQUE INDEX IF NOT EXISTS users_email_idx ON users (email);
