// Writes the OpenAPI document to a file without starting a server or reaching Postgres or Temporal:
//   npx tsx scripts/export-openapi.ts .build/openapi.json     (npm run lint:openapi lints it afterwards)
// buildApp only needs its dependencies at request time: pg's Pool connects on the first query, and a
// Temporal Client made without a connection uses a lazy one that dials on the first call. Neither happens here.
import { Client } from '@temporalio/client';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { createPool } from '../src/platform/db.js';

const out = process.argv[2] ?? '.build/openapi.json';
const config = { ...loadConfig(), logLevel: 'silent' };
const pool = createPool(config.databaseUrl, 1);
const temporal = new Client({ namespace: config.temporalNamespace });
try {
  const app = await buildApp({ config, pool, temporal }, { logger: false });
  await app.ready();
  const document = app.swagger();
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(document, null, 2) + '\n');
  const paths = Object.keys((document as { paths?: object }).paths ?? {}).length;
  console.log(`OpenAPI document (${paths} paths) written to ${out}`);
  await app.close();
} finally {
  await pool.end();
  await temporal.connection.close().catch(() => {});
}
