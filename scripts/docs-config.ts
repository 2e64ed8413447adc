// `npm run docs:config`: writes the README's configuration table from the config schema (scripts/lib/config-table.ts).
import fs from 'node:fs';
import { README, readReadme, withConfigTable } from './lib/config-table.js';

fs.writeFileSync(README, withConfigTable(readReadme()));
console.log('README.md: configuration table written from src/platform/config.ts');
