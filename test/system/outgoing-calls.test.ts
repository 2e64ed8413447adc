// The Postgres limits docs/operations.md's table of outgoing calls states are really applied by the pool (that the
// table is the code's own is checked in the unit tier: test/system/outgoing-calls.unit.test.ts).
import net from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createPool, DB_CONNECT_TIMEOUT_MS, type Pool } from '../../src/platform/db.js';

const pools: Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end().catch(() => {})));
});

describe('outgoing calls: timeouts and retries', () => {
  it('a Postgres that takes the connection and never answers fails the query within the connect timeout', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket)); // accepts, says nothing (a cut network)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const pool = createPool(`postgres://postgres@127.0.0.1:${port}/nothing`, 1);
      pools.push(pool);
      const started = Date.now();
      await expect(pool.query('SELECT 1')).rejects.toThrow(/timeout/i);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(DB_CONNECT_TIMEOUT_MS - 100);
      expect(waited).toBeLessThan(DB_CONNECT_TIMEOUT_MS + 5000);
    } finally {
      sockets.forEach((s) => s.destroy());
      silent.close();
    }
  });

  it('a query that outlasts the query timeout fails instead of holding the caller', async () => {
    const pool = createPool(inject('databaseUrl'), 1, { queryTimeoutMs: 300 });
    pools.push(pool);
    await expect(pool.query('SELECT pg_sleep(3)')).rejects.toThrow(/timeout/i);
    // The pool stays usable.
    const fresh = createPool(inject('databaseUrl'), 1);
    pools.push(fresh);
    expect((await fresh.query('SELECT 1 AS one')).rows[0].one).toBe(1);
  });
});
