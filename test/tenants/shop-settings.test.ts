// GET/PUT /v1/settings/shop on the real stack (src/tenants/routes.ts): the shop profile the tracking page shows. It is
// the account's, one for both modes: any key or session reads it; a live secret key or an owner's session (live or
// test mode) changes it; a test key and a non-owner's session get 403 forbidden. Strict bodies, 422 with pointers,
// tenants isolated, and the tracking page of a (test) delivery shows the new name and help contact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { dashboardSession, type SessionRequest } from '../helpers/dashboard-session.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith } from '../helpers/test-mode.js';

let stack: Stack;
let t: CreatedTenant;
let other: CreatedTenant;

beforeAll(async () => {
  stack = await startStack();
  t = await stack.tenant();
  other = await stack.tenant();
}, 120_000);
afterAll(() => stack?.close());

const get = (key: string) => stack.request('GET', '/v1/settings/shop', { key });
const put = (key: string, body: unknown) => stack.request('PUT', '/v1/settings/shop', { key, body });
const test = { 'dashboard-mode': 'test' };

describe('the shop profile', () => {
  it('reads the defaults: the account name, nothing set', async () => {
    const res = await get(t.secret_key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      name: expect.any(String),
      display_name: null,
      help_email: null,
      help_phone: null,
      help_url: null,
    });
    // A test key reads the same profile: it is the account's.
    expect((await get(t.test_secret_key)).body).toEqual(res.body);
  });

  it('a live secret key changes the fields it names (trimmed); empty or null clears one; the others stay', async () => {
    const set = await put(t.secret_key, {
      display_name: '  Loja Kianda ',
      help_email: 'ajuda@loja-kianda.ao',
      help_phone: '+244 923 000 111',
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({
      display_name: 'Loja Kianda',
      help_email: 'ajuda@loja-kianda.ao',
      help_phone: '+244 923 000 111',
      help_url: null,
    });
    const more = await put(t.secret_key, { help_url: 'https://loja-kianda.ao/ajuda', help_phone: '' });
    expect(more.body).toMatchObject({
      display_name: 'Loja Kianda',
      help_email: 'ajuda@loja-kianda.ao',
      help_phone: null,
      help_url: 'https://loja-kianda.ao/ajuda',
    });
    const cleared = await put(t.secret_key, { help_url: null });
    expect(cleared.body).toMatchObject({ help_url: null, help_email: 'ajuda@loja-kianda.ao' });
    expect((await get(t.secret_key)).body).toEqual(cleared.body);
    // An empty body changes nothing.
    expect((await put(t.secret_key, {})).body).toEqual(cleared.body);
  });

  it('422 with a pointer per wrong contact, nothing stored; unknown fields and wrong types refused', async () => {
    const before = (await get(t.secret_key)).body;
    const bad = await put(t.secret_key, {
      display_name: 'Outra',
      help_email: 'ajuda',
      help_phone: 'ligue-nos',
      help_url: 'javascript:alert(1)',
    });
    stack.expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors.map((e: any) => `${e.pointer} ${e.code}`)).toEqual([
      '/help_email invalid_format',
      '/help_phone invalid_format',
      '/help_url invalid_format',
    ]);
    const unknown = await put(t.secret_key, { display_name: 'Outra', name: 'Renamed' });
    stack.expectProblem(unknown, 422, 'validation_failed');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ pointer: '/name', code: 'unknown_field' })]);
    const wrongType = await put(t.secret_key, { help_phone: 923000111 });
    stack.expectProblem(wrongType, 422, 'validation_failed');
    expect(wrongType.body.errors[0].pointer).toBe('/help_phone');
    stack.expectProblem(await put(t.secret_key, { display_name: 'x'.repeat(101) }), 422, 'validation_failed');
    expect((await get(t.secret_key)).body).toEqual(before);
  });

  it('a test key reads it but gets 403 forbidden on a change', async () => {
    const before = (await get(t.secret_key)).body;
    const res = await put(t.test_secret_key, { display_name: 'Sandbox' });
    stack.expectProblem(res, 403, 'forbidden');
    expect(res.body.detail).toMatch(/live secret key|owner/);
    expect((await get(t.secret_key)).body).toEqual(before);
  });

  it('sessions: everyone reads it; an owner changes it in live and in test mode; a developer or viewer gets 403', async () => {
    const owner = (await dashboardSession(stack, t.tenant_id, 'owner')).request;
    const developer = (await dashboardSession(stack, t.tenant_id, 'developer')).request;
    const viewer = (await dashboardSession(stack, t.tenant_id, 'viewer')).request;
    for (const who of [owner, developer, viewer] as SessionRequest[]) {
      expect((await who('GET', '/v1/settings/shop')).status).toBe(200);
      expect((await who('GET', '/v1/settings/shop', { headers: test })).status).toBe(200);
    }
    const live = await owner('PUT', '/v1/settings/shop', { body: { help_phone: '923 000 222' } });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    const inTest = await owner('PUT', '/v1/settings/shop', { body: { help_phone: '923 000 333' }, headers: test });
    expect(inTest.status, JSON.stringify(inTest.body)).toBe(200);
    // One profile: the change made in test mode is the live one too.
    expect((await get(t.secret_key)).body.help_phone).toBe('923 000 333');
    for (const [who, headers] of [
      [developer, test],
      [developer, {}],
      [viewer, test],
      [viewer, {}],
    ] as [SessionRequest, Record<string, string>][]) {
      const res = await who('PUT', '/v1/settings/shop', { body: { help_phone: '923 000 444' }, headers });
      stack.expectProblem(res, 403, 'forbidden');
      expect(res.body.detail).toMatch(/owner/);
    }
    expect((await get(t.secret_key)).body.help_phone).toBe('923 000 333');
  });

  it("another tenant's profile is its own", async () => {
    await put(other.secret_key, { display_name: 'Outra Loja' });
    expect((await get(t.secret_key)).body.display_name).toBe('Loja Kianda');
    expect((await get(other.secret_key)).body.display_name).toBe('Outra Loja');
    expect((await get(other.secret_key)).body.help_email).toBeNull();
  });

  it('the tracking page of a test delivery shows the new display name and help contact', async () => {
    await put(t.secret_key, {
      display_name: 'Loja Kianda Sandbox',
      help_email: 'apoio@loja-kianda.ao',
      help_phone: '+244 923 000 999',
      help_url: 'https://loja-kianda.ao/apoio',
    });
    const delivery = await deliveryWith(stack, t.test_secret_key, 'test-manual');
    const page = await stack.request('GET', new URL(delivery.tracking_url).pathname);
    expect(page.status).toBe(200);
    const html = String(page.body);
    expect(html).toContain('Loja Kianda Sandbox');
    expect(html).toContain('mailto:apoio@loja-kianda.ao');
    expect(html).toContain('+244 923 000 999');
    expect(html).toContain('https://loja-kianda.ao/apoio');
  });
});
