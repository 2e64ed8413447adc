// The embeddable widget (web/widget.ts) as one minified script, built with esbuild.
// `npm run build:widget` writes .build/widget.js; the API serves that file when it is at least as new as
// the sources under web/, and otherwise builds it in memory on the first request for /widget.js
// (so a fresh clone, the dev command and the tests need no extra step).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_DIR } from '../platform/config.js';

export const WIDGET_ENTRY = path.join(ROOT_DIR, 'web', 'widget.ts');
export const WIDGET_OUT = path.join(ROOT_DIR, '.build', 'widget.js');

export interface WidgetAsset {
  code: Buffer;
  gzip: Buffer;
  etag: string;
}

/** The widget's sources: web/ and the formatters it shares with the dashboard and the tracking page. */
const SOURCE_DIRS = [path.dirname(WIDGET_ENTRY), path.join(ROOT_DIR, 'shared', 'format')];

function newestSourceMtime(): number {
  let newest = 0;
  for (const dir of SOURCE_DIRS) {
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && /\.(ts|css)$/.test(entry.name))
        newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** Bundles and minifies web/widget.ts into one ES2022 IIFE, UTF-8. */
export async function buildWidget(): Promise<Buffer> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [WIDGET_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    charset: 'utf8',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    banner: { js: '/* delivery-widget: docs/widget.md */' },
  });
  return Buffer.from(result.outputFiles[0].contents);
}

/** Builds web/widget.ts and writes .build/widget.js (atomically); returns the code. */
export async function writeWidget(out = WIDGET_OUT): Promise<Buffer> {
  const code = await buildWidget();
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, out);
  return code;
}

function asset(code: Buffer): WidgetAsset {
  const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
  return { code, gzip: gzipSync(code, { level: 9 }), etag };
}

/** The served widget: the prebuilt file when fresh, else a build in memory. */
export async function loadWidget(): Promise<WidgetAsset> {
  const sources = newestSourceMtime();
  if (fs.existsSync(WIDGET_OUT) && (sources === 0 || fs.statSync(WIDGET_OUT).mtimeMs >= sources)) {
    return asset(fs.readFileSync(WIDGET_OUT));
  }
  return asset(await buildWidget());
}
