// GET/PUT /v1/settings/notifications and GET /v1/deliveries/{id}/notifications on the real stack (docs/recipients.md
// "Settings" and "The message log"): the defaults of each mode, a PUT that changes the fields it names, the 422s with
// their pointers, and tenant and mode isolation; the log's rows (written here as the outbox writes them) oldest first,
// the phone masked, 404 for another tenant's or mode's delivery, and no widget twin.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith } from '../helpers/test-mode.js';

let stack: Stack;
let a: CreatedTenant;
let b: CreatedTenant;

beforeAll(async () => {
  stack = await startStack();
  [a, b] = await Promise.all([stack.tenant(), stack.tenant()]);
});
afterAll(async () => stack?.close());

const get = (key: string) => stack.request('GET', '/v1/settings/notifications', { key });
const put = (key: string, body: unknown) => stack.request('PUT', '/v1/settings/notifications', { key, body });

describe('notification settings', () => {
  it('defaults: off in live mode, on in test mode, pt-AO, the service sender', async () => {
    const t = await stack.tenant();
    const live = await get(t.secret_key);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({
      livemode: true,
      sms_enabled: false,
      language: 'pt-AO',
      sender_id: null,
      effective_sender_id: expect.any(String),
    });
    expect(live.body.effective_sender_id).toMatch(/^[A-Za-z0-9 ]{1,11}$|^\d{1,15}$/);
    expect((await get(t.test_secret_key)).body).toMatchObject({ livemode: false, sms_enabled: true, sender_id: null });
  });

  it('a PUT changes the fields it names; null sender_id goes back to the default; each mode its own', async () => {
    const t = await stack.tenant();
    const first = await put(t.test_secret_key, { language: 'en' });
    expect(first.status).toBe(200);
    // The default of test mode (on) stays: only the language changed.
    expect(first.body).toMatchObject({ livemode: false, sms_enabled: true, language: 'en', sender_id: null });
    const second = await put(t.test_secret_key, { sender_id: 'Loja Kianda', sms_enabled: false });
    expect(second.body).toEqual({
      livemode: false,
      sms_enabled: false,
      language: 'en',
      sender_id: 'Loja Kianda',
      effective_sender_id: 'Loja Kianda',
    });
    expect((await get(t.test_secret_key)).body).toEqual(second.body);
    // The live settings did not move.
    expect((await get(t.secret_key)).body).toMatchObject({ livemode: true, sms_enabled: false, language: 'pt-AO' });
    const cleared = await put(t.test_secret_key, { sender_id: null });
    expect(cleared.body.sender_id).toBeNull();
    expect(cleared.body.effective_sender_id).toBe((await get(t.secret_key)).body.effective_sender_id);
    expect(cleared.body.language).toBe('en');
    // A number as the sender; live mode on.
    const live = await put(t.secret_key, { sms_enabled: true, sender_id: '244923000111' });
    expect(live.body).toMatchObject({ livemode: true, sms_enabled: true, sender_id: '244923000111' });
    expect((await get(t.test_secret_key)).body).toMatchObject({ sms_enabled: false, language: 'en' });
  });

  it("tenants never see each other's settings", async () => {
    await put(a.secret_key, { sms_enabled: true, sender_id: 'TenantA' });
    expect((await get(b.secret_key)).body).toMatchObject({ sms_enabled: false, sender_id: null });
    expect((await get(a.secret_key)).body).toMatchObject({ sms_enabled: true, sender_id: 'TenantA' });
  });

  it('422 with a pointer per bad field; unknown fields refused; nothing stored', async () => {
    const t = await stack.tenant();
    const bad = await put(t.secret_key, { sms_enabled: 'yes', language: 'pt', sender_id: 'Çé Loja Kianda' });
    stack.expectProblem(bad, 422, 'validation_failed');
    const pointers = Object.fromEntries(
      bad.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]),
    );
    expect(pointers).toEqual({
      '/sms_enabled': 'invalid_type',
      '/language': 'invalid_enum',
      '/sender_id': 'invalid_format',
    });
    expect(bad.body.errors.find((e: { pointer: string }) => e.pointer === '/sender_id').detail).toMatch(/11 letters/);

    for (const sender of ['', 'ABCDEFGHIJKL', ' Loja', '1234567890123456', 'Loja-K']) {
      const res = await put(t.secret_key, { sender_id: sender });
      stack.expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/sender_id', code: 'invalid_format' })]);
    }
    const unknown = await put(t.secret_key, { sms_enabled: true, sender: 'Loja' });
    stack.expectProblem(unknown, 422, 'validation_failed');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ pointer: '/sender', code: 'unknown_field' })]);
    expect((await get(t.secret_key)).body).toMatchObject({ sms_enabled: false, sender_id: null });
  });

  it('takes a secret key: a publishable key or none is 401', async () => {
    stack.expectProblem(await get(a.publishable_key), 401, 'unauthorized');
    stack.expectProblem(await stack.request('GET', '/v1/settings/notifications'), 401, 'unauthorized');
  });
});

