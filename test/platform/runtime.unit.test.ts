// The project brings its own Node 24 (the pinned `node` devDependency): `npm test`, `npm run dev` and every script run
// on it even where the system's Node is 20 (docs/operations.md "Runtime").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('the runtime', () => {
  it('is the Node the project pins, an LTS 24 release', () => {
    console.log(`tests run on Node ${process.version}`);
    expect(pkg.devDependencies.node).toMatch(/^24\.\d+\.\d+$/);
    expect(process.versions.node).toBe(pkg.devDependencies.node);
    expect(pkg.engines.node).toBe('>=24');
  });
});
