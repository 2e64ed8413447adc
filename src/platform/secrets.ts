// API keys: `sk_live_` / `pk_live_` + 32 base62 characters, and their test-mode twins `sk_test_` / `pk_test_`
// (docs/test-mode.md). Only the SHA-256 hash is ever stored.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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
