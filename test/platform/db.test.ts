// The Postgres pool survives a server that drops connections (a restart, a failover): the crash test found a
// worker killed by a checked-out client's unhandled 'error' event.
import { describe, expect, inject, it } from 'vitest';
import { createPool } from '../../src/platform/db.js';

describe('createPool', () => {
  it('a checked-out client whose connection dies does not crash the process; the pool serves new queries', async () => {
    const pool = createPool(inject('databaseUrl'), 2);
    const admin = createPool(inject('databaseUrl'), 1);
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise((resolve) => client.once('end', resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      await ended; // without a listener, the 'error' emitted just before this would have been thrown (uncaught)
      client.release(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await pool.end();
      await admin.end();
    }
  });
});
