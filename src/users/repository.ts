// Dashboard users, their set-password links, their sessions and failed sign-ins as stored
// (migrations/1700000007000_dashboard-users.sql). Tokens and session ids are stored as SHA-256 hashes only.
import type { Db, Pool } from '../platform/db.js';
import type { Role } from './roles.js';

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  password_set_at: Date | null;
  last_sign_in_at: Date | null;
  created_at: Date;
}

const USER_COLUMNS = 'id, tenant_id, email, role, password_hash, password_set_at, last_sign_in_at, created_at';
const USER_COLUMNS_OF_U = USER_COLUMNS.split(', ')
  .map((column) => `u.${column}`)
  .join(', ');

/** Inserts a user; null when the email already has a user in this tenant (other tenants' users do not count). */
export async function insertUser(
  db: Db,
  user: { id: string; tenantId: string; email: string; role: Role },
): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (id, tenant_id, email, role) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, email) DO NOTHING RETURNING ${USER_COLUMNS}`,
    [user.id, user.tenantId, user.email, user.role],
  );
  return rows[0] ?? null;
}

/** The tenant's user with this (normalised) email, or null. */
export async function userByEmail(db: Db, tenantId: string, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND email = $2`, [
    tenantId,
    email,
  ]);
  return rows[0] ?? null;
}

export interface AccountRow extends UserRow {
  tenant_name: string;
}

/**
 * Every account (user row, one per tenant) of this email that has a password, with its tenant's name; only
 * `tenantId`'s when given. Most recently used first.
 */
export async function accountsByEmail(pool: Pool, email: string, tenantId: string | null): Promise<AccountRow[]> {
  const { rows } = await pool.query<AccountRow>(
    `SELECT ${USER_COLUMNS_OF_U}, t.name AS tenant_name
       FROM users u JOIN tenants t ON t.id = u.tenant_id
      WHERE u.email = $1 AND u.password_hash IS NOT NULL AND ($2::uuid IS NULL OR u.tenant_id = $2::uuid)
      ORDER BY u.last_sign_in_at DESC NULLS LAST, u.created_at, u.id`,
    [email, tenantId],
  );
  return rows;
}

/** A password hash of another account of the same email (another tenant's), whose salt a new hash shares; or null. */
export async function siblingPasswordHash(pool: Pool, email: string, userId: string): Promise<string | null> {
  const { rows } = await pool.query<{ password_hash: string }>(
    'SELECT password_hash FROM users WHERE email = $1 AND id <> $2 AND password_hash IS NOT NULL ORDER BY password_set_at DESC NULLS LAST LIMIT 1',
    [email, userId],
  );
  return rows[0]?.password_hash ?? null;
}

/** A user of this tenant (null for another tenant's, or none). */
export async function userById(db: Db, tenantId: string, id: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND id = $2`, [
    tenantId,
    id,
  ]);
  return rows[0] ?? null;
}

/** A tenant's users, oldest first (one extra row fetched for has_more). */
export async function listUsers(
  pool: Pool,
  tenantId: string,
  limit: number,
  offset: number,
): Promise<{ rows: UserRow[]; hasMore: boolean }> {
  const { rows } = await pool.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [tenantId, limit + 1, offset],
  );
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** The ids of the tenant's owners, locked until the transaction ends (so two removals cannot leave none). */
export async function lockOwners(db: Db, tenantId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM users WHERE tenant_id = $1 AND role = 'owner' ORDER BY id FOR UPDATE`,
    [tenantId],
  );
  return rows.map((r) => r.id);
}

