// What the API's routes are built with (src/app.ts passes it to every route module). In its own module so
// routes never import app.ts: only server.ts and the tests do.
import type { Client } from '@temporalio/client';
import type { Config } from './platform/config.js';
import type { Pool } from './platform/db.js';

export interface AppDeps {
  config: Config;
  pool: Pool;
  temporal: Client;
}
