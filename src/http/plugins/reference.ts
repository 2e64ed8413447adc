// The API reference at GET /docs (docs/reference.md): Scalar (@scalar/fastify-api-reference) rendering the OpenAPI
// document, its script served from this API (GET /docs/js/scalar.js, no CDN).
//   GET /docs            a browser (Accept: text/html) gets the reference page; anyone else the whole OpenAPI JSON
//   GET /docs/js/scalar.js   Scalar's standalone script, as the plugin serves it, from a file (../reference-asset.ts)
//   GET /docs/openapi.json, /docs/openapi.yaml   the whole document, as the plugin offers it (downloads)
// These are the plugin's routes, written here rather than registered from it: the page's configuration differs per
// request (the signed-in developer's test key, src/users/reference-key.ts) and carries no inline script, so its
// Content-Security-Policy allows scripts from this origin only (REFERENCE_CSP); and the plugin's module holds its 5 MB
// script as a string, which would cost the API about 35 MB of memory for a page few requests ask for.
import fs from 'node:fs';
import fp from 'fastify-plugin';
import { stringify } from 'yaml';
import type { FastifyRequest } from 'fastify';
import { scalarScript } from '../reference-asset.js';

/** The product's name, as the OpenAPI document's info.title says it (the spec's "delivery service API"). */
export const PRODUCT_NAME = 'delivery service API';
export const REFERENCE_TITLE = `${PRODUCT_NAME} · reference`;
const SCRIPT = '/docs/js/scalar.js';
/**
 * Run before Scalar's script: its zod would otherwise probe for `eval` (a `Function('')` in a try), which this page's
 * CSP refuses and reports as a violation; `jitless` tells zod not to try.
 */
const JITLESS_SCRIPT = '/docs/js/jitless.js';
const JITLESS =
  'globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });\n';

/**
 * What the page needs and nothing else: its one script from this origin; styles from this origin and the ones Scalar
 * injects at run time ('unsafe-inline' for style only); images and fonts from this origin or inline data; requests
 * ("Test request") to this API, at this origin and at PUBLIC_BASE_URL. No frames, forms, objects or base changes.
 */
export const referenceCsp = (baseUrl: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(baseUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** A browser asking for a page (as GET /errors/<code> decides it). */
const wantsHtml = (request: FastifyRequest) => {
  const accept = request.headers.accept ?? '';
  return /text\/html/.test(accept) && !/application\/json/.test(accept);
};

/** Only curl and Python's requests of Scalar's own samples; JavaScript is the typed client's (../code-samples.ts). */
const HIDDEN_CLIENTS = {
  ...Object.fromEntries(
    ['c', 'clojure', 'csharp', 'dart', 'fsharp', 'go', 'http', 'java', 'js', 'julia', 'kotlin', 'node', 'objc']
      .concat(['ocaml', 'php', 'powershell', 'r', 'ruby', 'rust', 'swift'])
      .map((target) => [target, true]),
  ),
  shell: ['httpie', 'wget'],
  python: ['python3', 'aiohttp', 'httpx_sync', 'httpx_async'],
};

/** Scalar's configuration for one page: both documents, the samples, and the test key when there is one. */
export function referenceConfiguration(testKey: string | null) {
  return {
    sources: [
      { title: 'Merchant API: merchant, widget and tracking routes', slug: 'merchant', url: '/docs/merchant.json' },
      { title: 'Courier fleet and operations', slug: 'platform', url: '/docs/platform.json' },
    ],
    metaData: { title: REFERENCE_TITLE },
    withDefaultFonts: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    telemetry: false,
    persistAuth: false,
    documentDownloadType: 'json',
    hiddenClients: HIDDEN_CLIENTS,
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    authentication: {
      preferredSecurityScheme: 'secretKey',
      ...(testKey ? { securitySchemes: { secretKey: { token: testKey } } } : {}),
    },
  };
}

const attribute = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * The page: Scalar's standalone script reads its configuration from the `#api-reference` element's
 * `data-configuration` (its HTML API), so the page has no inline script at all.
 */
export function referencePage(testKey: string | null): string {
  const configuration = attribute(JSON.stringify(referenceConfiguration(testKey)));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="The ${PRODUCT_NAME}: price, book, track and cancel parcel deliveries across courier companies in Angola.">
<link rel="icon" href="data:,">
<title>${REFERENCE_TITLE}</title>
</head>
<body>
<noscript>The ${PRODUCT_NAME} reference needs JavaScript. The OpenAPI document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script id="api-reference" data-configuration="${configuration}"></script>
<script src="${JITLESS_SCRIPT}"></script>
<script src="${SCRIPT}"></script>
</body>
</html>
`;
}

export interface ReferenceOptions {
  baseUrl: string;
  document: () => unknown;
  referenceKey: (request: FastifyRequest) => Promise<string | null>;
}

const HIDDEN = { config: { auth: 'none' as const }, schema: { hide: true }, logLevel: 'warn' as const };
/** "delivery-service-api", the downloads' file name (as the plugin names them: its title, slugged). */
const FILE_NAME = PRODUCT_NAME.toLowerCase().replace(/[^a-z0-9]+/g, '-');

export default fp(async (app, opts: ReferenceOptions) => {
  const csp = referenceCsp(opts.baseUrl);
  // With ignoreTrailingSlash (src/http/fastify-options.ts), this answers /docs and /docs/.
  app.get('/docs/', HIDDEN, async (request, reply) => {
    if (!wantsHtml(request)) return reply.header('vary', 'Accept').send(opts.document());
    const key = await opts.referenceKey(request);
    return reply
      .header('vary', 'Accept, Cookie')
      .header('cache-control', key ? 'no-store' : 'no-cache')
      .header('content-security-policy', csp)
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(referencePage(key));
  });
  app.get(JITLESS_SCRIPT, HIDDEN, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(JITLESS),
  );
  // Streamed from disk each time (gzip when the browser takes it): nothing of the 5 MB stays in this process.
  app.get(SCRIPT, HIDDEN, async (request, reply) => {
    const script = await scalarScript();
    reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('etag', script.etag)
      .header('vary', 'Accept-Encoding');
    if (request.headers['if-none-match'] === script.etag) return reply.code(304).send();
    if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
      return reply
        .header('content-encoding', 'gzip')
        .header('content-length', script.gzipSize)
        .send(fs.createReadStream(script.gzipFile));
    }
    return reply.header('content-length', script.size).send(fs.createReadStream(script.file));
  });
  const download = (type: string, extension: string, body: () => unknown) =>
    app.get(`/docs/openapi.${extension}`, HIDDEN, async (_request, reply) =>
      reply
        .type(type)
        .header('content-disposition', `filename=${FILE_NAME}.${extension}`)
        .header('access-control-allow-origin', '*')
        .send(body()),
    );
  download('application/json; charset=utf-8', 'json', opts.document);
  download('application/yaml; charset=utf-8', 'yaml', () => stringify(opts.document()));
});
