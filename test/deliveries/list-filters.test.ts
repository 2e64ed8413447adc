// Finding deliveries by the merchant's own words (design.md): GET /v1/deliveries?metadata[key]=value (exact, up to 5
// pairs, all matching) and ?recipient_phone= (digits compared), on the real stack, confined to the key's tenant and
// mode; list rows carry the metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESTINATION, ORIGIN, PARCEL } from '../helpers/fixtures.js';
import { quoteFrom } from '../helpers/test-mode.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

/** A test-manual delivery with this metadata and recipient phone. */
async function delivery(key: string, metadata: Record<string, unknown>, phone = DESTINATION.contact.phone) {
  const route = {
    origin: ORIGIN,
    destination: { ...DESTINATION, contact: { ...DESTINATION.contact, phone } },
    parcel: PARCEL,
  };
  const q = await quoteFrom(stack, key, 'test-manual', route);
  const res = await stack.request('POST', '/v1/deliveries', {
    key,
    body: { quote_id: q.quote_id, ...route, options: { metadata } },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

const list = (key: string, query: string) => stack.request('GET', `/v1/deliveries?${query}`, { key });
const ids = async (key: string, query: string) => {
  const res = await list(key, query);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as { id: string }[]).map((d) => d.id).sort();
};

describe('GET /v1/deliveries: metadata and recipient_phone filters', () => {
  let key: string;
  let a: string, b: string, c: string;
  let otherKey: string;
  let other: string;

  beforeAll(async () => {
    const t = await stack.tenant();
    key = t.test_secret_key;
    a = await delivery(key, { order_id: 'KIANDA-1042', channel: 'web' }, '+244 923 111 222');
    b = await delivery(key, { order_id: 'KIANDA-1043', channel: 'web' }, '+244923333444');
    c = await delivery(key, { qty: 3, gift: true, order_id: 'KIANDA 1044 & co' });
    const o = await stack.tenant();
    otherKey = o.test_secret_key;
    other = await delivery(otherKey, { order_id: 'KIANDA-1042' }, '+244 923 111 222');
  });

  it('metadata[key]=value finds exact values only; rows carry the metadata', async () => {
    const res = await list(key, 'metadata[order_id]=KIANDA-1042');
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([a]);
    expect(res.body.data[0].metadata).toEqual({ order_id: 'KIANDA-1042', channel: 'web' });
    expect(await ids(key, 'metadata[order_id]=KIANDA-104')).toEqual([]);
    expect(await ids(key, 'metadata[order_id]=kianda-1042')).toEqual([]);
    expect(await ids(key, `metadata[order_id]=${encodeURIComponent('KIANDA 1044 & co')}`)).toEqual([c]);
    expect(await ids(key, 'metadata[unknown_key]=KIANDA-1042')).toEqual([]);
  });

  it('several pairs must all match; numbers and booleans match their JSON text', async () => {
    expect(await ids(key, 'metadata[channel]=web')).toEqual([a, b].sort());
    expect(await ids(key, 'metadata[channel]=web&metadata[order_id]=KIANDA-1043')).toEqual([b]);
    expect(await ids(key, 'metadata[channel]=web&metadata[order_id]=KIANDA-1044')).toEqual([]);
    expect(await ids(key, 'metadata[qty]=3&metadata[gift]=true')).toEqual([c]);
    expect(await ids(key, 'metadata[qty]=4')).toEqual([]);
    expect(await ids(key, 'metadata[channel]=web&status=pending,assigned&search=luanda')).toEqual([a, b].sort());
  });

  it('recipient_phone compares digits only, whatever the punctuation on either side', async () => {
    expect(await ids(key, `recipient_phone=${encodeURIComponent('+244 923-111-222')}`)).toEqual([a]);
    expect(await ids(key, 'recipient_phone=244923111222')).toEqual([a]);
    expect(await ids(key, `recipient_phone=${encodeURIComponent('(244) 923.333.444')}`)).toEqual([b]);
    expect(await ids(key, 'recipient_phone=923111222')).toEqual([]);
    expect(await ids(key, 'recipient_phone=244923111222&metadata[channel]=web')).toEqual([a]);
  });

  it("never another tenant's or the other mode's deliveries", async () => {
    expect(await ids(otherKey, 'metadata[order_id]=KIANDA-1042')).toEqual([other]);
    expect(await ids(otherKey, 'recipient_phone=244923111222')).toEqual([other]);
    const t = await stack.tenant();
    expect(await ids(t.test_secret_key, 'metadata[order_id]=KIANDA-1042')).toEqual([]);
    expect(await ids(t.secret_key, 'metadata[order_id]=KIANDA-1042')).toEqual([]);
  });

  it('422 for more than 5 pairs, a malformed or repeated pair, a bad phone, and any other unknown parameter', async () => {
    const six = [1, 2, 3, 4, 5, 6].map((i) => `metadata[k${i}]=v`).join('&');
    const five = [1, 2, 3, 4, 5].map((i) => `metadata[k${i}]=v`).join('&');
    expect(await ids(key, five)).toEqual([]);
    const cases: [string, string][] = [
      [six, 'metadata'],
      ['metadata[]=x', 'metadata[]'],
      ['metadata[a][b]=x', 'metadata[a][b]'],
      ['metadata=x', 'metadata'],
      ['metadata[order_id]=a&metadata[order_id]=b', 'metadata'],
      ['metadata[order_id]=', 'metadata'],
      [`metadata[${'k'.repeat(41)}]=x`, 'metadata'],
      ['recipient_phone=abc', 'recipient_phone'],
      ['recipient_phone=', 'recipient_phone'],
      ['metadata[order_id]=KIANDA-1042&order_id=KIANDA-1042', 'order_id'],
      ['meta[order_id]=x', 'meta[order_id]'],
    ];
    for (const [query, parameter] of cases) {
      const res = await list(key, query);
      stack.expectProblem(res, 422, 'validation_failed');
      expect(
        res.body.errors.map((e: { parameter: string }) => e.parameter),
        `${query}: ${JSON.stringify(res.body)}`,
      ).toContain(parameter);
    }
  });
});
