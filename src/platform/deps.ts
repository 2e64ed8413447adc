// What the API's routes are built with (src/app.ts passes it to every route module): the platform's handles. Here,
// not in app.ts, so routes never import the composition root (only server.ts and the tests do).
import type { Client } from '@temporalio/client';
import type { Config } from './config.js';
import type { Pool } from './db.js';

export interface AppDeps {
  config: Config;
  pool: Pool;
  temporal: Client;
}
