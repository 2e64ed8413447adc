// Builds the merchant dashboard (web/dashboard: Preact, bundled by Vite) into .build/dashboard, which the API serves
// at /dashboard (src/dashboard/routes.ts). Run by `npm run build`, `npm run build:dashboard`, `npm run dev` (which
// then rebuilds on every change) and the dashboard's tests; nothing built is checked in.
// The first page (index.html, its entry script, the chunks that script imports and its CSS) must stay within
// FIRST_PAGE_BUDGET_BYTES gzip: the build fails above it.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_DIR } from '../../src/platform/config.js';
import { DASHBOARD_OUT } from '../../src/dashboard/asset.js';
import { ensureClientSchema } from './client-schema.js';

export const DASHBOARD_ROOT = path.join(ROOT_DIR, 'web', 'dashboard');
/** What the first page may weigh, gzip: the sign-in page a merchant waits for on a phone. */
export const FIRST_PAGE_BUDGET_BYTES = 150 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}

/** Gzip size of each file the first page loads before it can draw: the HTML, the entry, its static imports, their CSS. */
export function firstPageWeight(outDir = DASHBOARD_OUT): { files: Record<string, number>; totalGzip: number } {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >;
  const entry = Object.entries(manifest).find(([, chunk]) => chunk.isEntry);
  if (!entry) throw new Error('The dashboard build has no entry chunk.');
  const files = new Set<string>(['index.html']);
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entry[0]);
  const sizes: Record<string, number> = {};
  for (const file of files) sizes[file] = gzipSync(fs.readFileSync(path.join(outDir, file)), { level: 9 }).length;
  return { files: sizes, totalGzip: Object.values(sizes).reduce((a, b) => a + b, 0) };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** True when .build/dashboard is missing or older than a source under web/dashboard, the client or shared/ it uses. */
export function dashboardIsStale(): boolean {
  const built = path.join(DASHBOARD_OUT, 'index.html');
  if (!fs.existsSync(built)) return true;
  const sources = Math.max(
    newestMtime(DASHBOARD_ROOT),
    newestMtime(path.join(ROOT_DIR, 'clients', 'typescript', 'src')),
    newestMtime(path.join(ROOT_DIR, 'shared')),
  );
  return fs.statSync(built).mtimeMs < sources;
}

/**
 * Vite's settings: Preact's JSX through Vite's own transform (no plugin), served under /dashboard/. Always a
 * production build, whatever NODE_ENV says (Vitest sets it to `test`, which would make Vite compile JSX for
 * development, with source paths in the bundle).
 */
const viteConfig = (outDir: string) => ({
  root: DASHBOARD_ROOT,
  base: '/dashboard/',
  mode: 'production',
  configFile: false as const,
  envDir: false as const,
  logLevel: 'warn' as const,
  clearScreen: false,
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  oxc: { jsx: { runtime: 'automatic' as const, importSource: 'preact', development: false } },
  build: {
    outDir,
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});

/**
 * Builds into a fresh folder, checks the budget, then swaps it in for .build/dashboard, so the API never serves a
 * half-written build. Returns the first page's weight.
 */
export async function buildDashboard(log: (line: string) => void = console.log): Promise<{ totalGzip: number }> {
  ensureClientSchema(log); // the dashboard calls the API through the typed client
  const { build } = await import('vite');
  const started = Date.now();
  const tmp = `${DASHBOARD_OUT}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  await build(viteConfig(tmp));
  const weight = firstPageWeight(tmp);
  if (weight.totalGzip > FIRST_PAGE_BUDGET_BYTES) {
    throw new Error(
      `The dashboard's first page weighs ${(weight.totalGzip / 1024).toFixed(1)} kB gzip, over its budget of ${FIRST_PAGE_BUDGET_BYTES / 1024} kB: ${JSON.stringify(weight.files)}`,
    );
  }
  const old = `${DASHBOARD_OUT}.${process.pid}.old`;
  try {
    // Another process (the dev command beside a test run) may be swapping its own build of the same sources in: then
    // a rename fails, and either its build is in place (kept) or it is a moment away (tried again).
    for (let attempt = 0; ; attempt++) {
      try {
        if (fs.existsSync(DASHBOARD_OUT)) fs.renameSync(DASHBOARD_OUT, old);
        fs.renameSync(tmp, DASHBOARD_OUT);
        break;
      } catch (err) {
        if (fs.existsSync(path.join(DASHBOARD_OUT, 'index.html'))) break;
        if (attempt >= 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    fs.rmSync(old, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  log(
    `Dashboard built into .build/dashboard in ${Date.now() - started} ms; first page ${(weight.totalGzip / 1024).toFixed(1)} kB gzip (budget 150 kB).`,
  );
  return weight;
}

/** Builds when stale (the tests, the dev command's start). */
export async function ensureDashboard(log: (line: string) => void = console.log): Promise<void> {
  if (dashboardIsStale()) await buildDashboard(log);
}

/** Rebuilds on every change under web/dashboard (npm run dev); returns a function that stops watching. */
export function watchDashboard(log: (line: string) => void = console.log): () => void {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const watcher = fs.watch(DASHBOARD_ROOT, { recursive: true }, () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() =>
        buildDashboard(log).catch((err) => log(`Dashboard build failed: ${(err as Error).message}`)),
      );
    }, 200);
  });
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
