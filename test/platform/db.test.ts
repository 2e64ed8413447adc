// The Postgres pool survives a server that drops connections (a restart, a failover): the crash test found a
// worker killed by a checked-out client's unhandled 'error' event.
import { describe, expect, inject, it } from 'vitest';
import { createPool, statementName } from '../../src/platform/db.js';

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

describe('prepared statements', () => {
  const preparedOn = async (pool: ReturnType<typeof createPool>) =>
    (
      await pool.query<{ name: string; statement: string }>(
        // No parameter: this statement itself runs unnamed.
        "SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int + 1%'",
      )
    ).rows;

  it('a parameterized statement is prepared once per connection, under the name its text gives, and answers as before', async () => {
    const pool = createPool(inject('databaseUrl'), 1);
    try {
      const text = 'SELECT $1::int + 1 AS n';
      for (const n of [1, 2, 3]) expect((await pool.query<{ n: number }>(text, [n])).rows[0].n).toBe(n + 1);
      // A client of its own (inside a transaction, say) and the query-config form take the same name.
      const client = await pool.connect();
      try {
        expect((await client.query<{ n: number }>({ text, values: [41] })).rows[0].n).toBe(42);
      } finally {
        client.release();
      }
      expect(await preparedOn(pool)).toEqual([{ name: statementName(text), statement: text }]);
      // A statement's error leaves nothing half-prepared: the next statement of the connection runs.
      await expect(pool.query('SELECT $1::int + 1 AS n FROM no_such_table', [1])).rejects.toThrow(/no_such_table/);
      expect((await pool.query<{ n: number }>(text, [9])).rows[0].n).toBe(10);
    } finally {
      await pool.end();
    }
  });

  it('DATABASE_PREPARED_STATEMENTS=false (preparedStatements: false): every statement runs unnamed', async () => {
    const pool = createPool(inject('databaseUrl'), 1, { preparedStatements: false });
    try {
      expect((await pool.query<{ n: number }>('SELECT $1::int + 1 AS n', [1])).rows[0].n).toBe(2);
      expect(await preparedOn(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});