export async function updateUserRole(db: Db, tenantId: string, id: string, role: Role): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET role = $3 WHERE tenant_id = $1 AND id = $2 RETURNING ${USER_COLUMNS}`,
    [tenantId, id, role],
  );
  return rows[0] ?? null;
}

/** Deletes a user; its sessions and links go with it (ON DELETE CASCADE). */
export async function deleteUserRow(db: Db, tenantId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM users WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return rowCount === 1;
}

/** Deletes the users of this email in every tenant but `tenantId` (the dev command's demo owner, scripts/lib/demo-user.ts). */
export async function deleteOtherTenantsUsers(db: Db, email: string, tenantId: string): Promise<void> {
  await db.query('DELETE FROM users WHERE email = $1 AND tenant_id <> $2', [email, tenantId]);
}

export async function markSignedIn(pool: Pool, id: string): Promise<void> {
  await pool.query('UPDATE users SET last_sign_in_at = now() WHERE id = $1', [id]);
}

// --- set-password links -------------------------------------------------------------------------

/** A new link for the user; the user's earlier unused links stop working. */
export async function replacePasswordLink(db: Db, userId: string, tokenHash: Buffer, ttlMs: number): Promise<Date> {
  await db.query('DELETE FROM user_password_links WHERE user_id = $1', [userId]);
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO user_password_links (token_hash, user_id, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond') RETURNING expires_at`,
    [tokenHash, userId, ttlMs],
  );
  return rows[0].expires_at;
}

/** The user (id and email) of an unexpired link, without using it; null for an unknown or expired token. */
export async function passwordLinkUser(
  pool: Pool,
  tokenHash: Buffer,
): Promise<{ user_id: string; email: string } | null> {
  const { rows } = await pool.query<{ user_id: string; email: string }>(
    'SELECT l.user_id, u.email FROM user_password_links l JOIN users u ON u.id = l.user_id WHERE l.token_hash = $1 AND l.expires_at > now()',
    [tokenHash],
  );
  return rows[0] ?? null;
}

/** Uses a link: the user's id when the token is known and unexpired; the link is gone either way (used once). */
export async function consumePasswordLink(db: Db, tokenHash: Buffer): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string; valid: boolean }>(
    'DELETE FROM user_password_links WHERE token_hash = $1 RETURNING user_id, expires_at > now() AS valid',
    [tokenHash],
  );
  return rows[0]?.valid ? rows[0].user_id : null;
}

/** Sets the password and signs the user out everywhere. */
export async function setPasswordHash(db: Db, userId: string, hash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, password_set_at = now() WHERE id = $1', [userId, hash]);
  await db.query('DELETE FROM dashboard_sessions WHERE user_id = $1', [userId]);
}

// --- sessions -------------------------------------------------------------------------------------

export interface SessionRow {
  user_id: string;
  tenant_id: string;
  tenant_name: string;
  email: string;
  role: Role;
  csrf_token: string;
  last_seen_at: Date;
  idle_expires_at: Date;
  expires_at: Date;
  /** Computed by the database: the session is past one of its two deadlines. */
  expired: boolean;
}

export async function insertSession(
  pool: Pool,
  session: { idHash: Buffer; userId: string; tenantId: string; csrfToken: string; idleMs: number; maxMs: number },
): Promise<{ expires_at: Date; idle_expires_at: Date }> {
  const { rows } = await pool.query<{ expires_at: Date; idle_expires_at: Date }>(
    `INSERT INTO dashboard_sessions (id_hash, user_id, tenant_id, csrf_token, idle_expires_at, expires_at)
     VALUES ($1, $2, $3, $4, now() + least($5::bigint, $6::bigint) * interval '1 millisecond', now() + $6::bigint * interval '1 millisecond')
     RETURNING expires_at, idle_expires_at`,
    [session.idHash, session.userId, session.tenantId, session.csrfToken, session.idleMs, session.maxMs],
  );
  return rows[0];
}

/** The session with this id hash, expired or not (the caller tells an expired session from none), with its user. */
export async function sessionByHash(pool: Pool, idHash: Buffer): Promise<SessionRow | null> {
  const { rows } = await pool.query<SessionRow>(
    `SELECT s.user_id, s.tenant_id, t.name AS tenant_name, u.email, u.role, s.csrf_token, s.last_seen_at, s.idle_expires_at, s.expires_at,
            (s.expires_at <= now() OR s.idle_expires_at <= now()) AS expired
       FROM dashboard_sessions s JOIN users u ON u.id = s.user_id JOIN tenants t ON t.id = s.tenant_id
      WHERE s.id_hash = $1`,
    [idHash],
  );
  return rows[0] ?? null;
}

