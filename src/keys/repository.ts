// API keys as stored (api_keys): keys are found by their SHA-256 hash (src/platform/secrets.ts makes and hashes them);
// a secret key is kept only as that hash, a publishable key (public by design) also whole, in `publishable_key`.
import { inTransaction, type Db, type Pool } from '../platform/db.js';
import { keyChanged } from './cache.js';
import type { KeyKind, KeyMode } from '../platform/secrets.js';
import type { Scope } from '../platform/scope.js';
import type { PaymentMethod } from '../../shared/deliveries/vocabulary.js';

export interface KeyRow {
  id: string;
  tenant_id: string;
  key_hash: Buffer;
  allowed_origins: string[];
  revoked_at: Date | null;
  /** false: a test key (sk_test_ / pk_test_), confined to test objects. */
  livemode: boolean;
}

export async function insertKey(
  pool: Db,
  key: {
    id: string;
    tenantId: string;
    kind: KeyKind;
    mode: KeyMode;
    hash: Buffer;
    prefix: string;
    allowedOrigins: string[];
    /** The whole key: stored only for a publishable key (migration 1700000050100); a secret key is kept as its hash. */
    key: string;
  },
): Promise<void> {
  await pool.query(
    `INSERT INTO api_keys (id, tenant_id, kind, livemode, key_hash, prefix, allowed_origins, publishable_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      key.id,
      key.tenantId,
      key.kind,
      key.mode === 'live',
      key.hash,
      key.prefix,
      key.allowedOrigins,
      key.kind === 'publishable' ? key.key : null,
    ],
  );
}

/**
 * The key of this kind with this hash (revoked ones too: the caller refuses them). A key past its `expires_at` (the
 * API reference's session keys) reads as revoked at that time.
 */
export async function keyByHash(pool: Pool, hash: Buffer, kind: KeyKind): Promise<KeyRow | null> {
  const { rows } = await pool.query<KeyRow>(
    `SELECT id, tenant_id, key_hash, allowed_origins, livemode,
            coalesce(revoked_at, CASE WHEN expires_at <= now() THEN expires_at END) AS revoked_at
       FROM api_keys WHERE key_hash = $1 AND kind = $2`,
    [hash, kind],
  );
  return rows[0] ?? null;
}

/** The id of the key with this hash, whatever its kind, or null. */
export async function keyIdByHash(pool: Pool, hash: Buffer): Promise<string | null> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM api_keys WHERE key_hash = $1', [hash]);
  return rows[0]?.id ?? null;
}

/** Revokes by id or by hash (a revoked key stays revoked at its first time). Returns the key's id, or null. */
export async function revokeKeyRow(pool: Pool, by: { id: string } | { hash: Buffer }): Promise<string | null> {
  const { rows } = await pool.query<{ id: string }>(
    'id' in by
      ? 'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id'
      : 'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_hash = $1 RETURNING id',
    ['id' in by ? by.id : by.hash],
  );
  if (rows[0]) keyChanged(rows[0].id);
  return rows[0]?.id ?? null;
}

/** Replaces a publishable key's allowed origins. Returns false when there is no such publishable key. */
export async function setAllowedOrigins(pool: Pool, keyId: string, origins: string[]): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE api_keys SET allowed_origins = $2 WHERE id = $1 AND kind = 'publishable'`,
    [keyId, origins],
  );
  keyChanged(keyId);
  return rowCount === 1;
}

/** Every origin some live publishable key allows (the CORS preflight cache). */
export async function allowedOrigins(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ origin: string }>(
    `SELECT DISTINCT unnest(allowed_origins) AS origin FROM api_keys WHERE kind = 'publishable' AND revoked_at IS NULL`,
  );
  return rows.map((r) => r.origin);
}

/** A key's widget payment policy as stored (nulls: no policy set). */
export async function widgetPolicyRow(
  pool: Pool,
  keyId: string,
): Promise<{ widget_payment_methods: PaymentMethod[] | null; widget_cod_amount_aoa: string | null } | null> {
  const { rows } = await pool.query<{
    widget_payment_methods: PaymentMethod[] | null;
    widget_cod_amount_aoa: string | null;
  }>('SELECT widget_payment_methods, widget_cod_amount_aoa FROM api_keys WHERE id = $1', [keyId]);
  return rows[0] ?? null;
}

/** Stores a publishable key's widget payment policy. Returns false when there is no such publishable key. */
export async function setWidgetPolicyRow(
  pool: Pool,
  keyId: string,
  methods: PaymentMethod[],
  codAmountAoa: number | null,
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE api_keys SET widget_payment_methods = $2, widget_cod_amount_aoa = $3 WHERE id = $1 AND kind = 'publishable'`,
    [keyId, methods, codAmountAoa],
  );
  return rowCount === 1;
}

// --- /v1/api_keys (src/keys/routes.ts): a tenant's keys of one mode, never their hash ---------------------

/**
 * A key as the merchant sees it: kind, mode, the first 12 characters, the whole key when it is a publishable one
 * issued since migration 1700000050100, origins, the widget's payment rules, revocation.
 */
export interface ApiKeyRow {
  id: string;
  kind: KeyKind;
  livemode: boolean;
  prefix: string;
  publishable_key: string | null;
  allowed_origins: string[];
  widget_payment_methods: PaymentMethod[] | null;
  widget_cod_amount_aoa: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

// A key past its expires_at (the API reference's session keys) shows as revoked at that time.
const API_KEY_COLUMNS =
  'id, kind, livemode, prefix, publishable_key, allowed_origins, widget_payment_methods, widget_cod_amount_aoa, created_at, ' +
  'coalesce(revoked_at, CASE WHEN expires_at <= now() THEN expires_at END) AS revoked_at';

/** The scope's keys, newest first (one extra row fetched for has_more). */
export async function listScopedKeys(
  pool: Pool,
  scope: Scope,
  limit: number,
  offset: number,
): Promise<{ rows: ApiKeyRow[]; hasMore: boolean }> {
  const { rows } = await pool.query<ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 AND livemode = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [scope.tenantId, scope.livemode, limit + 1, offset],
  );
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export async function findScopedKey(pool: Pool, scope: Scope, id: string): Promise<ApiKeyRow | null> {
  const { rows } = await pool.query<ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 AND livemode = $2 AND id = $3`,
    [scope.tenantId, scope.livemode, id],
  );
  return rows[0] ?? null;
}

