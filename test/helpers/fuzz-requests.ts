// The request mix of the HTTP fuzzer (test/http/fuzz.test.ts): fast-check arbitraries that build requests for every
// endpoint of the three surfaces, fleet events, webhook endpoints, pages and strays, against a World of ids and keys
// the test sets up. Loaded in a worker thread (test/helpers/fuzz-worker.ts), so it holds plain data only.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { signFleetEvent } from '../../simulator/server.js';
import {
  CONTENT_TYPES,
  bodyEncoding,
  contentTypeArb,
  deepValue,
  EDGE_DATES,
  enc,
  encodeBody,
  headerSafe,
  mutate,
  mutationArb,
  nastyString,
  nastyValue,
  SQL_STRINGS,
  toJson,
  type FuzzRequest,
  type Violation,
} from './fuzz.js';
import { ORIGIN, PARCEL, quoteBody } from './fixtures.js';
import { STATUSES } from '../../shared/deliveries/vocabulary.js';

export const BODY_LIMIT = 64 * 1024;

export const FLEET_TYPES = [
  'assigned',
  'pickup_ready',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'failed',
  'payment.confirmed',
];
export const EVENT_TYPES = [
  'delivery.created',
  'delivery.assigned',
  'delivery.in_transit',
  'delivery.delivered',
  'delivery.cancelled',
];
export const ALLOWED_ORIGIN = 'http://shop.test';

/**
 * Known, reported bugs that are outside this file's remit to fix. Each entry names the bug; matching violations
 * are counted and printed but do not fail the run. Keep this list empty when nothing is known.
 */
// Known bugs the fuzzer counts without failing. Empty: the two it found (router and HTTP-parser errors that
// were not problem+json; a 500 for bodies nested ~3,000 levels deep with an Idempotency-Key) are fixed in
// src/app.ts and src/http/plugins/body-guard.ts, and now fail the run if they come back.
export const KNOWN_BUGS: { id: string; matches: (v: Violation) => boolean }[] = [];

export interface World {
  a: { tenant: CreatedTenant };
  b: { tenant: CreatedTenant };
  noCouriers: CreatedTenant;
  revoked: CreatedTenant;
  fleet: { slug: string; secret: string }[];
  deliveries: { a: string[]; b: string[] };
  trackingRefs: string[];
  quoteIds: string[];
  endpoints: { a: string[]; b: string[] };
  messageIds: string[];
}

export type Build = (w: World) => FuzzRequest;
const pick = <T>(list: T[], n: number): T => list[n % list.length];

// --- headers -----------------------------------------------------------------------------------------

type Surface = 'merchant' | 'widget' | 'none';

/** Authorization header: the right key most of the time, every kind of wrong one otherwise. */
const authArb = (surface: Surface) =>
  fc.oneof(
    {
      weight: surface === 'none' ? 1 : 14,
      arbitrary: fc
        .constant((w: World) => (surface === 'widget' ? w.a.tenant.publishable_key : w.a.tenant.secret_key))
        .map((f) => (w: World) => `Bearer ${f(w)}`),
    },
    {
      weight: 2,
      arbitrary: fc.constant(
        (w: World) => `Bearer ${surface === 'widget' ? w.b.tenant.publishable_key : w.b.tenant.secret_key}`,
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom<(w: World) => string | undefined>(
        () => undefined,
        (w) => `Bearer ${w.a.tenant.publishable_key}`,
        (w) => `Bearer ${w.a.tenant.secret_key}`,
        (w) => `Bearer ${w.revoked.secret_key}`,
        (w) => `Bearer ${w.revoked.publishable_key}`,
        (w) => `Bearer ${w.noCouriers.secret_key}`,
        (w) => `bearer ${w.a.tenant.secret_key}`,
        (w) => `BEARER   ${w.a.tenant.secret_key}  `,
        (w) => `Bearer ${w.a.tenant.secret_key.toUpperCase()}`,
        (w) => `Bearer ${w.a.tenant.secret_key}x`,
        (w) => `Bearer ${w.a.tenant.secret_key.slice(0, -1)}`,
        (w) => `Bearer ${w.a.tenant.secret_key} ${w.a.tenant.secret_key}`,
        (w) => `Basic ${Buffer.from(`${w.a.tenant.secret_key}:`).toString('base64')}`,
        (w) => w.a.tenant.secret_key,
        () => 'Bearer',
        () => 'Bearer ',
        () => '',
        () => `Bearer sk_live_${'A'.repeat(32)}`,
        () => `Bearer pk_live_${'0'.repeat(32)}`,
        () => `Bearer sk_test_${'a'.repeat(32)}`,
        () => `Bearer ${'x'.repeat(6000)}`,
        () => "Bearer ' OR 1=1 --",
      ),
    },
    { weight: 1, arbitrary: nastyString.map((s) => () => headerSafe(`Bearer ${s}`).slice(0, 8000)) },
  );

const originArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>(ALLOWED_ORIGIN) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      'HTTP://SHOP.TEST',
      'http://Shop.Test',
      'http://shop.test/',
      'http://shop.test:80',
      'https://shop.test',
      'http://shop.test:8080',
      'http://shop.test.evil.test',
      'http://evil.test',
      'http://b-shop.test',
      'null',
      '',
      'http://shop.test/path',
      'shop.test',
      '*',
      'http://shop.test, http://evil.test',
      'https://shop.example:8443',
      'https://shop.example',
      'http://xn--shop-xyz.test',
    ),
  },
  { weight: 1, arbitrary: nastyString.map((s) => headerSafe(s).slice(0, 2000)) },
);

