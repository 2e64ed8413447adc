// The API key cache (src/keys/cache.ts) against the real Postgres: keys are served from memory once the cache listens,
// and a change is never served past: made in this process (at once), made elsewhere (announced by the api_keys trigger),
// made while a read was in flight, or while the listener was lost (nothing cached until it is back).
import { Client as TemporalClient } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { KeyCache, keyChanged } from '../../src/keys/cache.js';
import { keyByHash, type KeyRow } from '../../src/keys/repository.js';
import { hashKey } from '../../src/platform/secrets.js';
import { createTenant } from '../../src/tenants/service.js';
import { revokeKey } from '../../src/keys/service.js';

let pool: Pool;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'), 4);
});
afterAll(async () => {
  await pool.end();
});

/** Polls `check` every 20 ms until it holds (or fails the test after `ms`). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('KeyCache', () => {
  let cache: KeyCache;
  let reads = 0;
  let key: string;
  let keyId: string;
  const lookup = () =>
    cache.lookup(hashKey(key), 'secret', () => {
      reads++;
      return keyByHash(pool, hashKey(key), 'secret');
    });
  /** True when a lookup is answered from memory (no read of Postgres). */
  const served = async () => {
    const before = reads;
    await lookup();
    return reads === before;
  };

  beforeAll(async () => {
    const tenant = await createTenant(pool, 'key cache');
    key = tenant.secret_key;
    keyId = tenant.secret_key_id;
  });

  it('reads Postgres until it listens, then answers from memory', async () => {
    cache = new KeyCache(pool);
    expect((await lookup())?.id).toBe(keyId);
    expect(reads).toBe(1); // the first lookup reads: nothing is cached before the listener is up
    await eventually(served, 'a lookup answered from memory');
    const before = reads;
    for (let i = 0; i < 20; i++) expect((await lookup())?.id).toBe(keyId);
    expect(reads).toBe(before);
  });

  it('forgets a key changed in this process at once (keyChanged)', async () => {
    await eventually(served, 'cached');
    keyChanged(keyId);
    expect(await served()).toBe(false);
  });

  it('forgets a key changed by another process, on the api_keys_changed announcement', async () => {
    await eventually(served, 'cached');
    // Plain SQL on another connection: the path of another API process, the admin CLI or an operator's psql.
    await pool.query(`UPDATE api_keys SET allowed_origins = allowed_origins WHERE id = $1`, [keyId]);
    await eventually(async () => !(await served()), 'the announced key read again');
    await pool.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [keyId]);
    await eventually(async () => (await lookup())?.revoked_at !== null, 'the revocation seen');
    await pool.query(`UPDATE api_keys SET revoked_at = NULL WHERE id = $1`, [keyId]);
    await eventually(async () => (await lookup())?.revoked_at === null, 'the key active again');
  });

  it('does not keep what a read in flight during a change returned', async () => {
    await eventually(served, 'cached');
    const stale: KeyRow | null = await keyByHash(pool, hashKey(key), 'secret'); // what the read saw before the change
    keyChanged(keyId); // so that the lookup below reads
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inFlight = cache.lookup(hashKey(key), 'secret', async () => {
      reads++;
      await gate;
      return stale;
    });
    keyChanged(keyId); // the change commits while the read is in flight
    release();
    await inFlight;
    expect(await served()).toBe(false);
  });

  it('caches nothing while its listener is lost, and again once it is back', async () => {
    await eventually(served, 'cached');
    await pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'delivery-api key cache' AND datname = current_database()`,
    );
    await eventually(async () => !(await served()), 'the cache emptied when its listener was lost');
    expect(await served()).toBe(false); // still not caching right after
    await eventually(served, 'caching again after reconnecting', 10_000);
  });

  afterAll(async () => {
    await cache?.close();
  });
});

describe('authentication through the cache', () => {
  let app: Awaited<ReturnType<typeof buildApp>>;
  let temporal: TemporalClient;
  beforeAll(async () => {
    const config: Config = {
      ...loadConfig({}),
      databaseUrl: inject('databaseUrl'),
      logLevel: 'silent',
      rateLimitPerMinute: 100_000,
    };
    temporal = new TemporalClient({ namespace: config.temporalNamespace }); // lazy: GET /v1/deliveries never dials it
    app = await buildApp({ config, pool, temporal }, { logger: false });
  });
  afterAll(async () => {
    await app.close();
  });
  const list = (key: string) =>
    app.inject({ method: 'GET', url: '/v1/deliveries', headers: { authorization: `Bearer ${key}` } });

  it('answers 401 right after a revocation in this process, and within moments of one made elsewhere', async () => {
    const here = await createTenant(pool, 'revoked here');
    const elsewhere = await createTenant(pool, 'revoked elsewhere');
    for (let i = 0; i < 30; i++) {
      expect((await list(here.secret_key)).statusCode).toBe(200);
      expect((await list(elsewhere.secret_key)).statusCode).toBe(200);
    }
    await revokeKey(pool, here.secret_key); // the repository: this process's caches forget it before it returns
    expect((await list(here.secret_key)).statusCode).toBe(401);

    await pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [elsewhere.secret_key_id]);
    await eventually(
      async () => (await list(elsewhere.secret_key)).statusCode === 401,
      'the key revoked elsewhere refused',
    );
  });
});
