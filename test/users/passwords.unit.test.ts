// Dashboard password hashes (src/users/passwords.ts): the stored format, old parameters still verifying, one scrypt
// for the accounts of one email that share a salt, NFKC normalisation, and the per-process rationing of hashes
// (503 password_check_busy with Retry-After beyond the queue). Cheap parameters (N = 2^10) where the format allows.
import { randomBytes, scryptSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/problem.js';
import {
  HASH_BUSY_RETRY_AFTER_S,
  hashPassword,
  hashStats,
  setHashLimits,
  verifyMany,
} from '../../src/users/passwords.js';

/** A stored hash with cheap parameters, as an older release with a lower cost would have written it. */
function cheapHash(password: string, salt = randomBytes(16), logN = 10): string {
  const hash = scryptSync(password.normalize('NFKC'), salt, 32, { N: 2 ** logN, r: 8, p: 1 });
  return ['scrypt', logN, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

afterEach(() => setHashLimits({ concurrency: 2, queue: 8 }));

describe('password hashes', () => {
  it('hashPassword writes scrypt$17$8$1$<salt>$<hash>, which verifies; the same salt when asked to share one', async () => {
    const stored = await hashPassword('correct horse battery');
    const parts = stored.split('$');
    expect(parts.slice(0, 4)).toEqual(['scrypt', '17', '8', '1']);
    expect(Buffer.from(parts[4], 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[5], 'base64')).toHaveLength(32);
    expect(await verifyMany('correct horse battery', [stored])).toEqual([true]);
    const sibling = await hashPassword('another passphrase', stored);
    expect(sibling.split('$')[4]).toBe(parts[4]);
  }, 20_000);

  it('verifyMany: a boolean per stored hash; older parameters still verify; malformed ones match nothing', async () => {
    const salt = randomBytes(16);
    const a = cheapHash('pässwörd one', salt);
    const b = cheapHash('another one', salt);
    const before = hashStats().computed;
    expect(await verifyMany('pässwörd one', [a, b, 'nonsense', 'scrypt$99$8$1$AA==$AA=='])).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(hashStats().computed - before).toBe(1); // one salt, one scrypt
    // NFKC: the composed and decomposed spellings are one password.
    expect(await verifyMany('pa\u0308sswo\u0308rd one', [a])).toEqual([true]);
  });

  it('beyond the running and queued hashes a check is refused at once: 503 password_check_busy with Retry-After', async () => {
    setHashLimits({ concurrency: 1, queue: 0 });
    const stored = cheapHash('p', randomBytes(16), 14);
    const first = verifyMany('p', [stored]);
    const second = verifyMany('p', [stored]).catch((err: unknown) => err);
    const refused = (await second) as ApiError;
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      statusCode: 503,
      code: 'password_check_busy',
      headers: { 'retry-after': String(HASH_BUSY_RETRY_AFTER_S) },
    });
    expect(await first).toEqual([true]);
    // With a queue the second waits for its turn instead.
    setHashLimits({ concurrency: 1, queue: 1 });
    expect(await Promise.all([verifyMany('p', [stored]), verifyMany('q', [stored])])).toEqual([[true], [false]]);
  });
});