const idempotencyArb = fc.oneof(
  { weight: 10, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 3, arbitrary: fc.uuid().map((u) => u as string | undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string | undefined>(
      '',
      ' ',
      'same-key-every-time',
      'k'.repeat(255),
      'k'.repeat(256),
      'k'.repeat(3000),
      "'; DROP TABLE idempotency_keys; --",
      'é\xff',
    ),
  },
  { weight: 1, arbitrary: nastyString.map((s) => headerSafe(s).slice(0, 4000)) },
);

interface HeaderChoice {
  auth: (w: World) => string | undefined;
  origin: string | undefined;
  idem: string | undefined;
  contentType: string | undefined;
  extra: [string, string] | null;
}

const extraHeaderArb = fc.oneof(
  { weight: 10, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<[string, string]>(
      ['x-forwarded-for', '1.2.3.4, 5.6.7.8'],
      ['x-forwarded-for', 'garbage'],
      ['x-request-id', "'; --"],
      ['accept', 'text/html'],
      ['accept', 'application/xml'],
      ['accept-encoding', 'gzip, br'],
      ['accept-language', 'pt-AO'],
      ['if-none-match', '*'],
      ['content-encoding', 'gzip'],
      ['transfer-encoding', 'chunked'],
      ['expect', '100-continue'],
      ['x-http-method-override', 'DELETE'],
      ['webhook-id', 'msg_x'],
      ['host', 'evil.test'],
    ),
  },
);

const headersArb = (surface: Surface, withBody: boolean): fc.Arbitrary<HeaderChoice> =>
  fc.record({
    auth: authArb(surface),
    origin:
      surface === 'widget'
        ? originArb
        : fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: originArb }),
    idem: idempotencyArb,
    contentType: withBody
      ? contentTypeArb
      : fc.oneof(
          { weight: 10, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        ),
    extra: extraHeaderArb,
  });

function headersOf(w: World, h: HeaderChoice): Record<string, string> {
  const out: Record<string, string> = {};
  const auth = h.auth(w);
  if (auth !== undefined) out.authorization = auth;
  if (h.origin !== undefined) out.origin = h.origin;
  if (h.idem !== undefined) out['idempotency-key'] = h.idem;
  if (h.contentType !== undefined) out['content-type'] = h.contentType;
  if (h.extra && !['transfer-encoding', 'content-encoding', 'expect', 'host'].includes(h.extra[0]))
    out[h.extra[0]] = h.extra[1];
  else if (h.extra?.[0] === 'content-encoding') out['content-encoding'] = h.extra[1];
  return out;
}

// --- path ids ------------------------------------------------------------------------------------------

type IdKind = 'delivery' | 'endpoint';

