// SMS over SMPP against the SMSC simulator over real TCP (docs/recipients.md "SMS over SMPP"): submit and receipt,
// GSM-7 / UCS-2 / long texts, refused and throttled submits, a connection dropped mid-submit, inbound messages, and
// an SMSC that is down when the transport starts. No Postgres or Temporal involved.
import net from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SmppTransport, type SmppOptions } from '../../src/notifications/smpp/transport.js';
import {
  SmsSubmitError,
  type DeliveryReceipt,
  type InboundMessage,
  type SmsMessage,
} from '../../src/notifications/transport.js';
import { startSmsc, type TestSmsc } from '../helpers/smsc.js';

/** A pino logger whose records the test can read. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const transports: SmppTransport[] = [];
function transport(smsc: { smppUrl: string } | string, options: Partial<SmppOptions> = {}) {
  const url = typeof smsc === 'string' ? smsc : smsc.smppUrl;
  const t = new SmppTransport({ url, logger: pino({ level: 'silent' }), reconnectMinMs: 50, ...options });
  transports.push(t);
  return t;
}

const sms = (text: string, to = '+244 923 456 789'): SmsMessage => ({ from: 'Entregas', to, text });

async function until<T>(read: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function rejection(promise: Promise<unknown>): Promise<SmsSubmitError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SmsSubmitError);
  return err as SmsSubmitError;
}

let smsc: TestSmsc;
beforeAll(async () => {
  smsc = await startSmsc();
});
afterAll(() => smsc.close());
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await smsc.control('POST', '/_control/throttle', { per_second: null });
  await smsc.control('POST', '/_control/refuse', { count: 0 });
  await smsc.control('PATCH', '/_control/config', { undeliverable: null, answer_enquire_link: true });
  smsc.simulation.clear();
});

describe('submit and delivery receipt', () => {
  it('binds, submits with the sender id, and hears the delivered receipt for the message id', async () => {
    const t = transport(smsc);
    const receipts: DeliveryReceipt[] = [];
    t.onReceipt((receipt) => void receipts.push(receipt));
    const { messageId } = await t.submit(sms('A sua encomenda foi criada.'));

    const [message] = await smsc.waitForMessages(1);
    expect(message).toMatchObject({
      id: messageId,
      from: 'Entregas',
      to: '244923456789',
      text: 'A sua encomenda foi criada.',
      data_coding: 0,
      segments: 1,
      message_payload: false,
    });
    const receipt = await until(() => receipts.find((r) => r.messageId === messageId));
    expect(receipt).toMatchObject({ messageId, state: 'delivered' });
    expect(receipt.error).toBeUndefined();
    // The transport hands the receipt over before its deliver_sm_resp reaches the SMSC: wait for the SMSC to record it.
    expect(await until(() => message.receipt?.response_status ?? undefined)).toBe('ESME_ROK');
    expect(message.receipt).toMatchObject({ stat: 'DELIVRD' });
  });

  it('reports an undeliverable destination from the receipt, with its error', async () => {
    await smsc.control('PATCH', '/_control/config', { undeliverable: '^244900' });
    const t = transport(smsc);
    const receipts: DeliveryReceipt[] = [];
    t.onReceipt((receipt) => void receipts.push(receipt));
    const { messageId } = await t.submit(sms('Olá', '+244900000001'));
    expect(await until(() => receipts.find((r) => r.messageId === messageId))).toMatchObject({
      messageId,
      state: 'undeliverable',
      error: '001',
    });
  });

  it('a numeric sender id travels as an international number', async () => {
    const t = transport(smsc);
    await t.submit({ from: '+244222000111', to: '244923456789', text: 'ok' });
    expect((await smsc.waitForMessages(1))[0].from).toBe('244222000111');
  });

  it('refuses a bad address before it reaches the SMSC, not retryable', async () => {
    const t = transport(smsc);
    const err = await rejection(t.submit(sms('x', 'not a phone')));
    expect(err).toMatchObject({ retryable: false, code: 'INVALID_ADDRESS' });
    const sender = await rejection(t.submit({ from: 'Far too long a sender', to: '244923456789', text: 'x' }));
    expect(sender.code).toBe('INVALID_ADDRESS');
  });
});

describe('encodings and long messages', () => {
  it('GSM-7 with the extension table, UCS-2 for other characters, and a long text in one message_payload submit', async () => {
    const t = transport(smsc);
    const gsm = 'Total: 1500 Kz [PIN] {1234} ~ €';
    const ucs2 = 'Olá! A sua encomenda está a caminho 🚚';
    const long = 'Entrega a caminho. '.repeat(20).trim();
    const ids = [(await t.submit(sms(gsm))).messageId, (await t.submit(sms(ucs2))).messageId];
    const longId = (await t.submit(sms(long))).messageId;

    const messages = await smsc.waitForMessages(3);
    expect(messages.map((m) => m.id)).toEqual([...ids, longId]);
    expect(messages[0]).toMatchObject({ text: gsm, data_coding: 0, encoding: 'gsm7', segments: 1 });
    expect(messages[1]).toMatchObject({ text: ucs2, data_coding: 8, encoding: 'ucs2', segments: 1 });
    expect(messages[2]).toMatchObject({ text: long, data_coding: 0, message_payload: true, segments: 3 });
    expect(long.length).toBeGreaterThan(306);
  });
});

describe('refused submits', () => {
  it('a temporary status is retryable, a permanent one is not, and the next submit goes through', async () => {
    const t = transport(smsc);
    await smsc.control('POST', '/_control/refuse', { count: 1, status: 'ESME_RSYSERR' });
    expect(await rejection(t.submit(sms('1')))).toMatchObject({ retryable: true, code: 'ESME_RSYSERR' });
    await smsc.control('POST', '/_control/refuse', { count: 1, status: 'ESME_RINVDSTADR' });
    expect(await rejection(t.submit(sms('2')))).toMatchObject({ retryable: false, code: 'ESME_RINVDSTADR' });
    await smsc.control('POST', '/_control/refuse', { count: 1, status: 0x45 });
    expect(await rejection(t.submit(sms('3')))).toMatchObject({ retryable: true, code: 'ESME_RSUBMITFAIL' });
    await expect(t.submit(sms('4'))).resolves.toHaveProperty('messageId');
    expect(smsc.messages().map((m) => m.text)).toEqual(['4']);
  });
});

describe('window and throttling', () => {
  it('keeps at most `window` submits outstanding', async () => {
    const t = transport(smsc, { window: 2 });
    await t.ready();
    const all = Promise.all([1, 2, 3, 4, 5].map((n) => t.submit(sms(`n${n}`))));
    expect(t.state()).toMatchObject({ inFlight: 2, waiting: 3 });
    await all;
    expect(smsc.messages()).toHaveLength(5);
  });

  it('ESME_RTHROTTLED fails the submit retryable and pauses sending; after the pause submits succeed', async () => {
    await smsc.control('POST', '/_control/throttle', { per_second: 2 });
    const t = transport(smsc, { window: 2, throttlePauseMs: 1100 });
    await t.ready();
    const settled: { n: number; at: number; err?: SmsSubmitError }[] = [];
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        t.submit(sms(`t${n}`)).then(
          () => void settled.push({ n, at: Date.now() }),
          (err: SmsSubmitError) => void settled.push({ n, at: Date.now(), err }),
        ),
      ),
    );
    const throttled = settled.filter((s) => s.err);
    expect(throttled.map((s) => [s.n, s.err?.code, s.err?.retryable])).toEqual([
      [3, 'ESME_RTHROTTLED', true],
      [4, 'ESME_RTHROTTLED', true],
    ]);
    const fifth = settled.find((s) => s.n === 5)!;
    expect(fifth.err).toBeUndefined();
    expect(fifth.at - Math.max(...throttled.map((s) => s.at))).toBeGreaterThanOrEqual(1000);
    expect(smsc.messages().map((m) => m.text)).toEqual(['t1', 't2', 't5']);
    expect((await smsc.control('GET', '/_control/status')).body.throttled).toBeGreaterThanOrEqual(2);
  });
});

describe('a dropped connection', () => {
  it('mid-submit: the caller gets a retryable error, the transport rebinds, the retry goes through (at-least-once)', async () => {
    const t = transport(smsc);
    await t.ready();
    await smsc.control('POST', '/_control/drop', { when: 'next_submit' });
    const err = await rejection(t.submit(sms('Entregue.')));
    expect(err).toMatchObject({ retryable: true, code: 'CONNECTION_LOST' });
    await t.ready();
    const { messageId } = await t.submit(sms('Entregue.'));
    const messages = smsc.messages();
    // The SMSC took the first copy before the drop: the retry makes a duplicate, never a loss.
    expect(messages.map((m) => [m.text, m.dropped])).toEqual([
      ['Entregue.', true],
      ['Entregue.', false],
    ]);
    expect(messages[1].id).toBe(messageId);
  });

  it('submits made while the connection is down wait for the rebind and complete', async () => {
    const t = transport(smsc);
    await t.ready();
    expect((await smsc.control('POST', '/_control/drop', { when: 'now' })).body.dropped).toBe(1);
    await until(() => (t.state().bound ? undefined : true));
    const result = await t.submit(sms('depois'));
    expect(smsc.messages().map((m) => m.id)).toEqual([result.messageId]);
  });

  it('a receipt whose session dropped is delivered on the next bind', async () => {
    await smsc.control('PATCH', '/_control/config', { receipt_delay_ms: 300 });
    try {
      const t = transport(smsc);
      const receipts: DeliveryReceipt[] = [];
      t.onReceipt((receipt) => void receipts.push(receipt));
      const { messageId } = await t.submit(sms('recibo'));
      await smsc.control('POST', '/_control/drop', { when: 'now' });
      expect(await until(() => receipts.find((r) => r.messageId === messageId))).toMatchObject({
        messageId,
        state: 'delivered',
      });
    } finally {
      await smsc.control('PATCH', '/_control/config', { receipt_delay_ms: 50 });
    }
  });
});

describe('keepalive', () => {
  it('sends enquire_link while idle, and re-establishes a link whose enquire_link goes unanswered', async () => {
    const { logger, lines } = capturingLogger();
    const t = transport(smsc, { enquireLinkMs: 50, logger });
    await t.ready();
    const before = (await smsc.control('GET', '/_control/status')).body.enquire_links;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await smsc.control('GET', '/_control/status')).body.enquire_links).toBeGreaterThan(before + 1);
    expect(t.state().bound).toBe(true);

    await smsc.control('PATCH', '/_control/config', { answer_enquire_link: false });
    await until(() => lines.find((line) => line.msg === 'SMPP: enquire_link unanswered, reconnecting'));
    await smsc.control('PATCH', '/_control/config', { answer_enquire_link: true });
    await t.ready();
    await expect(t.submit(sms('ainda aqui'))).resolves.toHaveProperty('messageId');
  });
});

describe('the control API', () => {
  it('refuses bad input with 422 and says when no client is bound', async () => {
    expect((await smsc.control('POST', '/_control/refuse', { count: -1 })).status).toBe(422);
    expect((await smsc.control('POST', '/_control/refuse', { count: 1, status: 'ESME_NOPE' })).status).toBe(422);
    expect((await smsc.control('POST', '/_control/throttle', { per_second: 'fast' })).status).toBe(422);
    expect((await smsc.control('POST', '/_control/drop', { when: 'later' })).status).toBe(422);
    expect((await smsc.control('PATCH', '/_control/config', { undeliverable: '(' })).status).toBe(422);
    expect((await smsc.control('POST', '/_control/inbound', { text: 'PARAR' })).status).toBe(422);
    const none = await smsc.control('POST', '/_control/inbound', { from: '244923456789', text: 'PARAR' });
    expect(none).toEqual({ status: 409, body: { error: 'no_session', detail: 'no client is bound to the SMSC' } });
  });

  it('lists messages by recipient and clears them', async () => {
    const t = transport(smsc);
    await t.submit(sms('um', '+244923000001'));
    await t.submit(sms('dois', '+244923000002'));
    const listed = await smsc.control('GET', '/_control/messages?to=%2B244923000002');
    expect(listed.body.data.map((m: { text: string }) => m.text)).toEqual(['dois']);
    expect((await smsc.control('DELETE', '/_control/messages')).body).toEqual({ cleared: 2 });
    expect((await smsc.control('GET', '/_control/messages')).body.data).toEqual([]);
  });
});

describe('inbound messages', () => {
  it('a reply PARAR reaches onInbound; a failing listener makes the answer a temporary error', async () => {
    const t = transport(smsc);
    const inbound: InboundMessage[] = [];
    t.onInbound((message) => void inbound.push(message));
    await t.ready();
    const sent = await smsc.control('POST', '/_control/inbound', { from: '+244923456789', text: 'PARAR' });
    expect(sent.body).toEqual({ delivered: true, response_status: 'ESME_ROK' });
    expect(inbound).toEqual([{ from: '244923456789', to: 'Entregas', text: 'PARAR' }]);

    await smsc.control('POST', '/_control/inbound', { from: '244923456789', text: 'Não quero mais' });
    expect(inbound[1].text).toBe('Não quero mais');

    t.onInbound(async () => {
      throw new Error('database down');
    });
    const failed = await smsc.control('POST', '/_control/inbound', { from: '244923456789', text: 'STOP' });
    expect(failed.body).toEqual({ delivered: false, response_status: 'ESME_RX_T_APPN' });
  });
});

describe('an SMSC that is down', () => {
  async function freePort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('at start: the transport retries with backoff, and a waiting submit goes out once the SMSC is up', async () => {
    const port = await freePort();
    const { logger, lines } = capturingLogger();
    const t = transport(`smpp://entregas:smsc-dev@127.0.0.1:${port}`, {
      logger,
      reconnectMinMs: 50,
      reconnectMaxMs: 400,
    });
    const submitted = t.submit(sms('finalmente'));
    await until(() => (t.state().reconnects >= 3 ? true : undefined));
    const waits = lines.filter((l) => l.msg.startsWith('SMPP: connection lost')).map((l: any) => l.in_ms);
    expect(waits.slice(0, 3)).toEqual([50, 100, 200]);

    const late = await startSmsc({ smppPort: port });
    try {
      const { messageId } = await submitted;
      expect(late.messages().map((m) => m.id)).toEqual([messageId]);
      expect(t.state()).toMatchObject({ bound: true, reconnects: 0 });
    } finally {
      await t.close();
      await late.close();
    }
  });

  it('a submit that waits longer than waitTimeoutMs fails retryable; wrong credentials never bind', async () => {
    const t = transport(`smpp://entregas:wrong@127.0.0.1:${smsc.smppPort}`, { waitTimeoutMs: 300 });
    expect(await rejection(t.submit(sms('x')))).toMatchObject({ retryable: true, code: 'SMSC_UNAVAILABLE' });
    expect(t.state().bound).toBe(false);
    expect(smsc.messages()).toHaveLength(0);
  });
});
