// The production processes' V8 memory flags (docs/operations.md "Production build and memory") are the same wherever
// they are started: package.json's start:api / start:worker (npm run bench:rss, the cluster), the image's CMD and
// docker-compose.yml.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT_DIR } from '../../src/platform/config.js';

const read = (file: string) => fs.readFileSync(path.join(ROOT_DIR, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
const compose = parse(read('docker-compose.yml')) as Record<string, { command?: string[] }>;
const flags = (args: string[]) => args.filter((a) => a.startsWith('--'));
const script = (name: string) => pkg.scripts[name].split(' ');

describe('memory flags of the production processes', () => {
  it('the worker: a small young generation and a 512 MB old generation, in package.json and docker-compose.yml', () => {
    expect(flags(script('start:worker'))).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=8',
      '--max-old-space-size=512',
    ]);
    expect(flags(compose['x-worker'].command!)).toEqual(flags(script('start:worker')));
  });

  it('the API: a small young generation and a 512 MB old generation, the same in package.json, docker-compose.yml and the image', () => {
    expect(flags(script('start:api'))).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=2',
      '--max-old-space-size=512',
    ]);
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(flags(JSON.parse(cmd!) as string[])).toEqual(flags(script('start:api')));
    expect(flags(compose['x-api'].command!)).toEqual(flags(script('start:api')));
  });
});

describe('glibc malloc arenas', () => {
  it('MALLOC_ARENA_MAX=2 for both processes: in their package.json scripts and in the image', () => {
    for (const name of ['start:api', 'start:worker']) expect(script(name)[0]).toBe('MALLOC_ARENA_MAX=2');
    expect(read('Dockerfile')).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
  });

  it("Proc.production starts the script's node with the script's variables", async () => {
    const { Proc } = await import('../../scripts/lib/processes.js');
    const proc = Proc.production('api', 'start:api', { env: { PORT: '1' } });
    expect(proc.command).toBe(process.execPath);
    expect(proc.args).toEqual(script('start:api').slice(2));
    expect(proc.options.env).toEqual({ MALLOC_ARENA_MAX: '2', PORT: '1' });
  });
});