const idArb = (kind: IdKind): fc.Arbitrary<(w: World) => string> =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.nat().map((n) => (w: World) => pick(kind === 'delivery' ? w.deliveries.a : w.endpoints.a, n)),
    },
    {
      weight: 4,
      arbitrary: fc.nat().map((n) => (w: World) => pick(kind === 'delivery' ? w.deliveries.b : w.endpoints.b, n)),
    },
    {
      weight: 1,
      arbitrary: fc
        .nat()
        .map((n) => (w: World) => pick(kind === 'delivery' ? w.deliveries.a : w.endpoints.a, n).toUpperCase()),
    },
    {
      weight: 1,
      arbitrary: fc
        .nat()
        .map(
          (n) => (w: World) =>
            [...pick(kind === 'delivery' ? w.deliveries.a : w.endpoints.a, n)]
              .map((c) => '%' + c.charCodeAt(0).toString(16))
              .join(''),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .nat()
        .map((n) => (w: World) => `{${pick(kind === 'delivery' ? w.deliveries.a : w.endpoints.a, n)}}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .nat()
        .map((n) => (w: World) => pick(kind === 'delivery' ? w.deliveries.a : w.endpoints.a, n).replace(/-/g, '')),
    },
    { weight: 2, arbitrary: fc.uuid({ version: [1, 4, 7] }).map((u) => () => u) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '00000000-0000-0000-0000-000000000000',
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          '12345678-1234-0234-8234-123456789012',
          'null',
          'undefined',
          '0',
          '-1',
          '%',
          '%zz',
          '%00',
          '%E0%A4%A',
          '%C0%AF',
          '..',
          '%2e%2e',
          '%2F',
          'a%2Fb',
          ';',
          "'",
          "'%20OR%20'1'='1",
          '%27%3B%20DROP%20TABLE%20deliveries%3B--',
          '~',
          '*',
          'me',
        )
        .map((s) => () => s),
    },
    { weight: 2, arbitrary: nastyString.map((s) => () => enc(s.slice(0, 300))) },
    { weight: 1, arbitrary: fc.integer({ min: 101, max: 4000 }).map((n) => () => 'a'.repeat(n)) },
  );

// --- bodies -------------------------------------------------------------------------------------------

/** A valid body, mutated 0..3 times, then encoded (mostly valid JSON). */
const bodyArb = (valids: fc.Arbitrary<(w: World) => unknown>) =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .record({ base: valids, mutations: fc.array(mutationArb, { maxLength: 3 }), encoding: bodyEncoding })
        .map(
          ({ base, mutations, encoding }) =>
            (w: World) =>
              encodeBody(mutate(base(w), mutations), encoding),
        ),
    },
    { weight: 1, arbitrary: nastyValue.map((v) => () => toJson(v)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          '{',
          '}',
          'null',
          '[]',
          '""',
          '0',
          'NaN',
          '{"a":}',
          '{"a":1,}',
          "{'a':1}",
          '\u0000',
          '{"__proto__":{"x":1}}',
          '['.repeat(20000) + ']'.repeat(20000),
          '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
        )
        .map((s) => () => s),
    },
  );

const metadataArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ order_id: 'ORD-1', note: "O'Brien; DROP TABLE" }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 45 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 60 }) },
  { weight: 1, arbitrary: deepValue.map((v) => ({ deep: v })) },
);

const quoteValid = fc.constantFrom<(w: World) => unknown>(
  () => quoteBody(),
  () => ({
    origin: { address_line: ORIGIN.address_line, city: 'Luanda', province: 'Luanda' },
    destination: { address_line: 'x', city: 'Luanda', province: 'Luanda' },
    parcel: { weight_grams: 1 },
  }),
  () => ({ ...quoteBody(), parcel: { ...PARCEL, parcel_type: 'box' } }),
);

const deliveryValid = fc
  .record({
    n: fc.nat(),
    payment: fc.constantFrom('prepaid', 'bank_transfer', 'cod', undefined),
    metadata: metadataArb,
    scheduled: fc.boolean(),
    edge: fc.option(
      fc.record({
        field: fc.constantFrom('scheduled_pickup_at', 'scheduled_delivery_at'),
        at: fc.constantFrom(...EDGE_DATES),
      }),
      { freq: 4 },
    ),
  })
  .map(({ n, payment, metadata, scheduled, edge }) => (w: World) => ({
    quote_id: pick(w.quoteIds, n),
    ...quoteBody(),
    ...(payment ? { payment_method: payment } : {}),
    ...(payment === 'cod' ? { cash_collect_aoa: 500_000 } : {}),
    ...(scheduled
      ? {
          scheduled_pickup_at: new Date(Date.now() + 3600_000).toISOString(),
          scheduled_delivery_at: new Date(Date.now() + 7200_000).toISOString(),
        }
      : {}),
    options: { metadata },
    ...(edge ? { [edge.field]: edge.at } : {}),
  }));

const endpointCreateValid = fc
  .record({
    events: fc.option(fc.subarray(EVENT_TYPES, { minLength: 1 }), { nil: undefined }),
    description: fc.option(fc.constantFrom('main', "o'reilly", ...SQL_STRINGS), { nil: undefined }),
  })
  .map((r) => () => ({ url: 'http://127.0.0.1:9/hook', ...r }));

const endpointPatchValid = fc
  .record({
    url: fc.option(fc.constantFrom('http://127.0.0.1:9/other', 'https://hooks.example.invalid/x'), { nil: undefined }),
    events: fc.option(fc.oneof(fc.constant(null), fc.subarray(EVENT_TYPES, { minLength: 1 })), { nil: undefined }),
    description: fc.option(fc.oneof(fc.constant(null), fc.constantFrom('x', '%_\\')), { nil: undefined }),
    status: fc.option(fc.constantFrom('enabled', 'disabled'), { nil: undefined }),
  })
  .map((r) => () => JSON.parse(JSON.stringify(r)));

const replayValid = fc.oneof(
  fc
    .nat()
    .map((n) => (w: World) => ({ message_id: w.messageIds.length ? pick(w.messageIds, n) : `msg_${randomUUID()}` })),
  fc.constant(() => ({ since: new Date(Date.now() - 3600_000).toISOString() })),
  fc.constant(() => ({ since: new Date(Date.now() - 3600_000).toISOString(), until: new Date().toISOString() })),
  fc
    .record({
      since: fc.constantFrom(...EDGE_DATES),
      until: fc.option(fc.constantFrom(...EDGE_DATES), { nil: undefined }),
    })
    .map((r) => () => ({ ...r })),
);

const fleetValid = fc
  .record({
    n: fc.nat(),
    type: fc.constantFrom(...FLEET_TYPES),
    payload: fc.oneof(
      fc.constant({}),
      fc.constant({ pin: '0000' }),
      fc.constant(null),
      metadataArb,
      fc.constantFrom(...EDGE_DATES).map((eta) => ({ eta })),
    ),
    at: fc.option(fc.constantFrom(...EDGE_DATES), { freq: 4 }),
  })
  .map(({ n, type, payload, at }) => (w: World) => ({
    tracking_ref: pick(w.trackingRefs, n),
    event_type: type,
    occurred_at: at ?? new Date().toISOString(),
    payload,
  }));

// --- operations ----------------------------------------------------------------------------------------

const build = (
  op: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): FuzzRequest => ({
  op,
  method,
  path,
  headers,
  body,
});

const getById = (op: string, surface: Surface, template: (id: string) => string, kind: IdKind = 'delivery') =>
  fc.record({ id: idArb(kind), h: headersArb(surface, false), head: fc.nat(30) }).map(
    ({ id, h, head }) =>
      (w: World) =>
        build(op, head === 0 ? 'HEAD' : 'GET', template(id(w)), headersOf(w, h)),
  );

const postWithBody = (
  op: string,
  surface: Surface,
  path: (w: World, id?: string) => string,
  valids: fc.Arbitrary<(w: World) => unknown>,
  method = 'POST',
  kind: IdKind | null = null,
) =>
  fc
    .record({
      id: kind ? idArb(kind) : fc.constant(() => ''),
      h: headersArb(surface, true),
      body: bodyArb(valids),
      noBody: fc.nat(40),
    })
    .map(
      ({ id, h, body, noBody }) =>
        (w: World) =>
          build(op, method, path(w, id(w)), headersOf(w, h), noBody === 0 ? undefined : body(w)),
    );

const statusValue = fc.oneof(
  fc.constantFrom(...STATUSES),
  fc.subarray([...STATUSES], { minLength: 2 }).map((l) => l.join(',')),
  fc.subarray([...STATUSES], { minLength: 2 }).map((l) => l.join(' , ')),
  fc.constantFrom('', ',', 'PENDING', 'pending,,pending', 'teleported', 'pending,teleported'),
  nastyString,
);
const dateValue = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '+01:00')),
  fc.constantFrom(
    '2024-01-01T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-01-01',
    'now',
    '0',
    '-1',
    '1700000000',
    '+275760-09-13T00:00:00.000Z',
  ),
  fc.constantFrom(...EDGE_DATES),
  nastyString,
);
const numberValue = fc.oneof(
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.constantFrom(
    '',
    '0',
    '1',
    '100',
    '101',
    '100000',
    '100001',
    '1e2',
    '1.5',
    '0x10',
    ' 5',
    '5 ',
    'Infinity',
    'NaN',
    '-0',
    '99999999999999999999999',
    'abc',
    '٣',
  ),
  nastyString,
);

type Param = [string, string];
const listParams = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: statusValue.map((v): Param => ['status', v]) },
    { weight: 2, arbitrary: dateValue.map((v): Param => ['inserted_at_gte', v]) },
    { weight: 2, arbitrary: dateValue.map((v): Param => ['inserted_at_lte', v]) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.constantFrom('inserted_at_desc', 'inserted_at_asc'), nastyString)
        .map((v): Param => ['sort', v]),
    },
    {
      weight: 4,
      arbitrary: fc
        .oneof(
          fc.constantFrom(...SQL_STRINGS),
          nastyString,
          fc.constantFrom('Luanda', 'Rua', 'DLV', 'luanda', 'LUANDA'),
          fc.string({ maxLength: 250 }),
        )
        .map((v): Param => ['search', v]),
    },
    { weight: 3, arbitrary: numberValue.map((v): Param => ['limit', v]) },
    { weight: 3, arbitrary: numberValue.map((v): Param => ['offset', v]) },
    { weight: 1, arbitrary: fc.tuple(nastyString, nastyString).map(([k, v]): Param => [k || 'x', v]) },
    // Names the contract does not have (a misspelling, a later issue's filters): 422 unknown_field.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('stauts', 'metadata[order_id]', 'recipient_phone', 'expand', 'page')
        .map((k): Param => [k, '1']),
    },
  ),
  { maxLength: 6 },
);

const queryString = (params: Param[], raw: number) => {
  if (!params.length) return '';
  // One in ten leaves the values as they are (malformed percent-escapes, spaces, '&' and '#' included).
  const parts = params.map(([k, v]) =>
    raw === 0 ? `${k.replace(/[^\x21-\x7e]|#/g, '')}=${v.replace(/[^\x21-\x7e]|#/g, '')}` : `${enc(k)}=${enc(v)}`,
  );
  return '?' + parts.join('&');
};

const listDeliveries = fc.record({ params: listParams, h: headersArb('merchant', false), raw: fc.nat(9) }).map(
  ({ params, h, raw }) =>
    (w: World) =>
      build('GET /v1/deliveries', 'GET', '/v1/deliveries' + queryString(params, raw), headersOf(w, h)),
);

const pageParams = fc.array(
  fc.oneof(
    numberValue.map((v): Param => ['limit', v]),
    numberValue.map((v): Param => ['offset', v]),
    fc.oneof(fc.constantFrom('succeeded', 'failed', 'exhausted'), nastyString).map((v): Param => ['status', v]),
    fc.oneof(fc.constant('msg_x'), nastyString).map((v): Param => ['message_id', v]),
  ),
  { maxLength: 4 },
);

const listEndpoints = fc.record({ params: pageParams, h: headersArb('merchant', false), raw: fc.nat(9) }).map(
  ({ params, h, raw }) =>
    (w: World) =>
      build('GET /v1/webhook_endpoints', 'GET', '/v1/webhook_endpoints' + queryString(params, raw), headersOf(w, h)),
);

const attempts = fc
  .record({ id: idArb('endpoint'), params: pageParams, h: headersArb('merchant', false), raw: fc.nat(9) })
  .map(
    ({ id, params, h, raw }) =>
      (w: World) =>
        build(
          'GET /v1/webhook_endpoints/{id}/attempts',
          'GET',
          `/v1/webhook_endpoints/${id(w)}/attempts` + queryString(params, raw),
          headersOf(w, h),
        ),
  );

const simpleGet = (op: string, path: string, surface: Surface) =>
  fc.record({ h: headersArb(surface, false) }).map(
    ({ h }) =>
      (w: World) =>
        build(op, 'GET', path, headersOf(w, h)),
  );

/** Fleet events: signed right, signed with another company's secret, tampered after signing, old, unsigned, garbage. */
const fleetEvent = fc
  .record({
    slug: fc.oneof(
      { weight: 8, arbitrary: fc.nat().map((n) => (w: World) => pick(w.fleet, n).slug) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('no-such-courier', '', 'A'.repeat(150), '%00', '..%2F', "x'--").map((s) => () => s),
      },
      { weight: 1, arbitrary: nastyString.map((s) => () => enc(s.slice(0, 120))) },
    ),
    body: bodyArb(fleetValid),
    signing: fc.constantFrom(
      'right',
      'right',
      'right',
      'right',
      'other',
      'tampered',
      'old',
      'future',
      'none',
      'garbage',
      'partial',
    ),
    n: fc.nat(),
    contentType: contentTypeArb,
  })
  .map(({ slug, body, signing, n, contentType }) => (w: World) => {
    const s = slug(w);
    const company = w.fleet.find((c) => c.slug === s) ?? pick(w.fleet, n);
    const text = body(w);
    const str = typeof text === 'string' ? text : text.toString('latin1');
    let headers: Record<string, string> = {};
    const at =
      signing === 'old'
        ? new Date(Date.now() - 10 * 60_000)
        : signing === 'future'
          ? new Date(Date.now() + 10 * 60_000)
          : new Date();
    if (signing === 'right' || signing === 'old' || signing === 'future' || signing === 'tampered')
      headers = signFleetEvent(company.secret, str, `msg_${randomUUID()}`, at);
    else if (signing === 'other')
      headers = signFleetEvent(
        pick(w.fleet, n + 1).secret === company.secret
          ? 'whsec_' + Buffer.from('x'.repeat(24)).toString('base64')
          : pick(w.fleet, n + 1).secret,
        str,
      );
    else if (signing === 'garbage')
      headers = { 'webhook-id': "'; --", 'webhook-timestamp': 'yesterday', 'webhook-signature': 'v1,AAAA' };
    else if (signing === 'partial') headers = { 'webhook-id': `msg_${n}`, 'webhook-signature': 'v1,' + 'A'.repeat(44) };
    const sent =
      signing === 'tampered'
        ? str.replace(/(pickup_ready|in_transit|assigned|delivered|failed)/, 'failed').replace(/\}$/, ' }')
        : text;
    if (contentType !== undefined) headers['content-type'] = contentType;
    return build('POST /v1/fleet/{courier_slug}/events', 'POST', `/v1/fleet/${s}/events`, headers, sent);
  });

/** Bodies beyond the limit (the stack runs with BODY_LIMIT), declared or chunked, on every route that takes one. */
const oversized = fc
  .record({
    route: fc.constantFrom(
      '/v1/quotes',
      '/v1/deliveries',
      '/v1/widget/quotes',
      '/v1/widget/deliveries',
      '/v1/webhook_endpoints',
      '/v1/fleet/x/events',
    ),
    size: fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 4 }),
    shape: fc.constantFrom('string', 'array', 'nested'),
    h: headersArb('merchant', true),
  })
  .map(({ route, size, shape, h }) => (w: World) => {
    const widget = route.startsWith('/v1/widget/');
    const body =
      shape === 'string'
        ? JSON.stringify({ ...quoteBody(), pad: 'x'.repeat(size) })
        : shape === 'array'
          ? JSON.stringify({ items: new Array(Math.ceil(size / 2)).fill(0) })
          : '['.repeat(size) + ']'.repeat(size);
    const headers = headersOf(w, {
      ...h,
      contentType: 'application/json',
      auth: () => `Bearer ${widget ? w.a.tenant.publishable_key : w.a.tenant.secret_key}`,
      origin: widget ? ALLOWED_ORIGIN : undefined,
    });
    const route2 = route === '/v1/fleet/x/events' ? `/v1/fleet/${w.fleet[0].slug}/events` : route;
    return build(
      `POST ${route === '/v1/fleet/x/events' ? '/v1/fleet/{courier_slug}/events' : route}`,
      'POST',
      route2,
      headers,
      body,
    );
  });

