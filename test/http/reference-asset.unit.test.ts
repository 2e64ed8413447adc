// Scalar's script as a file (src/http/reference-asset.ts): taken from @scalar/fastify-api-reference exactly as the
// plugin serves it, written once with its gzip copy and a manifest naming the package version, written again after
// an upgrade (another version in the manifest), and never while it is current.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { scalarScript } from '../../src/http/reference-asset.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scalar-asset-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('scalarScript', () => {
  it('writes the script, its gzip copy and the manifest once; rewrites them for another package version', async () => {
    const out = path.join(dir, 'scalar.js');
    const [a, b] = await Promise.all([scalarScript(out), scalarScript(out)]); // one write for both
    expect(a).toEqual(b);
    const code = fs.readFileSync(a.file);
    expect(code.length).toBe(a.size);
    expect(code.length).toBeGreaterThan(1_000_000);
    expect(code.toString('utf8', 0, 200)).toMatch(/^\(function\(\)/);
    expect(gunzipSync(fs.readFileSync(a.gzipFile)).equals(code)).toBe(true);
    expect(a.gzipSize).toBeLessThan(a.size / 2);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'scalar.json'), 'utf8'));
    expect(manifest).toMatchObject({ package: '@scalar/fastify-api-reference', etag: a.etag });
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);

    // Current: not written again (a fresh module state reads the manifest from disk).
    const mtime = fs.statSync(out).mtimeMs;
    const other = path.join(dir, 'other', 'scalar.js');
    fs.mkdirSync(path.dirname(other));
    for (const f of ['scalar.js', 'scalar.js.gz', 'scalar.json'])
      fs.copyFileSync(path.join(dir, f), path.join(dir, 'other', f));
    expect((await scalarScript(other)).etag).toBe(a.etag);
    expect(fs.statSync(out).mtimeMs).toBe(mtime);

    // Files of another version (the package upgraded since they were written): written again.
    const upgraded = path.join(dir, 'upgraded', 'scalar.js');
    fs.mkdirSync(path.dirname(upgraded));
    fs.writeFileSync(upgraded, 'stale');
    fs.writeFileSync(`${upgraded}.gz`, 'stale');
    fs.writeFileSync(path.join(dir, 'upgraded', 'scalar.json'), JSON.stringify({ ...manifest, version: '0.0.1' }));
    const again = await scalarScript(upgraded);
    expect(again.size).toBe(a.size);
    expect(fs.readFileSync(upgraded).equals(code)).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'upgraded', 'scalar.json'), 'utf8')).version).toBe(
      manifest.version,
    );
  });
});
