// SMS_PROVIDER and its neighbours (src/platform/config.ts) and the transport createSmsTransport builds from them.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LogTransport } from '../../src/notifications/log-transport.js';
import { SmppTransport } from '../../src/notifications/smpp/transport.js';
import { createSmsTransport } from '../../src/notifications/transports.js';
import { loadConfig } from '../../src/platform/config.js';

const logger = pino({ level: 'silent' });

describe('SMS configuration', () => {
  it('defaults to the log without SMPP_URL, to smpp with it', () => {
    expect(loadConfig({}).sms).toEqual({ provider: 'log', smppUrl: undefined, senderId: 'Entregas', window: 10 });
    expect(loadConfig({ SMPP_URL: 'smpp://u:p@127.0.0.1:1' }).sms).toMatchObject({ provider: 'smpp' });
    expect(loadConfig({ SMPP_URL: 'smpp://u:p@127.0.0.1:1', SMS_PROVIDER: 'none' }).sms.provider).toBe('none');
    expect(loadConfig({ SMS_SENDER_ID: 'Loja Kiami', SMPP_WINDOW: '50' }).sms).toMatchObject({
      senderId: 'Loja Kiami',
      window: 50,
    });
  });

  it('refuses smpp without an SMSC, a malformed SMPP_URL (without echoing it), a bad sender id and window', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'smpp' })).toThrow(/SMS_PROVIDER: smpp needs SMPP_URL/);
    expect(() => loadConfig({ SMS_PROVIDER: 'carrier-pigeon' })).toThrow(/SMS_PROVIDER: must be smpp, log or none/);
    let message = '';
    try {
      loadConfig({ SMPP_URL: 'http://user:hunter2@smsc' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/SMPP_URL: must look like smpp:/);
    expect(message).not.toContain('hunter2');
    expect(() => loadConfig({ SMS_SENDER_ID: 'Far too long a name' })).toThrow(/SMS_SENDER_ID/);
    expect(() => loadConfig({ SMPP_WINDOW: '0' })).toThrow(/SMPP_WINDOW/);
  });

  it('createSmsTransport: none, the log, or SMPP', async () => {
    expect(createSmsTransport(loadConfig({ SMS_PROVIDER: 'none' }), logger)).toBeNull();
    expect(createSmsTransport(loadConfig({}), logger)).toBeInstanceOf(LogTransport);
    const smpp = createSmsTransport(loadConfig({ SMPP_URL: 'smpp://u:p@127.0.0.1:1' }), logger);
    expect(smpp).toBeInstanceOf(SmppTransport);
    await smpp!.close();
  });

  it('the log transport answers with an id and a delivered receipt', async () => {
    const log = new LogTransport(logger);
    const receipts: unknown[] = [];
    log.onReceipt((receipt) => void receipts.push(receipt));
    const { messageId } = await log.submit({ from: 'Entregas', to: '244923456789', text: 'Olá' });
    expect(messageId).toMatch(/^log-/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(receipts).toEqual([{ messageId, state: 'delivered', at: expect.any(Date) }]);
  });
});