/** CORS preflights from allowed and other origins, on widget and merchant paths. */
const preflight = fc
  .record({
    origin: originArb,
    path: fc.constantFrom(
      '/v1/widget/quotes',
      '/v1/widget/couriers',
      '/v1/widget/deliveries',
      '/v1/quotes',
      '/v1/deliveries/x',
    ),
    method: fc.constantFrom('POST', 'GET', 'DELETE', 'PUT'),
  })
  .map(
    ({ origin, path, method }) =>
      () =>
        build(`OPTIONS ${path}`, 'OPTIONS', path, {
          ...(origin !== undefined ? { origin } : {}),
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization,content-type',
        }),
  );

/** Wrong methods, unknown paths, odd URLs. */
const strays = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
    path: fc.oneof(
      fc.constantFrom(
        '/',
        '/v1',
        '/v1/',
        '/v2/deliveries',
        '/v1/deliveries/',
        '/v1/couriers/',
        '/v1//deliveries',
        '/V1/DELIVERIES',
        '/v1/deliveries?',
        '/v1/deliveries?&&&',
        '/v1/deliveries#x',
        '/v1/widget',
        '/v1/widget/',
        '/v1/fleet',
        '/v1/fleet//events',
        '/track',
        '/track/',
        '/.env',
        '/v1/../v1/couriers',
        '/v1/%2e%2e/couriers',
        '/%00',
        '/%E0%A4%A',
        '/v1/deliveries/%',
        '/docs/js/does-not-exist',
        '/v1/openapi.yaml',
        '/healthz/',
        '/readyz?x=1',
        '/widget.js?v=1',
        '/widget.js/',
        '/v1/deliveries/' + 'a'.repeat(5000),
      ),
      nastyString.map((s) => '/v1/' + enc(s.slice(0, 200))),
    ),
    h: headersArb('merchant', false),
  })
  .map(
    ({ method, path, h }) =>
      (w: World) =>
        build(`${method} (stray) ${path.slice(0, 40)}`, method, path, headersOf(w, h)),
  );

