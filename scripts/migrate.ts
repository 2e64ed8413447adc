// npm run migrate: applies migrations/ to DATABASE_URL (or the dev database), under node-pg-migrate's advisory lock.
import { databaseUrlFor, ensureDatabase, migrate, resolvePostgres, type ResolvedPostgres } from './lib/postgres.js';

let pg: ResolvedPostgres | null = null;
try {
  pg = await resolvePostgres();
  const url = process.env.DATABASE_URL ?? databaseUrlFor(pg.serverUrl, 'delivery_api');
  await ensureDatabase(url);
  await migrate(url, (line) => console.log(line));
  console.log('Migrations are up to date.');
} catch (err) {
  console.error('Migration failed:', (err as Error).message);
  console.error('Check that DATABASE_URL points at a Postgres you can write to (or that 127.0.0.1:5432 answers).');
  process.exitCode = 1;
} finally {
  await pg?.stop();
}
