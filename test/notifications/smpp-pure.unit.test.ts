// The pure parts of SMS over SMPP: encoding choice and segments, receipt parsing, addresses, command statuses, and
// what the log transport writes.
import { describe, expect, it } from 'vitest';
import { masked } from '../../src/notifications/log-transport.js';
import { destinationAddress, phoneDigits, senderAddress } from '../../src/notifications/smpp/addresses.js';
import { decodeSms, encodeSms, isGsm7, smsSegments, toGsm7 } from '../../src/notifications/smpp/encoding.js';
import { deliverKind, messageStateOf, parseReceipt, receiptText } from '../../src/notifications/smpp/receipts.js';
import { isRetryableStatus, statusCode, statusName } from '../../src/notifications/smpp/status.js';
import { parseSmppUrl } from '../../src/notifications/smpp/transport.js';

describe('encoding choice', () => {
  it('GSM-7 when every character has a code, extension characters counting two septets', () => {
    expect(encodeSms('Olé, Çà!')).toMatchObject({ encoding: 'gsm7', dataCoding: 0, length: 8, segments: 1 });
    const euro = encodeSms('10 €');
    expect(euro).toMatchObject({ encoding: 'gsm7', length: 5 });
    expect([...euro.bytes]).toEqual([0x31, 0x30, 0x20, 0x1b, 0x65]);
    expect(decodeSms(0, euro.bytes)).toBe('10 €');
  });

  it('UCS-2 for Portuguese accents outside GSM-7 and for emoji, as UTF-16 big endian', () => {
    expect(isGsm7('está')).toBe(false);
    const text = 'Não 🚚';
    const encoded = encodeSms(text);
    expect(encoded).toMatchObject({ encoding: 'ucs2', dataCoding: 8, length: 6, segments: 1 });
    expect(encoded.bytes.subarray(0, 2)).toEqual(Buffer.from([0x00, 0x4e]));
    expect(decodeSms(8, encoded.bytes)).toBe(text);
  });

  it('segments: 160 / 153 septets for GSM-7, 70 / 67 characters for UCS-2', () => {
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'gsm7', segments: 1 });
    expect(smsSegments('a'.repeat(161))).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(smsSegments('a'.repeat(306))).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(smsSegments('a'.repeat(307))).toEqual({ encoding: 'gsm7', segments: 3 });
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'gsm7', segments: 1 });
    expect(smsSegments('€'.repeat(81))).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(smsSegments('ã'.repeat(70))).toEqual({ encoding: 'ucs2', segments: 1 });
    expect(smsSegments('ã'.repeat(71))).toEqual({ encoding: 'ucs2', segments: 2 });
    expect(smsSegments('ã'.repeat(135))).toEqual({ encoding: 'ucs2', segments: 3 });
  });

  it('toGsm7 drops the accents GSM-7 lacks and keeps those it has', () => {
    expect(toGsm7('Não, está à porta: Conceição, é já!')).toBe('Nao, esta à porta: Conceicao, é ja!');
    expect(isGsm7(toGsm7('Olá, a sua encomenda está a caminho. Código: 4821'))).toBe(true);
    expect(toGsm7('Entrega 🚚')).toBe('Entrega 🚚');
  });

  it('decodes IA5 and Latin-1 short messages too', () => {
    expect(decodeSms(1, Buffer.from('STOP', 'ascii'))).toBe('STOP');
    expect(decodeSms(3, Buffer.from('Não', 'latin1'))).toBe('Não');
  });
});