/**
 * Inserts the key unless its tenant already has `max` active keys of its mode; false then. The count and the insert
 * share one transaction, serialised per tenant and mode by a transaction-scoped advisory lock, so concurrent
 * creations never pass the limit together (a plain count-then-insert let 80 parallel requests make 82 keys).
 */
export async function insertKeyWithinLimit(
  pool: Pool,
  key: {
    id: string;
    tenantId: string;
    kind: KeyKind;
    mode: KeyMode;
    hash: Buffer;
    prefix: string;
    allowedOrigins: string[];
    key: string;
  },
  max: number,
): Promise<boolean> {
  const livemode = key.mode === 'live';
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('api_keys:' || $1 || ':' || $2, 0))`, [
      key.tenantId,
      livemode,
    ]);
    const { rows } = await client.query<{ n: number }>(
      // The API reference's session keys (insertSessionKey) come and go with dashboard sessions: not counted.
      'SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1 AND livemode = $2 AND revoked_at IS NULL AND dashboard_session IS NULL',
      [key.tenantId, livemode],
    );
    if (rows[0].n >= max) return false;
    await insertKey(client, key);
    return true;
  });
}

/**
 * The API reference's test secret key of one dashboard session (migration 1700000050000): inserted once (the same key
 * is derived again on each visit), ending at `expiresAt` or with the session. Returns whether the key may be shown:
 * false when it was revoked (by hand, or its session ended) or has expired.
 */
export async function insertSessionKey(
  pool: Pool,
  key: { id: string; tenantId: string; hash: Buffer; prefix: string; sessionHash: Buffer; expiresAt: Date },
): Promise<boolean> {
  await pool.query(
    `INSERT INTO api_keys (id, tenant_id, kind, livemode, key_hash, prefix, dashboard_session, expires_at)
     VALUES ($1, $2, 'secret', false, $3, $4, $5, $6) ON CONFLICT (key_hash) DO NOTHING`,
    [key.id, key.tenantId, key.hash, key.prefix, key.sessionHash, key.expiresAt],
  );
  const { rows } = await pool.query<{ usable: boolean }>(
    `SELECT revoked_at IS NULL AND expires_at > now() AND tenant_id = $2 AND dashboard_session = $3 AND NOT livemode AS usable
       FROM api_keys WHERE key_hash = $1`,
    [key.hash, key.tenantId, key.sessionHash],
  );
  return rows[0]?.usable === true;
}

/** Revokes one of the scope's keys (a revoked key keeps its first revocation time); null when there is no such key. */
export async function revokeScopedKey(pool: Pool, scope: Scope, id: string): Promise<ApiKeyRow | null> {
  const { rows } = await pool.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE tenant_id = $1 AND livemode = $2 AND id = $3 RETURNING ${API_KEY_COLUMNS}`,
    [scope.tenantId, scope.livemode, id],
  );
  keyChanged(id);
  return rows[0] ?? null;
}

/** What PATCH /v1/api_keys/{id} changes of a publishable key: each field given replaces the stored one. */
export interface PublishableKeyChange {
  allowedOrigins?: string[];
  /** The widget's payment rules (src/keys/widget-policy.ts), set together. */
  widgetPolicy?: { methods: PaymentMethod[]; codAmountAoa: number | null };
}

/** Changes one of the scope's active publishable keys (one statement); null when there is none such. */
export async function changeScopedPublishableKey(
  pool: Pool,
  scope: Scope,
  id: string,
  change: PublishableKeyChange,
): Promise<ApiKeyRow | null> {
  const sets: string[] = [];
  const values: unknown[] = [scope.tenantId, scope.livemode, id];
  if (change.allowedOrigins) {
    values.push(change.allowedOrigins);
    sets.push(`allowed_origins = $${values.length}`);
  }
  if (change.widgetPolicy) {
    values.push(change.widgetPolicy.methods, change.widgetPolicy.codAmountAoa);
    sets.push(`widget_payment_methods = $${values.length - 1}`, `widget_cod_amount_aoa = $${values.length}`);
  }
  const { rows } = await pool.query<ApiKeyRow>(
    `UPDATE api_keys SET ${sets.join(', ') || 'id = id'}
      WHERE tenant_id = $1 AND livemode = $2 AND id = $3 AND kind = 'publishable' AND revoked_at IS NULL
     RETURNING ${API_KEY_COLUMNS}`,
    values,
  );
  keyChanged(id);
  return rows[0] ?? null;
}
