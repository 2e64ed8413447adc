// Shared pieces of the HTTP fuzzer (test/http/fuzz.test.ts): the response checker (problem+json for every error,
// 2xx bodies against the served OpenAPI document), value generators for hostile input, body mutation,
// and a keep-alive HTTP sender with a histogram.
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { Pool, type Dispatcher } from 'undici';

// ---------------------------------------------------------------------------------------------------
// Requests and responses
// ---------------------------------------------------------------------------------------------------

export interface FuzzRequest {
  /** The operation aimed at: `GET /v1/deliveries/{id}` (OpenAPI form), or a label for pages/garbage. */
  op: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface Violation {
  kind: string;
  request: FuzzRequest;
  status?: number;
  contentType?: string;
  response?: string;
  detail: string;
}

// ---------------------------------------------------------------------------------------------------
// OpenAPI response validation
// ---------------------------------------------------------------------------------------------------

/**
 * Validates 2xx JSON bodies against the response schema the served OpenAPI document gives for the operation
 * and status. ajv 8 (draft 2020-12, the JSON Schema dialect of OpenAPI 3.1) with ajv-formats: each response
 * schema is compiled together with a copy of `components`, so its `#/components/schemas/...` references resolve.
 */
export class OpenApiResponses {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction | null>();
  readonly operations: Map<string, any>;