describe('delivery receipts', () => {
  const text = 'id:a1b2c3 sub:001 dlvrd:001 submit date:2611250210 done date:2611250211 stat:DELIVRD err:000 text:Ola';

  it('tells receipts from messages by the esm_class message type', () => {
    expect(deliverKind(0x04)).toBe('receipt');
    expect(deliverKind(0x20)).toBe('receipt');
    expect(deliverKind(0x00)).toBe('inbound');
    expect(deliverKind(0x40)).toBe('inbound'); // UDH indicator only
    expect(deliverKind(0x08)).toBe('other'); // SME delivery acknowledgement
  });

  it('parses the standard receipt text', () => {
    const at = new Date('2026-11-25T02:11:00Z');
    expect(parseReceipt({ text }, at)).toEqual({ messageId: 'a1b2c3', state: 'delivered', at });
    const failed = parseReceipt({ text: text.replace('DELIVRD', 'UNDELIV').replace('err:000', 'err:034') });
    expect(failed).toMatchObject({ state: 'undeliverable', error: '034' });
    expect(parseReceipt({ text: 'id:x stat:EXPIRED' })).toMatchObject({ state: 'expired' });
    expect(parseReceipt({ text: 'id:x stat:REJECTD err:1' })).toMatchObject({ state: 'rejected', error: '1' });
    expect(parseReceipt({ text: 'id:x stat:WHATEVER' })).toMatchObject({ state: 'unknown' });
  });

  it('prefers the receipted_message_id and message_state TLVs, and needs a message id', () => {
    expect(parseReceipt({ text, receiptedMessageId: 'tlv-id', messageState: 5 })).toMatchObject({
      messageId: 'tlv-id',
      state: 'undeliverable',
    });
    expect(parseReceipt({ text: '', receiptedMessageId: 'only-tlv', messageState: 2 })).toMatchObject({
      messageId: 'only-tlv',
      state: 'delivered',
    });
    expect(parseReceipt({ text: 'stat:DELIVRD' })).toBeNull();
    expect(
      parseReceipt({ text: '', receiptedMessageId: 'n', networkErrorCode: Buffer.from([3, 0, 27]) }),
    ).toMatchObject({ error: '27' });
  });

  it('writes what it parses (the simulator uses receiptText)', () => {
    const written = receiptText({
      id: 'm1',
      stat: 'UNDELIV',
      err: '001',
      submitted: new Date(),
      done: new Date(),
      text: 'x',
    });
    expect(parseReceipt({ text: written, messageState: messageStateOf('UNDELIV') })).toMatchObject({
      messageId: 'm1',
      state: 'undeliverable',
      error: '001',
    });
  });
});

describe('addresses', () => {
  it('a sender id with letters is alphanumeric (TON 5, NPI 0), a number international, a short code TON 3', () => {
    expect(senderAddress('Entregas')).toEqual({ ton: 5, npi: 0, addr: 'Entregas' });
    expect(senderAddress('+244 222 000 111')).toEqual({ ton: 1, npi: 1, addr: '244222000111' });
    expect(senderAddress('4040')).toEqual({ ton: 3, npi: 0, addr: '4040' });
    expect(senderAddress('TwelveLetter')).toBeNull();
    expect(senderAddress('')).toBeNull();
  });

  it('destinations are E.164 digits', () => {
    expect(destinationAddress('+244 923-456-789')).toEqual({ ton: 1, npi: 1, addr: '244923456789' });
    expect(phoneDigits('00244923456789')).toBe('244923456789');
    expect(phoneDigits('923')).toBeNull();
    expect(phoneDigits('abc')).toBeNull();
  });
});

describe('command statuses', () => {
  it('names statuses and says which are worth retrying', () => {
    expect(statusName(0x58)).toBe('ESME_RTHROTTLED');
    expect(statusName(0x1234)).toBe('0x00001234');
    for (const name of ['ESME_RTHROTTLED', 'ESME_RMSGQFUL', 'ESME_RSYSERR', 'ESME_RX_T_APPN'])
      expect(isRetryableStatus(statusCode(name)!)).toBe(true);
    for (const name of ['ESME_RINVDSTADR', 'ESME_RINVSRCADR', 'ESME_RX_P_APPN', 'ESME_RINVDCS'])
      expect(isRetryableStatus(statusCode(name)!)).toBe(false);
    expect(statusCode('NOPE')).toBeUndefined();
    expect(statusCode(0)).toBeUndefined();
  });

  it('reads SMPP_URL', () => {
    expect(parseSmppUrl('smpp://user:p%40ss@smsc.example:2776')).toEqual({
      host: 'smsc.example',
      port: 2776,
      systemId: 'user',
      password: 'p@ss',
    });
    expect(parseSmppUrl('smpp://u:p@h').port).toBe(2775);
    expect(() => parseSmppUrl('http://u:p@h')).toThrow(/smpp:\/\//);
  });
});

describe('the log transport', () => {
  it('masks the recipient token and PIN-like numbers in what it logs', () => {
    expect(masked('Siga: https://x.ao/track/dlv_1?r=abcDEF123 PIN 4821, 12/05')).toBe(
      'Siga: https://x.ao/track/dlv_1?r=*** PIN ****, 12/05',
    );
  });
});
