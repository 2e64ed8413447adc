import { createHash } from 'node:crypto';
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

/** Distinct statement texts a process prepares at most; past it, new texts run unnamed (planned each time) as before. */
export const MAX_PREPARED_TEXTS = 2000;
const statementNames = new Map<string, string | null>();

/**
 * The prepared statement's name of a parameterized statement's text: one per distinct text, the same in every
 * connection (`s_` and 24 hex digits of its SHA-1), or null past MAX_PREPARED_TEXTS.
 */
export function statementName(text: string): string | null {
  let name = statementNames.get(text);
  if (name === undefined) {
    name =
      statementNames.size < MAX_PREPARED_TEXTS
        ? `s_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`
        : null;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Makes every parameterized statement of this client a named (prepared) one: Postgres parses and plans it once per
 * connection and, after five runs, keeps a generic plan, instead of planning it at each run (measured under
 * bench:lifecycle: planning took longer than executing the outbox's statements). Statements without parameters,
 * and a cursor or stream, run as they are.
 */
function prepareStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(config);
      if (name) return query({ name, text: config, values }, callback);
    } else if (
      config !== null &&
      typeof config === 'object' &&
      !('name' in config) &&
      !('submit' in config) &&
      typeof (config as { text?: unknown }).text === 'string' &&
      Array.isArray((config as { values?: unknown }).values) &&
      (config as { values: unknown[] }).values.length > 0
    ) {
      const name = statementName((config as { text: string }).text);
      if (name) return query({ ...config, name }, values, callback);
    }
    return query(config, values, callback);
  };
}

/**
 * A pool of connections. `preparedStatements` [true]: parameterized statements are prepared once per connection
 * (prepareStatements above); false for a pooler in transaction mode that cannot keep them (DATABASE_PREPARED_STATEMENTS=false).
 */
export function createPool(
  connectionString: string,
  max = 10,
  options: { queryTimeoutMs?: number; preparedStatements?: boolean } = {},
): pg.Pool {
  const queryTimeoutMs = options.queryTimeoutMs ?? DB_QUERY_TIMEOUT_MS;
  const prepared = options.preparedStatements ?? true;
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
  pool.on('connect', (client) => {
    client.on('error', () => {});
    if (prepared) prepareStatements(client);
  });
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
