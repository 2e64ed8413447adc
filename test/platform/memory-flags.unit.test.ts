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
  it('the worker: its own source maps only (preloaded), a small young generation and a 512 MB old generation, in package.json and docker-compose.yml', () => {
    expect(flags(script('start:worker'))).toEqual(['--import', '--max-semi-space-size=8', '--max-old-space-size=512']);
    expect(script('start:worker')).toContain('./.build/dist/source-maps.js');
    expect(script('start:worker')).not.toContain('--enable-source-maps');
    expect(compose['x-worker'].command!).toEqual(script('start:worker').slice(1));
  });

  it('the API: no Maglev tier, memory before speed, a 2 MB young generation, a 512 MB old generation and no source maps, the same in package.json, docker-compose.yml and the image', () => {
    expect(flags(script('start:api'))).toEqual([
      '--no-maglev',
      '--optimize-for-size',
      '--max-semi-space-size=2',
      '--max-old-space-size=512',
    ]);
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(flags(JSON.parse(cmd!) as string[])).toEqual(flags(script('start:api')));
    expect(flags(compose['x-api'].command!)).toEqual(flags(script('start:api')));
  });
});

describe('glibc malloc arenas', () => {
  it('MALLOC_ARENA_MAX: 2 for the worker (its threads), 1 for the API, in the package.json scripts, the image and docker-compose.yml', () => {
    expect(script('start:worker')[0]).toBe('MALLOC_ARENA_MAX=2');
    expect(script('start:api')[0]).toBe('MALLOC_ARENA_MAX=1');
    expect(read('Dockerfile')).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(read('Dockerfile'))![1]) as string[];
    expect(cmd.slice(0, 3)).toEqual(['env', 'MALLOC_ARENA_MAX=1', 'node']);
    const apis = parse(read('docker-compose.yml')) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    for (const name of ['api-1', 'api-2']) expect(apis.services[name].environment?.MALLOC_ARENA_MAX).toBe('1');
  });

  it("Proc.production starts the script's node with the script's variables", async () => {
    const { Proc } = await import('../../scripts/lib/processes.js');
    const proc = Proc.production('api', 'start:api', { env: { PORT: '1' } });
    expect(proc.command).toBe(process.execPath);
    expect(proc.args).toEqual(script('start:api').slice(2));
    expect(proc.options.env).toEqual({ MALLOC_ARENA_MAX: '1', PORT: '1' });
  });
});