const pages = fc.oneof(
  fc
    .record({
      id: idArb('delivery'),
      lang: fc.constantFrom('', '?lang=pt', '?lang=en', '?lang=xx', '?lang=%00', '?lang=' + 'p'.repeat(500)),
    })
    .map(
      ({ id, lang }) =>
        (w: World) =>
          build('GET /track/{id}', 'GET', `/track/${id(w)}${lang}`, { 'accept-language': 'pt-AO,pt;q=0.9' }),
    ),
  fc
    .constantFrom('', '?v=1', '?v=%22x%22')
    .map((q) => () => build('GET /widget.js', 'GET', `/widget.js${q}`, { 'accept-encoding': 'gzip' })),
  fc.constant(() => build('GET /healthz', 'GET', '/healthz', {})),
);

/** The whole request mix, weighted toward cheap requests and the endpoints with the most input. */
export const requestArb: fc.Arbitrary<Build> = fc.oneof(
  // merchant surface
  { weight: 140, arbitrary: listDeliveries },
  { weight: 60, arbitrary: getById('GET /v1/deliveries/{id}', 'merchant', (id) => `/v1/deliveries/${id}`) },
  {
    weight: 40,
    arbitrary: getById('GET /v1/deliveries/{delivery_id}/events', 'merchant', (id) => `/v1/deliveries/${id}/events`),
  },
  {
    weight: 20,
    arbitrary: postWithBody(
      'DELETE /v1/deliveries/{id}',
      'merchant',
      (_w, id) => `/v1/deliveries/${id}`,
      fc.constant(() => ({})),
      'DELETE',
      'delivery',
    ),
  },
  {
    weight: 20,
    arbitrary: postWithBody(
      'POST /v1/deliveries/{id}/payment_confirmation',
      'merchant',
      (_w, id) => `/v1/deliveries/${id}/payment_confirmation`,
      fc.constant(() => ({})),
      'POST',
      'delivery',
    ),
  },
  { weight: 100, arbitrary: postWithBody('POST /v1/quotes', 'merchant', () => '/v1/quotes', quoteValid) },
  { weight: 100, arbitrary: postWithBody('POST /v1/deliveries', 'merchant', () => '/v1/deliveries', deliveryValid) },
  { weight: 20, arbitrary: simpleGet('GET /v1/couriers', '/v1/couriers', 'merchant') },
  // widget surface
  { weight: 60, arbitrary: postWithBody('POST /v1/widget/quotes', 'widget', () => '/v1/widget/quotes', quoteValid) },
  {
    weight: 60,
    arbitrary: postWithBody('POST /v1/widget/deliveries', 'widget', () => '/v1/widget/deliveries', deliveryValid),
  },
  { weight: 40, arbitrary: getById('GET /v1/widget/deliveries/{id}', 'widget', (id) => `/v1/widget/deliveries/${id}`) },
  { weight: 20, arbitrary: simpleGet('GET /v1/widget/couriers', '/v1/widget/couriers', 'widget') },
  { weight: 20, arbitrary: preflight },
  // public tracking
  {
    weight: 50,
    arbitrary: getById('GET /v1/deliveries/{delivery_id}/tracking', 'none', (id) => `/v1/deliveries/${id}/tracking`),
  },
  // fleet
  { weight: 60, arbitrary: fleetEvent },
  // webhook endpoints
  {
    weight: 30,
    arbitrary: postWithBody(
      'POST /v1/webhook_endpoints',
      'merchant',
      () => '/v1/webhook_endpoints',
      endpointCreateValid,
    ),
  },
  { weight: 30, arbitrary: listEndpoints },
  {
    weight: 30,
    arbitrary: getById('GET /v1/webhook_endpoints/{id}', 'merchant', (id) => `/v1/webhook_endpoints/${id}`, 'endpoint'),
  },
  {
    weight: 30,
    arbitrary: postWithBody(
      'PATCH /v1/webhook_endpoints/{id}',
      'merchant',
      (_w, id) => `/v1/webhook_endpoints/${id}`,
      endpointPatchValid,
      'PATCH',
      'endpoint',
    ),
  },
  {
    weight: 10,
    arbitrary: postWithBody(
      'DELETE /v1/webhook_endpoints/{id}',
      'merchant',
      (_w, id) => `/v1/webhook_endpoints/${id}`,
      fc.constant(() => ({})),
      'DELETE',
      'endpoint',
    ),
  },
  {
    weight: 20,
    arbitrary: postWithBody(
      'POST /v1/webhook_endpoints/{id}/rotate_secret',
      'merchant',
      (_w, id) => `/v1/webhook_endpoints/${id}/rotate_secret`,
      fc.constant(() => ({})),
      'POST',
      'endpoint',
    ),
  },
  { weight: 20, arbitrary: attempts },
  {
    weight: 20,
    arbitrary: postWithBody(
      'POST /v1/webhook_endpoints/{id}/replay',
      'merchant',
      (_w, id) => `/v1/webhook_endpoints/${id}/replay`,
      replayValid,
      'POST',
      'endpoint',
    ),
  },
  // system, pages, documents, strays
  { weight: 20, arbitrary: pages },
  { weight: 30, arbitrary: strays },
  { weight: 3, arbitrary: fc.constant(() => build('GET /readyz', 'GET', '/readyz', {})) },
  { weight: 1, arbitrary: fc.constant(() => build('GET /v1/openapi.json', 'GET', '/v1/openapi.json', {})) },
  { weight: 1, arbitrary: fc.constant(() => build('GET /docs', 'GET', '/docs', { accept: 'application/json' })) },
  {
    weight: 1,
    arbitrary: simpleGet('POST /v1/diagnostics/round_trip', '/v1/diagnostics/round_trip', 'merchant').map(
      (b) => (w: World) => ({ ...b(w), method: 'POST' }),
    ),
  },
  { weight: 3, arbitrary: oversized },
);
