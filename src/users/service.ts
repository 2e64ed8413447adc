// Dashboard accounts (docs/dashboard.md): users of a tenant, set-password links, sign-in with rate limiting and
// lockout, sessions. The admin command line (`user create`), the /v1/users routes and the dashboard's own routes
// (src/dashboard/routes.ts) all go through here.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { inTransaction, type Pool } from '../platform/db.js';
import { ApiError, notFound } from '../http/problem.js';
import { hashPassword, verifyMany } from './passwords.js';
import {
  accountsByEmail,
  clearFailures,
  consumePasswordLink,
  countFailures,
  deleteExpired,
  deleteSession,
  deleteUserRow,
  forgetAttempt,
  insertSession,
  insertUser,
  lockOwners,
  lockSubjects,
  markSignedIn,
  passwordLinkUser,
  purgeFailures,
  recordFailure,
  replacePasswordLink,
  setPasswordHash,
  siblingPasswordHash,
  updateUserRole,
  userById,
  type AccountRow,
  type UserRow,
} from './repository.js';
import type { Role } from './roles.js';

/** Failed sign-ins are counted over this window: per email (lockout) and per client address. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures of one email within the window after which its sign-in is locked until the window passes. */
export const MAX_FAILURES_PER_EMAIL = 5;
/** Failures from one client address within the window after which it may not try again until the window passes. */
export const MAX_FAILURES_PER_ADDRESS = 20;

export const DASHBOARD_PATH = '/dashboard';

export interface DashboardSettings {
  /** A session ends after this long without a request. */
  sessionIdleMs: number;
  /** And this long after sign-in, used or not. */
  sessionMaxMs: number;
  /** How long a set-password link works. */
  passwordLinkTtlMs: number;
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();
const token = (): string => randomBytes(32).toString('base64url');

/** Looks like an email address: the one check of it, for users and for the tracking page's help contact. */
export const isEmailAddress = (value: string): boolean =>
  value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

/** Lower-cased and trimmed; throws a 422 for anything that does not look like an email address. */
export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!isEmailAddress(value)) {
    throw new ApiError(422, 'validation_failed', 'email is not an email address.', [
      { pointer: '/email', code: 'invalid_format', detail: 'email is not an email address.' },
    ]);
  }
  return value;
}

/** The one-time link that sets a user's password: the token rides in the fragment, so it is never sent to a server log. */
export const passwordLinkUrl = (baseUrl: string, linkToken: string) =>
  `${baseUrl}${DASHBOARD_PATH}/set-password#token=${linkToken}`;

export interface CreatedUser {
  user: UserRow;
  set_password_url: string;
  set_password_expires_at: Date;
}

/**
 * A new user of the tenant and its set-password link. 409 email_taken when the email is already a user of this tenant;
 * other tenants' users of the same email are other accounts, and nothing here tells of them.
 */
export async function createUser(
  pool: Pool,
  settings: DashboardSettings,
  baseUrl: string,
  input: { tenantId: string; email: string; role: Role },
): Promise<CreatedUser> {
  const email = normaliseEmail(input.email);
  const linkToken = token();
  return inTransaction(pool, async (client) => {
    const user = await insertUser(client, { id: randomUUID(), tenantId: input.tenantId, email, role: input.role });
    if (!user) throw new ApiError(409, 'email_taken', `${email} already has a dashboard account in this team.`);
    const expires = await replacePasswordLink(client, user.id, sha256(linkToken), settings.passwordLinkTtlMs);
    return { user, set_password_url: passwordLinkUrl(baseUrl, linkToken), set_password_expires_at: expires };
  });
}

/** A new set-password link for a user of the tenant (its earlier links stop working); null when there is no such user. */
export async function newPasswordLink(
  pool: Pool,
  settings: DashboardSettings,
  baseUrl: string,
  tenantId: string,
  userId: string,
): Promise<{ user: UserRow; set_password_url: string; set_password_expires_at: Date } | null> {
  const linkToken = token();
  return inTransaction(pool, async (client) => {
    const user = await userById(client, tenantId, userId);
    if (!user) return null;
    const expires = await replacePasswordLink(client, user.id, sha256(linkToken), settings.passwordLinkTtlMs);
    return { user, set_password_url: passwordLinkUrl(baseUrl, linkToken), set_password_expires_at: expires };
  });
}

