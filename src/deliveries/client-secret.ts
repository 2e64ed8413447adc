// Per-delivery client secrets of widget deliveries (Stripe's PaymentIntent `client_secret` is the model):
// `<delivery id>_secret_<32 base62>`, shown once in the widget's creation answer; only its SHA-256 hash is stored.
// Presented on GET /v1/widget/deliveries/{id}?client_secret=..., it unlocks the fuller view with the PIN.
import { createHash } from 'node:crypto';
import { randomBase62, sameHash } from '../platform/secrets.js';

export function newClientSecret(deliveryId: string): { secret: string; hash: Buffer } {
  const secret = `${deliveryId}_secret_${randomBase62(32)}`;
  return { secret, hash: hashClientSecret(secret) };
}

export const hashClientSecret = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Whether `presented` is this delivery's client secret (constant-time on the hashes). A delivery without one matches nothing. */
export function clientSecretMatches(deliveryId: string, storedHash: Buffer | null, presented: string): boolean {
  if (!storedHash) return false;
  // The id prefix is not secret: checking it first leaks nothing, and a secret of another delivery never matches.
  if (!presented.startsWith(`${deliveryId}_secret_`)) return false;
  return sameHash(storedHash, hashClientSecret(presented));
}
