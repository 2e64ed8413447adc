// The typed client's types (clients/typescript/src/schema.ts) are generated from the OpenAPI document and never
// checked in: `npm test` regenerates them first (package.json `pretest`), and whatever needs them without it (the
// dashboard's build, a test file run alone, the client's `npm pack`) generates them when they are missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../src/platform/config.js';

export const CLIENT_SCHEMA = path.join(ROOT_DIR, 'clients', 'typescript', 'src', 'schema.ts');

/** Writes schema.ts when it is missing (`npm run client:generate`: exports the document, then openapi-typescript). */
export function ensureClientSchema(log: (line: string) => void = console.log): void {
  if (fs.existsSync(CLIENT_SCHEMA)) return;
  log('Generating the typed client (npm run client:generate) ...');
  execFileSync('npm', ['run', '--silent', 'client:generate'], {
    cwd: ROOT_DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
