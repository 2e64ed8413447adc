// npm run db:create-role: creates (or updates) the application's Postgres role, `APP_DB_ROLE` [delivery_app] with
// password `APP_DB_PASSWORD`, in the database of DATABASE_URL, which must connect as the owner of the tables (the
// role that runs the migrations). Run it after `npm run migrate`; the API and the worker then use a DATABASE_URL
// naming this role (docs/operations.md "Production"). Production runs the bundled .build/dist/create-role.js.
import { createAppRole, DEFAULT_APP_ROLE } from './lib/db-role.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL must name the database, connecting as the owner of its tables.');
  process.exit(2);
}
try {
  const role = await createAppRole(url, {
    role: process.env.APP_DB_ROLE || DEFAULT_APP_ROLE,
    password: process.env.APP_DB_PASSWORD || null,
  });
  console.log(`Role ${role} can now read and write the application's tables (and nothing else).`);
} catch (err) {
  console.error('Creating the application role failed:', (err as Error).message);
  process.exitCode = 1;
}
