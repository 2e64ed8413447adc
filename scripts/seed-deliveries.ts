// npm run seed:deliveries -- [rows] [tenants]: loads many deliveries (default 1,000,000 over 100 tenants)
// into DATABASE_URL (default: the bench database delivery_api_bench_list), with a progress bar.
import { createPool } from '../src/platform/db.js';
import { databaseUrlFor, ensureDatabase, migrate, resolvePostgres } from './lib/postgres.js';
import { seedDeliveries } from './lib/seed-deliveries.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const tenants = Number(process.argv[3] ?? 100);
if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(tenants) || tenants < 1) {
  console.error('usage: npm run seed:deliveries -- [rows] [tenants]   (whole numbers, e.g. 1000000 100)');
  process.exit(2);
}
const pg = await resolvePostgres();
const url = process.env.DATABASE_URL ?? databaseUrlFor(pg.serverUrl, 'delivery_api_bench_list');
try {
  await ensureDatabase(url);
  await migrate(url);
  const pool = createPool(url, 2, { queryTimeoutMs: 0 });
  await seedDeliveries(pool, rows, tenants);
  await pool.end();
} catch (err) {
  console.error('Seeding failed:', (err as Error).message, '\nCheck DATABASE_URL and that Postgres is up.');
  process.exitCode = 1;
} finally {
  await pg.stop();
}
