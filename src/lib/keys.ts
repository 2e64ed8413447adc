// API keys: `sk_live_` / `pk_live_` + 32 base62 characters. Only the SHA-256 hash is ever stored.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type KeyKind = 'secret' | 'publishable';
export const KEY_PREFIX: Record<KeyKind, string> = { secret: 'sk_live_', publishable: 'pk_live_' };
const KEY_PATTERN = /^(sk|pk)_live_[0-9A-Za-z]{32}$/;

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

export function generateKey(kind: KeyKind): string {
  return KEY_PREFIX[kind] + randomBase62(32);
}

export const hashKey = (key: string): Buffer => createHash('sha256').update(key).digest();

export function keyKindOf(key: string): KeyKind | null {
  if (!KEY_PATTERN.test(key)) return null;
  return key.startsWith('sk_') ? 'secret' : 'publishable';
}

/** Constant-time comparison of two key hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format. */
export const generateWebhookSecret = (): string => 'whsec_' + randomBytes(24).toString('base64');
