// Dashboard passwords, hashed with Node's own scrypt (no native add-on to build): OWASP's parameters, N = 2^17,
// r = 8, p = 1 (128 MiB, a few hundred ms on this machine kind), a 16-byte random salt and a 32-byte hash.
// Stored as `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can be raised later and old
// hashes still verify. Comparison is constant-time.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const LOG_N = 17;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

function scrypt(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  // maxmem must exceed 128 * N * r bytes, or Node refuses.
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** True when `password` matches `stored`; false for a wrong password or a malformed stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return false;
  const expected = Buffer.from(parts[5], 'base64');
  const actual = await scrypt(password, Buffer.from(parts[4], 'base64'), logN, r, p);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A hash no password matches, verified against when the email is unknown so that both cases take as long. */
let decoy: Promise<string> | null = null;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword(randomBytes(24).toString('base64')));