const linkInvalid = () =>
  new ApiError(
    422,
    'password_link_invalid',
    'This set-password link is unknown, already used or expired; ask an owner of your account for a new one.',
  );

/**
 * Sets the password of the link's user (its sessions end). 422 password_link_invalid for an unknown, used or expired
 * link, found before any hashing: a bogus token costs a lookup, not a 128 MiB scrypt. The link is used (deleted) in
 * the transaction that stores the hash, so a hash refused for want of a slot (503 password_check_busy) leaves it
 * usable; of two uses at once one stores its password, the other gets 422.
 */
export async function setPasswordWithLink(pool: Pool, linkToken: string, password: string): Promise<void> {
  const tokenHash = sha256(linkToken);
  const link = await passwordLinkUser(pool, tokenHash);
  if (!link) throw linkInvalid();
  const hash = await hashPassword(password, await siblingPasswordHash(pool, link.email, link.user_id));
  await inTransaction(pool, async (client) => {
    const userId = await consumePasswordLink(client, tokenHash);
    if (userId !== link.user_id) throw linkInvalid();
    await setPasswordHash(client, userId, hash);
  });
}

/** Changes a user's role; 409 last_owner when it would leave the tenant without an owner. */
export async function changeRole(pool: Pool, tenantId: string, userId: string, role: Role): Promise<UserRow> {
  return inTransaction(pool, async (client) => {
    const owners = await lockOwners(client, tenantId);
    const user = await userById(client, tenantId, userId);
    if (!user) throw notFound('User');
    if (user.role === 'owner' && role !== 'owner' && owners.length === 1) {
      throw new ApiError(409, 'last_owner', 'This is the account’s only owner; make another user an owner first.');
    }
    return (await updateUserRole(client, tenantId, userId, role))!;
  });
}

/** Removes a user and with it every session it has; 409 last_owner for the tenant's only owner. */
export async function removeUser(pool: Pool, tenantId: string, userId: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    const owners = await lockOwners(client, tenantId);
    const user = await userById(client, tenantId, userId);
    if (!user) throw notFound('User');
    if (user.role === 'owner' && owners.length === 1) {
      throw new ApiError(409, 'last_owner', 'This is the account’s only owner; make another user an owner first.');
    }
    await deleteUserRow(client, tenantId, userId);
  });
}

export interface NewSession {
  /** The cookie's value; only its hash is stored. */
  sessionToken: string;
  csrfToken: string;
  user: UserRow;
  tenantName: string;
  expiresAt: Date;
}

/** What a sign-in answers: a session, or the tenants whose accounts the email and password open, to choose from. */
export type SignInResult =
  ({ kind: 'session' } & NewSession) | { kind: 'choose_tenant'; tenants: Array<{ id: string; name: string }> };

const lockedOut = (detail: string) =>
  new ApiError(429, 'sign_in_locked', detail, undefined, {
    'retry-after': String(Math.ceil(SIGN_IN_WINDOW_MS / 1000)),
  });

/**
 * Counts a sign-in attempt as a failure of its email and of its client address before its password is checked,
 * atomically (a lock per subject): 429 sign_in_locked when either is at its limit already. So however many attempts
 * arrive at once, at most MAX_FAILURES_PER_EMAIL passwords are checked per email and MAX_FAILURES_PER_ADDRESS per
 * address in a window. Returns the attempt's id and the email's failures before it.
 */