/** Moves the idle deadline forward (never past the absolute one). */
export async function touchSession(pool: Pool, idHash: Buffer, idleMs: number): Promise<void> {
  await pool.query(
    `UPDATE dashboard_sessions SET last_seen_at = now(), idle_expires_at = least(expires_at, now() + $2::bigint * interval '1 millisecond') WHERE id_hash = $1`,
    [idHash, idleMs],
  );
}

export async function deleteSession(pool: Pool, idHash: Buffer): Promise<void> {
  await pool.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]);
}

/** How long an expired session is kept, so that its owner coming back is told "expired" rather than "has ended". */
const EXPIRED_SESSION_KEPT = "interval '1 hour'";

/**
 * Deletes up to `batch` sessions expired for over an hour and expired set-password links (of every user). Sign-in
 * calls it, so neither table grows past the live rows and one batch: they need no purge job of their own.
 */
export async function deleteExpired(pool: Pool, batch = 1000): Promise<void> {
  await pool.query(
    `DELETE FROM dashboard_sessions WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM dashboard_sessions WHERE expires_at <= now() - ${EXPIRED_SESSION_KEPT} LIMIT $1)) OR ctid = ANY (ARRAY(
       SELECT ctid FROM dashboard_sessions WHERE idle_expires_at <= now() - ${EXPIRED_SESSION_KEPT} LIMIT $1))`,
    [batch],
  );
  await pool.query(
    `DELETE FROM user_password_links WHERE ctid = ANY (ARRAY(SELECT ctid FROM user_password_links WHERE expires_at <= now() LIMIT $1))`,
    [batch],
  );
}

// --- failed sign-ins ------------------------------------------------------------------------------
// A sign-in attempt is recorded as a failure of each of its subjects *before* its password is checked (the row names
// the attempt), under a lock per subject, and forgotten again if the password was right. So concurrent attempts see
// each other: however many arrive at once, no more pass the count than the limits allow.

/**
 * Locks the subjects until the transaction ends (advisory locks, taken in one order so two attempts cannot wait for
 * each other).
 */
export async function lockSubjects(db: Db, subjects: string[]): Promise<void> {
  await db.query(
    'SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(s, 0) AS k FROM unnest($1::text[]) s) locks ORDER BY k',
    [subjects],
  );
}

/** How many failures (pending attempts included) each subject had within the last `windowMs`. */
export async function countFailures(db: Db, subjects: string[], windowMs: number): Promise<Map<string, number>> {
  const { rows } = await db.query<{ subject: string; n: number }>(
    `SELECT subject, count(*)::int AS n FROM sign_in_failures
      WHERE subject = ANY($1) AND failed_at > now() - $2 * interval '1 millisecond' GROUP BY subject`,
    [subjects, windowMs],
  );
  return new Map(rows.map((r) => [r.subject, r.n]));
}

/** Records one failure per subject for this attempt (before its password is checked). */
export async function recordFailure(db: Db, subjects: string[], attempt: string): Promise<void> {
  await db.query('INSERT INTO sign_in_failures (subject, attempt) SELECT unnest($1::text[]), $2', [subjects, attempt]);
}

/** Forgets an attempt recorded by recordFailure: its password was right, or it was never checked. */
export async function forgetAttempt(pool: Pool, attempt: string): Promise<void> {
  await pool.query('DELETE FROM sign_in_failures WHERE attempt = $1', [attempt]);
}

/** Forgets failures older than `windowMs` (of any subject), a batch at a time. */
export async function purgeFailures(pool: Pool, windowMs: number): Promise<void> {
  await pool.query(
    `DELETE FROM sign_in_failures WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM sign_in_failures WHERE failed_at < now() - $1 * interval '1 millisecond' LIMIT 1000))`,
    [windowMs],
  );
}

export async function clearFailures(pool: Pool, subject: string): Promise<void> {
  await pool.query('DELETE FROM sign_in_failures WHERE subject = $1', [subject]);
}
