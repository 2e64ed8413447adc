// The recipients' SMS outbox on the real stack (API, worker, Postgres, Temporal) and the SMSC simulator over SMPP:
// each delivery event the recipient hears of becomes one message (with the link, the PIN, the ETA), receipts move the
// log to delivered, a refusing / throttling / dropping SMSC gets the message later, a sender that dies mid-lease hands
// it on when the lease ends, PARAR opts the phone out, and live mode is off by default.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/platform/db.js';
import { enqueueNotification, smsDefaults } from '../../src/notifications/enqueue.js';
import { createSmsOutbox, type SmsOutbox } from '../../src/notifications/outbox.js';
import { SmppTransport } from '../../src/notifications/smpp/transport.js';
import type { SmsTransport } from '../../src/notifications/transport.js';
import { recipientUrl } from '../../src/recipients/link.js';
import { quoteBody } from '../helpers/fixtures.js';
import { startSmsc, type TestSmsc } from '../helpers/smsc.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { quoteFrom, until } from '../helpers/test-mode.js';

const quiet = { info: () => {}, warn: () => {} };
const silent = pino({ level: 'silent' });

let stack: Stack;
let smsc: TestSmsc;
let transport: SmppTransport;
let outbox: SmsOutbox;
let tenantId: string;
let key: string;

