import pg from 'pg';

// bigint columns hold centavos; they fit easily in a JS number (2^53), so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** The pool, or a client holding a transaction: what a repository function that may run inside one takes. */
export type Db = pg.Pool | pg.PoolClient;

/**
 * How long a query waits for a connection (a new one, or a pooled one to come free) before it fails: a Postgres that
 * is cut off fails requests in seconds rather than holding them. TCP keep-alive finds a dead connection of the pool.
 */
export const DB_CONNECT_TIMEOUT_MS = 5000;
/** How long the API and the worker wait for one query's answer (client side); 0 (bulk loads, benchmarks' seeding): no limit. */
export const DB_QUERY_TIMEOUT_MS = 30_000;

export function createPool(connectionString: string, max = 10, options: { queryTimeoutMs?: number } = {}): pg.Pool {
  const queryTimeoutMs = options.queryTimeoutMs ?? DB_QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
  });
  // A client losing its connection (Postgres restart) must not crash the process: idle ones report to the pool;
  // a checked-out one emits 'error' on itself (pg-pool removes its listener while the client is out), and the
  // query it runs fails on its own, so that event needs a listener too.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `fn` in one transaction on a pooled client; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await inClientTransaction(client, fn);
  } finally {
    client.release();
  }
}

/** Runs `fn` in one transaction on a client the caller holds (a pooled one, or a lone `pg.Client`); rolls back on any error. */
export async function inClientTransaction<C extends pg.ClientBase, T>(
  client: C,
  fn: (client: C) => Promise<T>,
): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** Resolves when the database answers a trivial statement (readiness). */
export async function pingDatabase(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT 1');
}
