// The merchant dashboard's built files (.build/dashboard, written by scripts/lib/dashboard.ts: `npm run build`,
// `npm run build:dashboard`, `npm run dev`), as the API serves them: read once per change of the file, with a
// gzip copy and an ETag. The API never builds the dashboard itself: Vite is a development tool.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_DIR } from '../platform/config.js';

export const DASHBOARD_OUT = path.join(ROOT_DIR, '.build', 'dashboard');

export interface DashboardFile {
  body: Buffer;
  gzip: Buffer | null;
  etag: string;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);

const cache = new Map<string, { mtimeMs: number; file: DashboardFile }>();

/** A file of the build by its path under .build/dashboard (`index.html`, `assets/index-3f2a.js`), or null. */
export function dashboardFile(relative: string): DashboardFile | null {
  if (!/^(assets\/)?[A-Za-z0-9._-]+$/.test(relative) || relative.includes('..')) return null;
  const full = path.join(DASHBOARD_OUT, relative);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(full);
  } catch {
    cache.delete(relative);
    return null;
  }
  if (!stat.isFile()) return null;
  const hit = cache.get(relative);
  if (hit && hit.mtimeMs === stat.mtimeMs) return hit.file;
  const body = fs.readFileSync(full);
  const ext = path.extname(relative);
  const file: DashboardFile = {
    body,
    gzip: COMPRESSIBLE.has(ext) ? gzipSync(body, { level: 9 }) : null,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    type: TYPES[ext] ?? 'application/octet-stream',
  };
  cache.set(relative, { mtimeMs: stat.mtimeMs, file });
  return file;
}
