// The pages every problem's `type` URI resolves to (GET /errors/<code>, and GET /errors for the list): what the code
// means and what to do, from src/http/error-catalog.ts. Plain server-rendered HTML, no scripts, like the tracking page.
import type { ErrorInfo } from '../http/error-catalog.js';
import { esc } from './tracking-page.js';

/** Escaped text with `backticks` as <code>. */
const prose = (text: string) => esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f5f6f8}
main{max-width:44rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.5rem 0}
code{font-family:ui-monospace,Menlo,Consolas,monospace;background:#e9ebef;padding:0 .2em;border-radius:.2em}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.5rem;padding:1rem;margin:.75rem 0}
dt{font-size:.85rem;color:#555;margin-top:.5rem}dd{margin:0}
a{color:#0b5cad}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d9dce1;vertical-align:top}
@media (prefers-color-scheme:dark){body{background:#121417;color:#eee}.card{background:#1c1f24;border-color:#333}dt{color:#aaa}code{background:#2a2e35}a{color:#7fb8ff}}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function renderErrorPage(code: string, info: ErrorInfo): string {
  return page(
    `${code}: delivery service API error`,
    `<h1><code>${esc(code)}</code></h1>
<section class="card">
<dl>
<dt>HTTP status</dt><dd>${info.status}</dd>
<dt>What it means</dt><dd>${prose(info.meaning)}</dd>
<dt>What to do</dt><dd>${prose(info.todo)}</dd>
<dt>Example <code>detail</code></dt><dd>${esc(info.example)}</dd>
</dl>
</section>
<p>The answer is <code>application/problem+json</code> with this code in <code>error</code>; branch on it, never on
<code>title</code> or <code>detail</code>. <a href="../errors">Every error code</a> · <a href="../docs">API reference</a></p>`,
  );
}

export function renderErrorIndex(entries: [string, ErrorInfo][]): string {
  const rows = entries
    .map(
      ([code, info]) =>
        `<tr><td><a href="errors/${esc(code)}"><code>${esc(code)}</code></a></td><td>${info.status}</td><td>${prose(info.meaning)}</td></tr>`,
    )
    .join('\n');
  return page(
    'delivery service API error codes',
    `<h1>Error codes</h1>
<section class="card"><table><thead><tr><th>code</th><th>status</th><th>what it means</th></tr></thead><tbody>
${rows}
</tbody></table></section>`,
  );
}

/** The page of a code the catalog does not have (404). */
export function renderUnknownCode(code: string): string {
  return page(
    'Unknown error code: delivery service API',
    `<h1>Unknown error code</h1>
<section class="card"><p>The delivery service API has no error code <code>${esc(code)}</code>.</p></section>
<p><a href="../errors">Every error code</a> · <a href="../docs">API reference</a></p>`,
  );
}