/** A row of the log as the outbox writes it (src/notifications outbox, docs/recipients.md "The outbox"). */
async function insertMessage(
  tenant: CreatedTenant,
  deliveryId: string,
  fields: Record<string, unknown> & { created_at: string },
): Promise<string> {
  const row = {
    id: randomUUID(),
    tenant_id: tenant.tenant_id,
    livemode: false,
    delivery_id: deliveryId,
    event_id: randomUUID(),
    kind: 'created',
    recipient: '244912345678',
    language: 'pt-AO',
    sender_id: 'Entregas',
    body: 'Loja: a sua encomenda vem a caminho.',
    encoding: 'gsm7',
    segments: 1,
    status: 'queued',
    ...fields,
  };
  const columns = Object.keys(row);
  await stack.pool.query(
    `INSERT INTO notifications (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    Object.values(row),
  );
  return row.id;
}

describe('the message log', () => {
  let delivery: { id: string };
  const ids: string[] = [];
  const log = (key: string, id = delivery.id) => stack.request('GET', `/v1/deliveries/${id}/notifications`, { key });

  beforeAll(async () => {
    delivery = await deliveryWith(stack, a.test_secret_key, 'test-manual');
    ids.push(
      await insertMessage(a, delivery.id, {
        kind: 'out_for_delivery',
        body: 'Loja: saiu para entrega. PIN de entrega: 4821. https://x.test/track/1?r=abc',
        status: 'delivered',
        attempts: 2,
        created_at: '2026-11-23T14:58:02.114Z',
        submitted_at: '2026-11-23T14:58:03.000Z',
        delivered_at: '2026-11-23T14:58:05.020Z',
        provider_message_id: `msg-${randomUUID()}`,
      }),
      await insertMessage(a, delivery.id, {
        kind: 'delivered',
        recipient: '244912345678',
        language: 'en',
        body: 'Loja: your parcel was delivered. Obrigado — até já!',
        encoding: 'ucs2',
        segments: 2,
        status: 'not_sent',
        reason: 'opted_out',
        created_at: '2026-11-23T15:31:40.502Z',
      }),
      await insertMessage(a, delivery.id, { kind: 'created', created_at: '2026-11-23T09:15:04.218Z' }),
    );
  });

  it('oldest first, every field, the phone masked and nowhere in clear', async () => {
    const res = await log(a.test_secret_key);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    // Only the rows written here (the outbox may add its own for this test delivery once it runs).
    const mine = res.body.data.filter((n: { id: string }) => ids.includes(n.id));
    expect(mine.map((n: { kind: string }) => n.kind)).toEqual(['created', 'out_for_delivery', 'delivered']);
    expect(mine[1]).toEqual({
      id: ids[0],
      object: 'notification',
      channel: 'sms',
      kind: 'out_for_delivery',
      to: '+244 *** *** 678',
      language: 'pt-AO',
      body: 'Loja: saiu para entrega. PIN de entrega: 4821. https://x.test/track/1?r=abc',
      encoding: 'gsm7',
      segments: 1,
      status: 'delivered',
      reason: null,
      attempts: 2,
      created_at: '2026-11-23T14:58:02.114Z',
      submitted_at: '2026-11-23T14:58:03.000Z',
      delivered_at: '2026-11-23T14:58:05.020Z',
    });
    expect(mine[2]).toMatchObject({
      status: 'not_sent',
      reason: 'opted_out',
      encoding: 'ucs2',
      segments: 2,
      language: 'en',
      submitted_at: null,
      delivered_at: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('912345678');
  });

  it('a delivery without messages: an empty list', async () => {
    const other = await deliveryWith(stack, b.test_secret_key, 'test-manual');
    const res = await log(b.test_secret_key, other.id);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.data.every((n: { id: string }) => !ids.includes(n.id))).toBe(true);
  });

  it("404 for another tenant's or the other mode's delivery, as for an unknown or malformed id", async () => {
    stack.expectProblem(await log(b.test_secret_key), 404, 'not_found');
    stack.expectProblem(await log(a.secret_key), 404, 'not_found');
    stack.expectProblem(await log(a.test_secret_key, randomUUID()), 404, 'not_found');
    stack.expectProblem(await log(a.test_secret_key, 'not-a-uuid'), 404, 'not_found');
  });

  it('not on the widget surface: a publishable key is refused, and there is no widget route', async () => {
    stack.expectProblem(await log(a.test_publishable_key), 401, 'unauthorized');
    const widget = await stack.request('GET', `/v1/widget/deliveries/${delivery.id}/notifications`, {
      key: a.test_publishable_key,
      headers: { origin: 'http://shop.test' },
    });
    expect(widget.status).toBe(404);
  });
});
