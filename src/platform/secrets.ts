// API keys: `sk_live_` / `pk_live_` + 32 base62 characters, and their test-mode twins `sk_test_` / `pk_test_`
// (docs/test-mode.md). Only the SHA-256 hash is ever stored.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type KeyKind = 'secret' | 'publishable';
/** `live` keys see and create live objects; `test` keys only test ones (livemode false). */
export type KeyMode = 'live' | 'test';
export const KEY_MODES: readonly KeyMode[] = ['live', 'test'];
const KIND_PREFIX: Record<KeyKind, string> = { secret: 'sk', publishable: 'pk' };
/** `sk_live_`, `pk_test_`, ...: what a key of this kind and mode starts with. */
export const keyPrefix = (kind: KeyKind, mode: KeyMode = 'live'): string => `${KIND_PREFIX[kind]}_${mode}_`;
const KEY_PATTERN = /^(sk|pk)_(live|test)_[0-9A-Za-z]{32}$/;

/** Uniform base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateKey(kind: KeyKind, mode: KeyMode = 'live'): string {
  return keyPrefix(kind, mode) + randomBase62(32);
}

/**
 * A key derived from a secret (HMAC-SHA256 of `context` under `secret`): the same secret and context give the same key
 * again, and nobody without the secret can tell it. Its 32 base62 characters come from the 256-bit digest read as one
 * number (62^32 < 2^191: the bias is below 2^-64).
 */
export function deriveKey(kind: KeyKind, mode: KeyMode, secret: string, context: string): string {
  let n = BigInt(`0x${createHmac('sha256', secret).update(context).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 32; i++) {
    out += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return keyPrefix(kind, mode) + out;
}

export const hashKey = (key: string): Buffer => createHash('sha256').update(key).digest();

/** The kind and mode of a well-formed key, or null for anything that is not the shape of a key we issue. */
export function parseKey(key: string): { kind: KeyKind; mode: KeyMode } | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  return { kind: match[1] === 'sk' ? 'secret' : 'publishable', mode: match[2] as KeyMode };
}

/** Constant-time comparison of two key hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format. */
export const generateWebhookSecret = (): string => 'whsec_' + randomBytes(24).toString('base64');
