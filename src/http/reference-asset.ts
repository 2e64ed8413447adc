// Scalar's standalone script (the API reference's one script, GET /docs/js/scalar.js) as a file on disk, served from
// there: the API process never loads @scalar/fastify-api-reference, whose module holds the 5 MB script as a string
// (about 35 MB of resident memory once imported: bench/RESULTS.md "Memory"). `npm run build` writes .build/scalar.js
// and its gzip copy; where the build has not run (a fresh clone, `npm run dev`, the tests), the first request writes
// them, taking the script from the package. .build/scalar.json names the package version they came from: after an
// upgrade the first request writes them again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_DIR } from '../platform/config.js';

export const SCALAR_OUT = path.join(ROOT_DIR, '.build', 'scalar.js');
const PACKAGE = '@scalar/fastify-api-reference';

export interface ScalarScript {
  /** The script and its gzip copy, on disk (read per request as a stream: nothing of it stays in memory). */
  file: string;
  gzipFile: string;
  size: number;
  gzipSize: number;
  etag: string;
}

let installedVersion: string | null = null;
/** The installed package's version (its package.json, beside dist/index.js). */
function packageVersion(): string {
  if (installedVersion) return installedVersion;
  const entry = createRequire(import.meta.url).resolve(PACKAGE);
  const manifest = path.join(path.dirname(entry), '..', 'package.json');
  installedVersion = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
  return installedVersion;
}
const manifestOf = (out: string) => out.replace(/\.js$/, '.json');

/** The script exactly as the plugin serves it, taken from a throwaway Fastify instance with the plugin registered. */
async function scriptFromPackage(): Promise<Buffer> {
  const [{ default: Fastify }, { default: scalar }] = await Promise.all([
    import('fastify'),
    import('@scalar/fastify-api-reference'),
  ]);
  const app = Fastify({ logger: false });
  await app.register(scalar, { routePrefix: '/r', configuration: { content: {} } });
  try {
    const res = await app.inject({ method: 'GET', url: '/r/js/scalar.js' });
    if (res.statusCode !== 200 || res.rawPayload.length < 100_000) {
      throw new Error(`${PACKAGE} served no script (${res.statusCode}, ${res.rawPayload.length} bytes)`);
    }
    return res.rawPayload;
  } finally {
    await app.close();
  }
}

/** Writes .build/scalar.js, .build/scalar.js.gz and, last, .build/scalar.json (each atomically). */
export async function writeScalarScript(out = SCALAR_OUT): Promise<void> {
  const code = await scriptFromPackage();
  const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 22)}"`;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  for (const [file, body] of [
    [out, code],
    [`${out}.gz`, gzipSync(code, { level: 9 })],
    [manifestOf(out), Buffer.from(JSON.stringify({ package: PACKAGE, version: packageVersion(), etag }))],
  ] as const) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, body);
    fs.renameSync(tmp, file);
  }
}

/** The files as written for the installed version, or null (missing, partly written, or of another version). */
function described(out: string): ScalarScript | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(manifestOf(out), 'utf8')) as { version: string; etag: string };
    if (manifest.version !== packageVersion()) return null;
    const [js, gz] = [fs.statSync(out), fs.statSync(`${out}.gz`)];
    return { file: out, gzipFile: `${out}.gz`, size: js.size, gzipSize: gz.size, etag: manifest.etag };
  } catch {
    return null;
  }
}

let pending: Promise<ScalarScript> | null = null;
const ready = new Map<string, ScalarScript>();

/** The script on disk, written first when it is missing or of another version (one write at a time). */
export function scalarScript(out = SCALAR_OUT): Promise<ScalarScript> {
  const known = ready.get(out) ?? described(out);
  if (known) {
    ready.set(out, known);
    return Promise.resolve(known);
  }
  pending ??= writeScalarScript(out)
    .then(() => {
      const written = described(out);
      if (!written) throw new Error(`${out} was not written`);
      ready.set(out, written);
      return written;
    })
    .finally(() => {
      pending = null;
    });
  return pending;
}