  constructor(readonly document: any) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    // ajv-formats is CommonJS: its default export is the plugin function, or `{ default }` depending on the loader.
    const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (
      ajv: Ajv2020,
    ) => void;
    addFormats(this.ajv);
    this.operations = new Map();
    for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
      for (const [method, op] of Object.entries<any>(item)) this.operations.set(`${method.toUpperCase()} ${path}`, op);
    }
  }

  /** The documented operation a request reaches (`GET /v1/deliveries/{id}`), the way the router matches it: query
   * string ignored, a trailing slash ignored, literal paths before templated ones. null: none. */
  match(method: string, rawPath: string): string | null {
    let path = rawPath.split(/[?#]/)[0];
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const candidates = [...this.operations.keys()].filter((op) => op.startsWith(`${method} `));
    const literal = candidates.find((op) => op === `${method} ${path}`);
    if (literal) return literal;
    for (const op of candidates) {
      const template = op.slice(method.length + 1);
      const re = new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$');
      if (re.test(path)) return op;
    }
    return null;
  }

  /** null: the document declares no JSON schema for this operation and status. */
  validator(op: string, status: number): ValidateFunction | null {
    const id = `${op} ${status}`;
    if (this.cache.has(id)) return this.cache.get(id)!;
    const schema = this.operations.get(op)?.responses?.[String(status)]?.content?.['application/json']?.schema;
    const compiled = schema ? this.ajv.compile(this.linked(schema)) : null;
    this.cache.set(id, compiled);
    return compiled;
  }

  /** Problem schema of the document (every error body must match it). */
  problem(): ValidateFunction {
    const id = 'problem';
    if (!this.cache.has(id))
      this.cache.set(id, this.ajv.compile(this.linked({ $ref: '#/components/schemas/Problem' })));
    return this.cache.get(id)!;
  }

  errorsText(validate: ValidateFunction): string {
    return this.ajv.errorsText(validate.errors);
  }

  /** The schema with its `#/components/...` references pointing into the document added once to ajv. */
  private linked(schema: unknown): object {
    if (!this.ajv.getSchema(DOC_ID)) this.ajv.addSchema({ $id: DOC_ID, components: this.document.components });
    return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
  }
}

const DOC_ID = 'https://fuzz.invalid/openapi.json';

// ---------------------------------------------------------------------------------------------------
// The checker: the properties every response must satisfy
// ---------------------------------------------------------------------------------------------------

const header = (res: FuzzResponse, name: string): string => {
  const v = res.headers[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
};

/** Operations served outside the OpenAPI document (HTML, JavaScript, the document itself, CORS preflights). */
const UNDOCUMENTED_OK = /^(GET|HEAD) (\/track\/\{id\}|\/widget\.js|\/docs|\/docs\/.*|\/v1\/openapi\.json)$|^OPTIONS /;
/** Pages for people: their 404 is an HTML page (docs/widget.md), not problem+json. */
const HTML_PAGES = /^(GET|HEAD) \/track\/\{id\}$/;

export function checkResponse(
  api: OpenApiResponses,
  baseUrl: string,
  req: FuzzRequest,
  res: FuzzResponse,
): Violation[] {
  const out: Violation[] = [];
  const contentType = header(res, 'content-type');
  const fail = (kind: string, detail: string) =>
    out.push({ kind, request: req, status: res.status, contentType, response: res.text.slice(0, 600), detail });

  // The only 5xx the contract has: quotes' 502 upstream_unavailable and 503 no_courier_configured (spec, Quotes),
  // which the fuzzer provokes on purpose with a tenant that has no courier. Anything else is a server bug.
  const documented5xx =
    (res.status === 502 && /"error":"upstream_unavailable"/.test(res.text)) ||
    (res.status === 503 && /"error":"no_courier_configured"/.test(res.text));
  if (
    res.status >= 500 &&
    !(documented5xx && /^POST \/v1\/(widget\/)?quotes$/.test(api.match(req.method, req.path) ?? ''))
  ) {
    fail('5xx', `server answered ${res.status}`);
  }
  if (!header(res, 'x-request-id')) fail('no-request-id', 'response without x-request-id');

  if (res.status >= 400 && res.status < 500 && HTML_PAGES.test(req.op) && /^text\/html/.test(contentType)) return out;
  if (res.status >= 400) {
    if (!/^application\/problem\+json(;|$)/i.test(contentType))
      fail('not-problem-json', `content-type "${contentType}"`);
    if (req.method === 'HEAD') return out; // no body to look at
    let body: any;
    try {
      body = JSON.parse(res.text);
    } catch {
      fail('problem-not-json', 'error body is not JSON');
      return out;
    }
    const problems: string[] = [];
    if (!body || typeof body !== 'object' || Array.isArray(body)) problems.push('not an object');
    else {
      if (typeof body.type !== 'string' || !body.type.startsWith(`${baseUrl}/errors/`))
        problems.push(`type ${JSON.stringify(body.type)}`);
      if (typeof body.title !== 'string' || !body.title) problems.push('title');
      if (body.status !== res.status) problems.push(`status ${JSON.stringify(body.status)} != ${res.status}`);
      if (typeof body.detail !== 'string' || !body.detail) problems.push('detail');
      if (typeof body.error !== 'string' || !body.error) problems.push('error');
      else if (body.type !== `${baseUrl}/errors/${body.error}`)
        problems.push(`type ${body.type} does not end with error code ${body.error}`);
      const validate = api.problem();
      if (!validate(body)) problems.push(`Problem schema: ${api.errorsText(validate)}`);
    }
    if (problems.length) fail('bad-problem', problems.join('; '));
    if (res.status === 429 && !header(res, 'retry-after')) fail('429-without-retry-after', 'no Retry-After');
    return out;
  }

  if (res.status >= 200 && res.status < 300) {
    if (UNDOCUMENTED_OK.test(req.op) || req.method === 'HEAD' || res.status === 204) return out;
    // The operation the router actually matched (an empty id with a trailing slash reaches the list, for one).
    const op = api.match(req.method, req.path);
    if (!op) {
      if (/^(\/track\/|\/widget\.js|\/docs|\/v1\/openapi\.json)/.test(req.path)) return out;
      fail(
        'undocumented-success',
        `${res.status} for ${req.method} ${req.path.slice(0, 100)}, which the OpenAPI document does not describe`,
      );
      return out;
    }
    const validate = api.validator(op, res.status);
    if (!validate) {
      fail('undocumented-status', `${op} answered ${res.status}, not a documented response`);
      return out;
    }
    if (!/^application\/json(;|$)/i.test(contentType)) fail('success-not-json', `content-type "${contentType}"`);
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      fail('success-not-json', 'body is not JSON');
      return out;
    }
    if (!validate(body)) fail('schema-mismatch', api.errorsText(validate));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------------

export class Sender {
  readonly pool: Pool;
  readonly histogram = new Map<number | string, number>();
  readonly perOp = new Map<string, Map<number | string, number>>();
  sent = 0;

  constructor(
    readonly url: string,
    connections: number,
  ) {
    this.pool = new Pool(url, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
  }

  private count(op: string, key: number | string) {
    this.histogram.set(key, (this.histogram.get(key) ?? 0) + 1);
    let m = this.perOp.get(op);
    if (!m) this.perOp.set(op, (m = new Map()));
    m.set(key, (m.get(key) ?? 0) + 1);
  }

  /** Sends one request; null when the client could not send it (counted as `client-error:<code>`). */
  async send(req: FuzzRequest): Promise<FuzzResponse | null> {
    this.sent++;
    try {
      const res = await this.pool.request({
        method: req.method as Dispatcher.HttpMethod,
        path: req.path,
        headers: req.headers,
        body: req.body,
      });
      const text = await res.body.text();
      this.count(req.op, res.statusCode);
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).name;
      this.count(req.op, `client-error:${code}`);
      return null;
    }
  }

  close() {
    return this.pool.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------------

/** Placeholder that `toJson` turns into raw JSON text JSON.stringify cannot produce (1e400, -0, 30 digits, "__proto__" keys). */
const RAW = '\u0001raw:';
const rawJson = (text: string) => `${RAW}${Buffer.from(text).toString('base64')}\u0001`;
const rawNumber = rawJson;

/** JSON.stringify with the raw placeholders substituted. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.includes('\\u0001raw:')
    ? text.replace(/"\\u0001raw:([A-Za-z0-9+/=]*)\\u0001"/g, (_m, b64: string) => Buffer.from(b64, 'base64').toString())
    : text;
}

export const SQL_STRINGS = [
  "'",
  "''",
  '"',
  "' OR '1'='1",
  "'; DROP TABLE deliveries; --",
  '1; SELECT pg_sleep(5)--',
  '\\',
  '%',
  '_',
  '%_%',
  '\\%',
  "E'\\x00'",
  '$$; SELECT 1; $$',
  "' UNION SELECT key_hash FROM api_keys --",
  '/*',
  '*/',
  '--',
  ';',
  '`',
  '${1}',
  "'::uuid",
  '$1',
];

export const NASTY_STRINGS = [
  '',
  ' ',
  '   ',
  '\t',
  '\n',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '1e999',
  '-0',
  '00',
  '٣',
  '１２３',
  'true',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '\uFEFF',
  '\u202E',
  '\ud800',
  '\udfff',
  '👩‍👩‍👧‍👦',
  'Ω≈ç√∫',
  'ẞ',
  'İ',
  'ﷺ',
  '\u00ad',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '../../../../etc/passwd',
  '%2e%2e%2f',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '2024-02-30T25:61:00Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00Z',
  '2024-01-01',
  '2024-01-01T00:00:00',
  '2024-01-01T00:00:00+99:00',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '__proto__',
  'constructor',
  'prototype',
  'sk_live_',
  'pk_live_',
  ...SQL_STRINGS,
];

const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
  '1.0',
  '1.5e3',
  '9007199254740993',
  '-9007199254740993',
  '0.1e1',
];

export const nastyNumber = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    1,
    1.5,
    -0.5,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    -(2 ** 53),
    2 ** 63,
    1e14,
    1e14 + 1,
    1e15,
    1e308,
    -1e308,
    Number.MIN_VALUE,
    1000,
    1001,
    1_000_000,
    1_000_001,
    90,
    90.0001,
    -180.5,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...RAW_NUMBERS).map(rawNumber),
);

/** Strings: short hostile ones, arbitrary unicode (lone surrogates included), and huge repetitions. */
export const nastyString = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'é', '💥', "'", '\\', ' ', '%'), fc.integer({ min: 100, max: 2_000 }), fc.nat(9))
      .map(([s, n, big]) => s.repeat(big === 0 ? n * 10 : n)),
  },
);