/** A new phone of this run, as the outbox stores it (digits) and as a merchant writes it. */
function newPhone() {
  const digits = `2449${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  return { digits, written: `+${digits}` };
}

/** Quotes with `slug` and creates a test delivery to `phone`; returns its id. */
async function deliveryTo(phone: string, slug = 'test-pin') {
  const body = quoteBody();
  body.destination = { ...body.destination, contact: { name: 'Ana', phone } };
  const q = await quoteFrom(stack, key, slug, body);
  const res = await stack.request('POST', '/v1/deliveries', { key, body: { quote_id: q.quote_id, ...body } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const advance = async (id: string, body: Record<string, unknown>) => {
  const res = await stack.request('POST', `/v1/test_helpers/deliveries/${id}/advance`, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

async function rows(deliveryId: string) {
  const { rows } = await stack.pool.query(
    `SELECT kind, status, reason, body, encoding, segments, attempts, provider_message_id, delivered_at, event_id
       FROM notifications WHERE delivery_id = $1 ORDER BY created_at, kind`,
    [deliveryId],
  );
  return rows;
}

beforeAll(async () => {
  smsc = await startSmsc({ receiptDelayMs: 30 });
  stack = await startStack();
  const tenant = await stack.tenant();
  tenantId = tenant.tenant_id;
  key = tenant.test_secret_key;
  await stack.pool.query(`UPDATE tenants SET display_name = 'Loja Kianda' WHERE id = $1`, [tenantId]);
  transport = new SmppTransport({ url: smsc.smppUrl, window: 10, logger: silent, throttlePauseMs: 100 });
  outbox = createSmsOutbox({
    pool: stack.pool,
    transport,
    log: quiet,
    tenantId,
    backoffMs: 100,
    backoffCapMs: 400,
    pollMs: 100,
    leaseMs: 1500,
  });
  outbox.start();
});

afterAll(async () => {
  await outbox?.stop();
  await transport?.close();
  await stack?.close();
  await smsc?.close();
});

describe('the SMS outbox', () => {
  it('a delivery driven through its life sends each message once: the link, the ETA and PIN, the next-try link, delivered', async () => {
    const phone = newPhone();
    const id = await deliveryTo(phone.written);
    const { rows: d } = await stack.pool.query(`SELECT recipient_token, delivery_pin FROM deliveries WHERE id = $1`, [
      id,
    ]);
    const link = recipientUrl(stack.config.baseUrl, id, d[0].recipient_token);
    const pin = d[0].delivery_pin as string;
    expect(pin).toMatch(/^\d{4}$/);
    await until(stack, key, id, (x) => x.status === 'assigned');
    // The test helper's estimate goes with out_for_delivery only.
    const early = await stack.request('POST', `/v1/test_helpers/deliveries/${id}/advance`, {
      key,
      body: { to: 'in_transit', eta_minutes: 25 },
    });
    stack.expectProblem(early, 422, 'validation_failed');
    await advance(id, { to: 'in_transit' });
    await advance(id, { to: 'out_for_delivery', eta_minutes: 25 });
    await advance(id, { to: 'attempt_failed', reason: 'recipient_unavailable' });
    await advance(id, { to: 'out_for_delivery' });
    await advance(id, { to: 'delivered', pin });

    const sent = await smsc.waitForMessages(5, { to: phone.digits }, 15_000);
    expect(sent.map((m) => m.from)).toEqual(Array(5).fill('Entregas'));
    const texts = sent.map((m) => m.text);
    expect(texts[0]).toBe(
      `Loja Kianda: recebemos o pedido de entrega da sua encomenda. Acompanhe e diga-nos onde entregar: ${link} Para deixar de receber SMS, responda PARAR.`,
    );
    expect(texts[1]).toBe(
      `Loja Kianda: a sua encomenda saiu para entrega e chega em cerca de 25 min. Diga o PIN ${pin} ao entregador.`,
    );
    expect(texts[2]).toContain(`Escolha quando prefere a nova tentativa: ${link}`);
    expect(texts[3]).toBe(`Loja Kianda: a sua encomenda saiu para entrega. Diga o PIN ${pin} ao entregador.`);
    expect(texts[4]).toBe('Loja Kianda: a sua encomenda foi entregue. Obrigado!');
    expect(sent.every((m) => m.encoding === 'gsm7')).toBe(true);

    // Receipts move every message of the log to delivered.
    await expect
      .poll(async () => (await rows(id)).map((r) => r.status))
      .toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
    const log = await rows(id);
    expect(log.map((r) => r.kind).sort()).toEqual(
      ['attempt_failed', 'created', 'delivered', 'out_for_delivery', 'out_for_delivery'].sort(),
    );
    expect(log.every((r) => r.encoding === 'gsm7' && r.segments >= 1 && r.delivered_at && r.attempts === 1)).toBe(true);
    expect(log.find((r) => r.kind === 'created')!.segments).toBe(2);

    // The same event recorded again (a retried activity, a replayed creation) stores and sends nothing more.
    const created = log.find((r) => r.kind === 'created')!;
    await inTransaction(stack.pool, (client) =>
      enqueueNotification(
        client,
        { eventId: created.event_id, eventType: 'delivery.created', deliveryId: id },
        smsDefaults(stack.config),
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await rows(id)).toHaveLength(5);
    expect(smsc.messages({ to: phone.digits })).toHaveLength(5);
  });

  it('a delivery without a phone has no messages', async () => {
    const body: Record<string, any> = quoteBody();
    body.destination = { ...body.destination, contact: { name: 'Ana' } };
    const q = await quoteFrom(stack, key, 'test-manual', body);
    const res = await stack.request('POST', '/v1/deliveries', { key, body: { quote_id: q.quote_id, ...body } });
    expect(res.status).toBe(201);
    expect(await rows(res.body.id)).toEqual([]);
  });

  it('an SMSC refusing (retryable), throttling and dropping the connection gets each message later', async () => {
    const refused = newPhone();
    await smsc.control('POST', '/_control/refuse', { count: 2, status: 'ESME_RSYSERR' });
    const a = await deliveryTo(refused.written, 'test-manual');
    await smsc.waitForMessages(1, { to: refused.digits }, 10_000);
    await expect.poll(async () => (await rows(a))[0]?.status).toBe('delivered');
    expect((await rows(a))[0].attempts).toBe(3);

    const throttled = newPhone();
    await smsc.control('POST', '/_control/throttle', { per_second: 1 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await deliveryTo(throttled.written, 'test-manual'));
    await smsc.waitForMessages(3, { to: throttled.digits }, 15_000);
    await smsc.control('POST', '/_control/throttle', { per_second: null });
    for (const id of ids) await expect.poll(async () => (await rows(id))[0]?.status).toBe('delivered');
    // A throttle is not one of a message's tries: each counts only the try the SMSC took.
    for (const id of ids) expect((await rows(id))[0].attempts).toBe(1);

    const dropped = newPhone();
    await smsc.control('POST', '/_control/drop', { when: 'next_submit' });
    const c = await deliveryTo(dropped.written, 'test-manual');
    await expect.poll(async () => (await rows(c))[0]?.status, { timeout: 20_000 }).toBe('delivered');
    // At least once: the SMSC may hold the copy whose answer was lost with the connection, never none.
    const copies = smsc.messages({ to: dropped.digits });
    expect(copies.filter((m) => !m.dropped)).toHaveLength(1);
    expect((await rows(c))[0].attempts).toBe(2);
  });

  it('a refusal that no retry cures fails the message with the reason', async () => {
    const phone = newPhone();
    await smsc.control('POST', '/_control/refuse', { count: 1, status: 'ESME_RINVDSTADR' });
    const id = await deliveryTo(phone.written, 'test-manual');
    await expect.poll(async () => (await rows(id))[0]?.status).toBe('failed');
    expect((await rows(id))[0]).toMatchObject({ reason: 'ESME_RINVDSTADR', attempts: 1 });
    expect(smsc.messages({ to: phone.digits })).toEqual([]);
  });

  it('a sender killed mid-lease: another sends the message once the lease runs out', async () => {
    await outbox.stop();
    try {
      // A sender whose submit never comes back: it claimed the message, then died.
      let claimed = 0;
      const dead: SmsTransport = {
        submit: () => {
          claimed++;
          return new Promise(() => {});
        },
        onReceipt: () => {},
        onInbound: () => {},
        close: async () => {},
      };
      const dying = createSmsOutbox({ pool: stack.pool, transport: dead, log: quiet, tenantId, leaseMs: 2000 });
      dying.start();
      const phone = newPhone();
      const id = await deliveryTo(phone.written, 'test-manual');
      await expect.poll(() => claimed).toBe(1);
      const claimedAt = Date.now();
      await dying.stop(0);

      const heir = createSmsOutbox({ pool: stack.pool, transport, log: quiet, tenantId, pollMs: 100, leaseMs: 2000 });
      heir.start();
      try {
        const [sent] = await smsc.waitForMessages(1, { to: phone.digits }, 10_000);
        expect(Date.parse(sent.submitted_at) - claimedAt).toBeGreaterThan(1500);
        await expect.poll(async () => (await rows(id))[0]?.status).toBe('delivered');
        expect(smsc.messages({ to: phone.digits })).toHaveLength(1);
      } finally {
        await heir.stop();
      }
    } finally {
      outbox.start();
    }
  });

  it('PARAR opts the phone out for the tenant: its next message is not sent (opted_out)', async () => {
    const phone = newPhone();
    const first = await deliveryTo(phone.written, 'test-manual');
    await expect.poll(async () => (await rows(first))[0]?.status).toBe('delivered');
    const reply = await smsc.control('POST', '/_control/inbound', {
      from: phone.digits,
      to: 'Entregas',
      text: ' Párar ',
    });
    expect(reply.body.delivered).toBe(true);
    await expect
      .poll(
        async () =>
          (await stack.pool.query(`SELECT tenant_id, livemode FROM sms_opt_outs WHERE phone = $1`, [phone.digits]))
            .rows,
      )
      .toEqual([{ tenant_id: tenantId, livemode: false }]);
    const second = await deliveryTo(phone.written, 'test-manual');
    expect(await rows(second)).toMatchObject([{ kind: 'created', status: 'not_sent', reason: 'opted_out' }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(smsc.messages({ to: phone.digits })).toHaveLength(1);
  });

  it('live mode is off by default: its messages are stored not_sent (disabled) until the tenant turns SMS on', async () => {
    const phone = newPhone();
    const id = await deliveryTo(phone.written, 'test-manual');
    // The same delivery taken as live (a test shortcut: live deliveries need a live courier), new events of it.
    await stack.pool.query(`UPDATE deliveries SET livemode = true WHERE id = $1`, [id]);
    const enqueue = (eventId: string) =>
      inTransaction(stack.pool, (client) =>
        enqueueNotification(
          client,
          { eventId, eventType: 'delivery.delivered', deliveryId: id },
          smsDefaults(stack.config),
        ),
      );
    const off = randomUUID();
    await enqueue(off);
    await stack.pool.query(
      `INSERT INTO notification_settings (tenant_id, livemode, sms_enabled, language, sender_id) VALUES ($1, true, true, 'en', 'KIANDA')`,
      [tenantId],
    );
    const on = randomUUID();
    await enqueue(on);
    const { rows: live } = await stack.pool.query(
      `SELECT event_id, status, reason, language, sender_id, body FROM notifications WHERE event_id = ANY($1)`,
      [[off, on]],
    );
    expect(live.find((r) => r.event_id === off)).toMatchObject({
      status: 'not_sent',
      reason: 'disabled',
      language: 'pt-AO',
    });
    const sent = live.find((r) => r.event_id === on);
    // Queued, and maybe sent already by the running sender.
    expect(['queued', 'submitted', 'delivered']).toContain(sent.status);
    expect(sent).toMatchObject({
      language: 'en',
      sender_id: 'KIANDA',
      body: 'Loja Kianda: your parcel has been delivered. Thank you!',
    });
  });
});
