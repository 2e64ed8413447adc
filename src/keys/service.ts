// API keys: issuing (a secret key is shown once and only its hash is stored; a publishable key, public by design, is
// also stored whole and readable at any time), revoking, and the origins a publishable key allows. Used by the admin command line, the /v1/api_keys routes, the tenants service and the seeds.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../platform/db.js';
import { insertKey, insertKeyWithinLimit, insertSessionKey, revokeKeyRow } from './repository.js';
import { deriveKey, generateKey, hashKey, type KeyKind, type KeyMode } from '../platform/secrets.js';
import type { Scope } from '../platform/scope.js';
import { isUuid } from '../platform/uuid.js';

export interface IssuedKey {
  id: string;
  key: string;
}

/** A new key of this kind and mode (`test`: sk_test_ / pk_test_, confined to test objects). */
export async function createKey(
  pool: Pool,
  tenantId: string,
  kind: KeyKind,
  allowedOrigins: string[] = [],
  mode: KeyMode = 'live',
): Promise<IssuedKey> {
  const key = generateKey(kind, mode);
  const id = randomUUID();
  await insertKey(pool, {
    id,
    tenantId,
    kind,
    mode,
    hash: hashKey(key),
    prefix: key.slice(0, 12),
    allowedOrigins: allowedOrigins.map(normaliseOrigin),
    key,
  });
  return { id, key };
}

/**
 * A new key of the scope's tenant and mode, unless it already has `max` active keys of that mode (null then): the
 * limit is checked in the insert's transaction (src/keys/repository.ts insertKeyWithinLimit).
 */
export async function createKeyWithinLimit(
  pool: Pool,
  scope: Scope,
  kind: KeyKind,
  allowedOrigins: string[],
  max: number,
): Promise<IssuedKey | null> {
  const mode: KeyMode = scope.livemode ? 'live' : 'test';
  const key = generateKey(kind, mode);
  const id = randomUUID();
  const row = {
    id,
    tenantId: scope.tenantId,
    kind,
    mode,
    hash: hashKey(key),
    prefix: key.slice(0, 12),
    allowedOrigins: allowedOrigins.map(normaliseOrigin),
    key,
  };
  return (await insertKeyWithinLimit(pool, row, max)) ? { id, key } : null;
}

/**
 * The API reference's test secret key for one dashboard session (docs/reference.md): `sk_test_...` of the session's
 * tenant, derived from the session's secret token (so each visit finds the same key and only the holder of the
 * session cookie can know it), stored as a hash like every key, ending at the session's deadline or with the session
 * (migration 1700000050000). Null when that key was revoked or has expired.
 */
export async function sessionTestKey(
  pool: Pool,
  session: { tenantId: string; token: string; idHash: Buffer; expiresAt: Date },
): Promise<string | null> {
  const key = deriveKey('secret', 'test', session.token, 'api-reference-test-key');
  const usable = await insertSessionKey(pool, {
    id: randomUUID(),
    tenantId: session.tenantId,
    hash: hashKey(key),
    prefix: key.slice(0, 12),
    sessionHash: session.idHash,
    expiresAt: session.expiresAt,
  });
  return usable ? key : null;
}

/** Revokes by key id or by the key itself. Returns the revoked key's id, or null when there is no such key. */
export async function revokeKey(pool: Pool, idOrKey: string): Promise<string | null> {
  return revokeKeyRow(pool, isUuid(idOrKey) ? { id: idOrKey } : { hash: hashKey(idOrKey) });
}

/** `scheme://host[:port]`, lower-cased, default ports dropped. Throws on anything else. */
export function normaliseOrigin(origin: string): string {
  const url = new URL(origin);
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`"${origin}" is not an origin (expected scheme://host[:port])`);
  }
  return url.origin;
}