/** Deeply nested arrays or objects (depth up to 3000, still a few KB of JSON), as raw JSON text spliced in by `toJson`. */
export const deepValue = fc
  .tuple(fc.integer({ min: 10, max: 3000 }), fc.boolean())
  .map(([depth, arrays]) =>
    rawJson(arrays ? '['.repeat(depth) + '1' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  );

export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: nastyNumber },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      [],
      {},
      [null],
      { '': null },
      rawJson('{"__proto__":{"polluted":true}}'),
      rawJson('{"constructor":{"prototype":{"polluted":true}}}'),
      rawJson('{"a":1,"a":2}'),
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(nastyString, nastyNumber), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, fc.oneof(nastyString, nastyNumber), { maxKeys: 4 }) },
  { weight: 1, arbitrary: deepValue },
);

// ---------------------------------------------------------------------------------------------------
// Mutating valid bodies
// ---------------------------------------------------------------------------------------------------

/**
 * Date-times at and beyond the edges of the range a request may name (1970-01-01 .. 9999-12-31 UTC): the first two
 * are accepted, the rest are 422 out_of_range; none may give a 5xx or a row a later read cannot serialise.
 */
export const EDGE_DATES = [
  '1970-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59-14:00',
  '0000-01-01T00:00:00Z',
  '1969-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00+14:00',
];

