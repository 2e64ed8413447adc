// The application's own Postgres role (least privilege): the API and the worker connect as it, never as the owner
// of the tables. It may read and write rows (SELECT, INSERT, UPDATE, DELETE; the sequences behind them) and nothing
// else: no DDL (CREATE, ALTER, DROP, TRUNCATE), no roles, no databases, not the migrations' own table.
// Migrations run as the owner; default privileges give the role the same rights on tables later migrations create.
import pg from 'pg';

export const DEFAULT_APP_ROLE = 'delivery_app';

export interface AppRoleOptions {
  /** Role name [delivery_app]. */
  role?: string;
  /** Login password; null keeps the role's current one (or none, for trust / certificate authentication). */
  password?: string | null;
}

/**
 * Creates (or updates) the role and grants it the app's privileges in the database of `ownerUrl`, connecting as the
 * owner of the tables (the role that runs the migrations). Idempotent: run it after every migration.
 */
export async function createAppRole(ownerUrl: string, options: AppRoleOptions = {}): Promise<string> {
  const role = options.role ?? DEFAULT_APP_ROLE;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role))
    throw new Error(`role name must be a lower-case SQL identifier, got "${role}"`);
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const r = client.escapeIdentifier(role);
    const { rows } = await client.query<{ db: string; owner: string }>(
      'SELECT current_database() AS db, current_user AS owner',
    );
    const db = client.escapeIdentifier(rows[0].db);
    if (rows[0].owner === role) throw new Error(`connect as the owner of the tables, not as ${role}`);

    // Attributes spelled out, so an existing role with more rights is brought back down.
    const attributes = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT';
    const password = options.password ? ` PASSWORD ${client.escapeLiteral(options.password)}` : '';
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
    await client.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${r} WITH ${attributes}${password}`);

    await client.query('BEGIN');
    // Nobody but the owner creates objects in the schema (the default before Postgres 15; CVE-2018-1058).
    await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await client.query(`GRANT CONNECT ON DATABASE ${db} TO ${r}`);
    await client.query(`GRANT USAGE ON SCHEMA public TO ${r}`);
    await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${r}`);
    await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${r}`);
    // The migrations' bookkeeping is the owner's alone.
    const { rows: migrations } = await client.query<{ t: string | null }>(
      "SELECT to_regclass('public.pgmigrations')::text AS t",
    );
    if (migrations[0].t) await client.query(`REVOKE ALL ON TABLE public.pgmigrations FROM ${r}`);
    // Tables and sequences the owner creates later (new migrations) come with the same rights.
    await client.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${r}`,
    );
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${r}`);
    await client.query('COMMIT');
    return role;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}
