// Generates the typed client's types (clients/typescript/src/schema.ts) from the served OpenAPI document with
// openapi-typescript, formatted by Prettier so the committed file passes `npm run lint`:
//   npm run client:generate   exports the document (scripts/export-openapi.ts) then writes schema.ts
//   npm run client:check      the same into memory; fails when the committed schema.ts differs (CI, npm run lint)
// The runtime half of the client is openapi-fetch plus the hand-written helpers of clients/typescript/src/index.ts.
import fs from 'node:fs';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';
import prettier from 'prettier';

const DOCUMENT = '.build/openapi.json';
const SCHEMA = 'clients/typescript/src/schema.ts';
const check = process.argv.includes('--check');

// enumValues: every enum also as a runtime array (e.g. `deliveryEventEvent_typeValues`), so index.ts derives its lists
// from the document instead of copying them.
const ast = await openapiTS(new URL(DOCUMENT, `file://${process.cwd()}/`), { enumValues: true });
const header = `${COMMENT_HEADER}// Regenerate with \`npm run client:generate\` (scripts/client-schema.ts); CI fails when it differs from the document.\n\n`;
const options = { ...(await prettier.resolveConfig(SCHEMA)), filepath: SCHEMA };
const generated = await prettier.format(header + astToString(ast), options);

if (check) {
  const committed = fs.existsSync(SCHEMA) ? fs.readFileSync(SCHEMA, 'utf8') : '';
  if (committed !== generated) {
    console.error(`${SCHEMA} differs from the OpenAPI document: run \`npm run client:generate\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${SCHEMA} matches the OpenAPI document.`);
} else {
  fs.writeFileSync(SCHEMA, generated);
  console.log(`${SCHEMA} written from ${DOCUMENT}.`);
}