export type Mutation = { kind: 'delete' | 'set' | 'add' | 'wrap'; at: number; value: unknown; name: string };

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete', 'set', 'set', 'set', 'add', 'wrap'),
  at: fc.nat(),
  value: nastyValue,
  name: fc.oneof(
    fc.constantFrom(
      'courier_fee_aoa',
      'extra',
      '__proto__',
      'constructor',
      'tenant_id',
      'id',
      'status',
      'fee_aoa',
      '',
      'payment_methd',
      'floor',
      'metadata',
    ),
    fc.string({ maxLength: 50 }),
    fc.constantFrom(...NASTY_STRINGS),
  ),
}) as fc.Arbitrary<Mutation>;

/** Every container and leaf path of a JSON value, down to 6 levels (inserted deep values are not descended into). */
function paths(
  value: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(prefix);
  if (value && typeof value === 'object' && prefix.length < 6) {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

/** Deep copy of a JSON value (structuredClone recurses too deep for the nested ones). */
const clone = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

/** Applies the mutations to a deep copy of `base`. */
export function mutate(base: unknown, mutations: Mutation[]): unknown {
  let root: any = clone(base);
  for (const mutation of mutations) {
    const m =
      mutation.value && typeof mutation.value === 'object' ? { ...mutation, value: clone(mutation.value) } : mutation;
    const all = paths(root);
    const path = all[m.at % all.length];
    if (path.length === 0) {
      if (m.kind === 'wrap') root = [root];
      else if (m.kind === 'set') root = m.value;
      // Never on an array: an own `constructor` (a hostile name) breaks later splices with a TypeError of our own.
      else if (m.kind === 'add' && root && typeof root === 'object' && !Array.isArray(root))
        Object.defineProperty(root, m.name, { value: m.value, enumerable: true, configurable: true, writable: true });
      continue;
    }
    let parent = root;
    for (const p of path.slice(0, -1)) parent = parent?.[p];
    const last = path[path.length - 1];
    if (!parent || typeof parent !== 'object') continue;
    if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (m.kind === 'set') parent[last] = m.value;
    else if (m.kind === 'wrap') parent[last] = { value: parent[last] };
    else {
      const target = parent[last];
      if (target && typeof target === 'object' && !Array.isArray(target))
        Object.defineProperty(target, m.name, { value: m.value, enumerable: true, configurable: true, writable: true });
      else parent[last] = m.value;
    }
  }
  return root;
}

/** How a JSON body leaves: valid JSON (mostly), or broken in one of the usual ways. */
export const bodyEncoding = fc.constantFrom(
  'json',
  'json',
  'json',
  'json',
  'json',
  'json',
  'json',
  'json',
  'truncated',
  'trailing',
  'bom',
  'empty',
  'form',
  'latin1',
);

export function encodeBody(value: unknown, encoding: string): string | Buffer {
  const json = toJson(value);
  switch (encoding) {
    case 'truncated':
      return json.slice(0, Math.max(0, json.length - 1 - (json.length >> 2)));
    case 'trailing':
      return json + ' }garbage';
    case 'bom':
      return '\uFEFF' + json;
    case 'empty':
      return '';
    case 'form':
      return 'origin=Luanda&parcel[weight_grams]=1';
    case 'latin1':
      return Buffer.from(json, 'latin1');
    default:
      return json;
  }
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'Application/Json ; Charset="utf-8"',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;',
  'application/json; boundary=x',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/problem+json',
  'application/vnd.api+json',
  'application/jsonx',
  'application/json, text/plain',
  '*/*',
  'json',
  '',
  ' ',
  'application/octet-stream',
  'text/html',
];

/** Content type: right most of the time; absent, wrong or odd otherwise. */
export const contentTypeArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** Percent-encodes a string for a URL path segment or query value, keeping it sendable over HTTP. */
export const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    // Lone surrogates: encode the UTF-16 code units' replacement.
    return encodeURIComponent(
      s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
    );
  }
};

/** Header values Node's HTTP client will put on the wire: latin1, no control characters. */
export const headerSafe = (s: string) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '');
