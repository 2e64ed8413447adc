// API keys and client secrets (src/platform/secrets.ts, src/deliveries/client-secret.ts) and the API key view: the key
// format and its parsing, uniform base62, hashes compared in constant time, and views that never carry a secret.
import { describe, expect, it } from 'vitest';
import { clientSecretMatches, hashClientSecret, newClientSecret } from '../../src/deliveries/client-secret.js';
import type { ApiKeyRow } from '../../src/keys/repository.js';
import { ApiKey } from '../../src/keys/schemas.js';
import { toApiKey } from '../../src/keys/views.js';
import {
  generateKey,
  generateWebhookSecret,
  hashKey,
  keyPrefix,
  parseKey,
  randomBase62,
  sameHash,
} from '../../src/platform/secrets.js';
import { isUuid } from '../../src/platform/uuid.js';

describe('API keys', () => {
  it('generateKey: the prefix of its kind and mode, then 32 base62 characters; parseKey reads both back', () => {
    for (const kind of ['secret', 'publishable'] as const) {
      for (const mode of ['live', 'test'] as const) {
        const key = generateKey(kind, mode);
        expect(key).toMatch(new RegExp(`^${keyPrefix(kind, mode)}[0-9A-Za-z]{32}$`));
        expect(parseKey(key)).toEqual({ kind, mode });
      }
    }
    expect(keyPrefix('secret')).toBe('sk_live_');
    expect(keyPrefix('publishable', 'test')).toBe('pk_test_');
  });

  it('parseKey refuses anything not the exact shape of a key we issue', () => {
    const body = 'A'.repeat(32);
    for (const bad of [
      '',
      `sk_live_${'A'.repeat(31)}`,
      `sk_live_${'A'.repeat(33)}`,
      `sk_prod_${body}`,
      `rk_live_${body}`,
      `SK_LIVE_${body}`,
      ` sk_live_${body}`,
      `sk_live_${body}\n`,
      `sk_live_${'A'.repeat(31)}-`,
      `sk_live_${'A'.repeat(31)}é`,
    ])
      expect(parseKey(bad), JSON.stringify(bad)).toBeNull();
  });

  it('randomBase62: the length asked, only base62, every character used (no modulo bias worth seeing)', () => {
    expect(randomBase62(0)).toBe('');
    const text = randomBase62(62 * 200);
    expect(text).toMatch(/^[0-9A-Za-z]+$/);
    expect(text).toHaveLength(62 * 200);
    const counts = new Map<string, number>();
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 200 expected each; a modulo-biased generator would give the first 8 characters about 25% more.
    for (const [c, n] of counts) expect(n, c).toBeLessThan(320);
    expect(randomBase62(32)).not.toBe(randomBase62(32));
  });

  it('hashKey is SHA-256; sameHash compares equal-length hashes only', () => {
    const key = generateKey('secret');
    expect(hashKey(key)).toHaveLength(32);
    expect(sameHash(hashKey(key), hashKey(key))).toBe(true);
    expect(sameHash(hashKey(key), hashKey(generateKey('secret')))).toBe(false);
    expect(sameHash(hashKey(key), hashKey(key).subarray(0, 16))).toBe(false);
  });

  it('webhook secrets: whsec_ and base64 of 24 bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
  });

  it('the view: prefix and status, never the hash; a publishable key whole, with its widget payment rules', () => {
    const row: ApiKeyRow = {
      id: '55555555-5555-4555-8555-555555555555',
      kind: 'publishable',
      livemode: false,
      prefix: 'pk_test_7Hq2',
      publishable_key: 'pk_test_7Hq2mXc9Lr4Tz8Wb1Kd6Nf3Vy5Pg0Sj2',
      allowed_origins: ['https://shop.test'],
      widget_payment_methods: null,
      widget_cod_amount_aoa: null,
      created_at: new Date('2030-01-01T00:00:00Z'),
      revoked_at: null,
    };
    const view = toApiKey({ ...row, key_hash: Buffer.from('x') } as ApiKeyRow);
    expect(ApiKey.strict().parse(view)).toBeTruthy();
    expect(view).toMatchObject({
      status: 'active',
      revoked_at: null,
      prefix: 'pk_test_7Hq2',
      publishable_key: 'pk_test_7Hq2mXc9Lr4Tz8Wb1Kd6Nf3Vy5Pg0Sj2',
      widget_payment_methods: ['prepaid', 'bank_transfer'],
      widget_cod_amount_aoa: null,
    });
    expect(view).not.toHaveProperty('key_hash');
    const revoked = toApiKey({ ...row, revoked_at: new Date('2030-02-01T00:00:00Z') });
    expect(revoked).toMatchObject({ status: 'revoked', revoked_at: '2030-02-01T00:00:00.000Z' });
    const cod = toApiKey({ ...row, widget_payment_methods: ['cod'], widget_cod_amount_aoa: '700000' });
    expect(cod).toMatchObject({ widget_payment_methods: ['cod'], widget_cod_amount_aoa: 700_000 });
    // A secret key: never whole, no payment rules, even if a row carried them.
    const secret = toApiKey({ ...row, kind: 'secret', prefix: 'sk_test_7Hq2', widget_payment_methods: ['cod'] });
    expect(secret).toMatchObject({ publishable_key: null, widget_payment_methods: null, widget_cod_amount_aoa: null });
    expect(ApiKey.strict().parse(secret)).toBeTruthy();
  });
});

describe('client secrets of widget deliveries', () => {
  const id = '0b6f4c1e-7a6e-4c31-9d2a-2f1c1f0e9a11';
  const other = '0b6f4c1e-7a6e-4c31-9d2a-2f1c1f0e9a12';

  it('<delivery id>_secret_<32 base62>, stored as its hash; matches only its own delivery', () => {
    const { secret, hash } = newClientSecret(id);
    expect(secret).toMatch(new RegExp(`^${id}_secret_[0-9A-Za-z]{32}$`));
    expect(hash.equals(hashClientSecret(secret))).toBe(true);
    expect(clientSecretMatches(id, hash, secret)).toBe(true);
    expect(clientSecretMatches(id, hash, secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a'))).toBe(false);
    expect(clientSecretMatches(other, hash, secret)).toBe(false);
    expect(clientSecretMatches(id, null, secret)).toBe(false);
    const foreign = newClientSecret(other);
    expect(clientSecretMatches(id, hash, foreign.secret)).toBe(false);
  });

  it('isUuid: any version, either case, nothing around it', () => {
    expect(isUuid(id)).toBe(true);
    expect(isUuid(id.toUpperCase())).toBe(true);
    expect(isUuid(`${id} `)).toBe(false);
    expect(isUuid(id.replace(/-/g, ''))).toBe(false);
    expect(isUuid('not-a-uuid')).toBe(false);
  });
});
