// Dashboard passwords, hashed with Node's own scrypt (no native add-on to build): OWASP's parameters, N = 2^17,
// r = 8, p = 1 (128 MiB, a few hundred ms on this machine kind), a 16-byte random salt and a 32-byte hash.
// Stored as `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can be raised later and old
// hashes still verify. Comparison is constant-time.
//
// Each hash takes 128 MiB and a core for a few hundred ms, so they are rationed per process: at most `concurrency`
// run at once and `queue` more wait for a turn; beyond that a hash is refused at once (503 password_check_busy,
// Retry-After) instead of piling up behind the others (DASHBOARD_PASSWORD_HASH_CONCURRENCY, _QUEUE).
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ApiError } from '../http/problem.js';

const LOG_N = 17;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

export interface HashLimits {
  /** Hashes computed at once by this process. */
  concurrency: number;
  /** Hashes waiting for a turn; one more is refused. */
  queue: number;
}

/** Seconds a refused caller is told to wait (Retry-After). */
export const HASH_BUSY_RETRY_AFTER_S = 2;

let limits: HashLimits = { concurrency: 2, queue: 8 };
let running = 0;
const waiting: Array<() => void> = [];
/** Hashes computed and refused since the process started (the tests count password checks with them). */
const stats = { computed: 0, refused: 0 };

/** Sets this process's bounds (src/app.ts, from DASHBOARD_PASSWORD_HASH_CONCURRENCY and _QUEUE). */
export function setHashLimits(next: HashLimits): void {
  limits = { concurrency: Math.max(1, next.concurrency), queue: Math.max(0, next.queue) };
}

/** Hashes computed and refused so far, and waiting now. */
export const hashStats = (): { computed: number; refused: number; queued: number } => ({
  ...stats,
  queued: waiting.length,
});

const busy = () =>
  new ApiError(
    503,
    'password_check_busy',
    `Too many passwords are being checked right now; try again in ${HASH_BUSY_RETRY_AFTER_S} seconds.`,
    undefined,
    {
      'retry-after': String(HASH_BUSY_RETRY_AFTER_S),
    },
  );

/** Runs `work` in a hashing slot: now, after a wait in the queue, or not at all (throws 503 password_check_busy). */
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= limits.concurrency) {
    if (waiting.length >= limits.queue) {
      stats.refused++;
      throw busy();
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next)
      next(); // the slot passes on as it is
    else running--;
  }
}

function scrypt(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  // maxmem must exceed 128 * N * r bytes, or Node refuses.
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return inSlot(() => {
    stats.computed++;
    return new Promise<Buffer>((resolve, reject) =>
      scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) =>
        err ? reject(err) : resolve(key),
      ),
    );
  });
}

/**
 * A new hash of `password`. `sameSaltAs`: another stored hash of the same email (another tenant's account of the same
 * person) whose salt this one reuses, so that sign-in checks every account of an email with one hash (verifyMany).
 */
export async function hashPassword(password: string, sameSaltAs?: string | null): Promise<string> {
  const parsed = sameSaltAs ? parseHash(sameSaltAs) : null;
  const salt = parsed && parsed.logN === LOG_N && parsed.r === R && parsed.p === P ? parsed.salt : randomBytes(16);
  const hash = await scrypt(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

interface ParsedHash {
  logN: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return null;
  return { logN, r, p, salt: Buffer.from(parts[4], 'base64'), hash: Buffer.from(parts[5], 'base64') };
}

/**
 * Which of `stored` (hashes of one email's accounts) `password` matches, as a boolean per hash. Hashes sharing their
 * parameters and salt (hashPassword's `sameSaltAs`) cost one scrypt together; nothing to check costs one against a
 * decoy, so an unknown email takes as long as a known one. Throws 503 password_check_busy when no slot is free.
 */
export async function verifyMany(password: string, stored: string[]): Promise<boolean[]> {
  const parsed = stored.map(parseHash);
  const groups = new Map<string, ParsedHash>();
  for (const h of parsed) if (h) groups.set(`${h.logN}$${h.r}$${h.p}$${h.salt.toString('base64')}`, h);
  if (groups.size === 0) groups.set('decoy', DECOY);
  const derived = new Map<string, Buffer>();
  for (const [key, h] of groups) derived.set(key, await scrypt(password, h.salt, h.logN, h.r, h.p));
  return parsed.map((h) => {
    if (!h) return false;
    const actual = derived.get(`${h.logN}$${h.r}$${h.p}$${h.salt.toString('base64')}`)!;
    return h.hash.length === actual.length && timingSafeEqual(h.hash, actual);
  });
}

/** Checked against when an email has no password to check, so that both cases take as long; no password matches it. */
const DECOY: ParsedHash = { logN: LOG_N, r: R, p: P, salt: randomBytes(16), hash: randomBytes(KEY_LENGTH) };
