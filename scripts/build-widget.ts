// npm run build:widget: bundles web/widget.ts into .build/widget.js (served at GET /widget.js) and prints its size.
// The API also builds it on the first request when the file is missing or older than web/ (src/pages/widget-asset.ts).
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_DIR } from '../src/platform/config.js';
import { WIDGET_OUT, writeWidget } from '../src/pages/widget-asset.js';

const started = Date.now();
const code = await writeWidget();
const gzip = gzipSync(code, { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `Widget written to ${path.relative(ROOT_DIR, WIDGET_OUT)} in ${Date.now() - started} ms: ${code.length} bytes (${kb(code.length)}) raw, ${gzip} bytes (${kb(gzip)}) gzip.`,
);