async function countAttempt(
  pool: Pool,
  subjects: [email: string, address: string],
): Promise<{ attempt: string; emailFailures: number }> {
  const attempt = randomUUID();
  const failures = await inTransaction(pool, async (client) => {
    await lockSubjects(client, subjects);
    const counted = await countFailures(client, subjects, SIGN_IN_WINDOW_MS);
    if ((counted.get(subjects[0]) ?? 0) >= MAX_FAILURES_PER_EMAIL) {
      throw lockedOut(
        `Too many failed sign-ins for this email: sign-in is locked for up to ${SIGN_IN_WINDOW_MS / 60_000} minutes.`,
      );
    }
    if ((counted.get(subjects[1]) ?? 0) >= MAX_FAILURES_PER_ADDRESS) {
      throw lockedOut(
        `Too many failed sign-ins from this address: try again in up to ${SIGN_IN_WINDOW_MS / 60_000} minutes.`,
      );
    }
    await recordFailure(client, subjects, attempt);
    return counted;
  });
  return { attempt, emailFailures: failures.get(subjects[0]) ?? 0 };
}

/**
 * Checks an email and password and opens a session. An email may have an account in several tenants (each with its
 * own password): the password is checked against each of them at once (one hash: they share their salt), or only
 * against `tenantId`'s when given. One account opened: a session. Several: the tenants to choose from (their ids and
 * names, told only to whoever knows the password), and the caller signs in again naming one.
 *
 * Every failure is the same 401 invalid_credentials (unknown email, wrong password, no password set yet, no account
 * in that tenant), and takes as long. Five failures for one email within 15 minutes lock that email's sign-in until
 * they are 15 minutes old; twenty from one client address do the same for the address (429 sign_in_locked, also for
 * the right password meanwhile). A hash refused for want of a slot (503 password_check_busy) counts as no attempt.
 */
export async function signIn(
  pool: Pool,
  settings: DashboardSettings,
  input: { email: string; password: string; address: string; tenantId?: string | null },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const subjects: [string, string] = [`email:${email}`, `ip:${input.address}`];
  const { attempt, emailFailures } = await countAttempt(pool, subjects);
  let opened: AccountRow[];
  try {
    const accounts = await accountsByEmail(pool, email, input.tenantId ?? null);
    const matches = await verifyMany(
      input.password,
      accounts.map((a) => a.password_hash!),
    );
    opened = accounts.filter((_, i) => matches[i]);
  } catch (err) {
    await forgetAttempt(pool, attempt); // no password was checked (or the check failed): not a failure
    throw err;
  }
  if (opened.length === 0) {
    await purgeFailures(pool, SIGN_IN_WINDOW_MS);
    const left = MAX_FAILURES_PER_EMAIL - emailFailures - 1;
    throw new ApiError(
      401,
      'invalid_credentials',
      left > 0
        ? 'Wrong email or password.'
        : `Wrong email or password. Sign-in for this email is now locked for ${SIGN_IN_WINDOW_MS / 60_000} minutes.`,
    );
  }
  await forgetAttempt(pool, attempt);
  await clearFailures(pool, subjects[0]);
  if (opened.length > 1)
    return { kind: 'choose_tenant', tenants: opened.map((a) => ({ id: a.tenant_id, name: a.tenant_name })) };
  const user = opened[0];
  await deleteExpired(pool);
  const sessionToken = token();
  const csrfToken = token();
  const { expires_at } = await insertSession(pool, {
    idHash: sha256(sessionToken),
    userId: user.id,
    tenantId: user.tenant_id,
    csrfToken,
    idleMs: settings.sessionIdleMs,
    maxMs: settings.sessionMaxMs,
  });
  await markSignedIn(pool, user.id);
  return { kind: 'session', sessionToken, csrfToken, user, tenantName: user.tenant_name, expiresAt: expires_at };
}

/** The stored form of a session cookie's value. */
export const sessionHash = (sessionToken: string): Buffer => sha256(sessionToken);

/** Signs a dashboard session out: it is forgotten at once (the route clears the cookie). */
export async function signOut(pool: Pool, sessionIdHash: Buffer): Promise<void> {
  await deleteSession(pool, sessionIdHash);
}
