// The recipient's SMS texts, their encoding and segments, and the opt-out keyword (shared/notifications/messages.ts).
import { describe, expect, it } from 'vitest';
import {
  composeMessage,
  isOptOutKeyword,
  normalizePhone,
  smsEncoding,
  NOTIFICATION_KINDS,
  type MessageInput,
} from '../../shared/notifications/messages.js';

const link = 'https://api.example.ao/track/0b9c6f4e-8d1e-4c3a-9f0a-2b7d5e6f7a8b?r=4f1c9a7e2b3d4c5e6f7a8b9c0d1e2f3a';
const base = { shop: 'Loja Kianda', link } as const;

describe('messages', () => {
  it('every kind in pt-AO stays in GSM-7 (the wording avoids ã, ç, á ...) and within two segments', () => {
    for (const kind of NOTIFICATION_KINDS) {
      const text = composeMessage({ ...base, kind, language: 'pt-AO', pin: '4821', etaMinutes: 25 });
      expect(text.startsWith('Loja Kianda: ')).toBe(true);
      const enc = smsEncoding(text);
      expect(enc.encoding, text).toBe('gsm7');
      expect(enc.segments, text).toBeLessThanOrEqual(2);
    }
  });

  it('created and attempt_failed carry the link; created says how to opt out', () => {
    const created = composeMessage({ ...base, kind: 'created', language: 'pt-AO' });
    expect(created).toContain(link);
    expect(created).toContain('PARAR');
    expect(composeMessage({ ...base, kind: 'created', language: 'en' })).toContain('STOP');
    expect(composeMessage({ ...base, kind: 'attempt_failed', language: 'pt-AO' })).toContain(link);
    expect(composeMessage({ ...base, kind: 'attempt_failed', language: 'en' })).toContain(link);
  });

  it('out_for_delivery: the ETA when known, the PIN only when given', () => {
    const input: MessageInput = { ...base, kind: 'out_for_delivery', language: 'pt-AO' };
    expect(composeMessage(input)).toBe('Loja Kianda: a sua encomenda saiu para entrega.');
    expect(composeMessage({ ...input, etaMinutes: 24.6, pin: '4821' })).toBe(
      'Loja Kianda: a sua encomenda saiu para entrega e chega em cerca de 25 min. Diga o PIN 4821 ao entregador.',
    );
    // An arrival time is shown on Luanda's clock (UTC+1).
    expect(composeMessage({ ...input, language: 'en', etaAt: new Date('2026-03-01T13:05:00Z') })).toBe(
      'Loja Kianda: your parcel is out for delivery, arriving around 14:05.',
    );
  });

  it('delivered, in both languages', () => {
    expect(composeMessage({ ...base, kind: 'delivered', language: 'pt-AO' })).toBe(
      'Loja Kianda: a sua encomenda foi entregue. Obrigado!',
    );
    expect(composeMessage({ ...base, kind: 'delivered', language: 'en' })).toBe(
      'Loja Kianda: your parcel has been delivered. Thank you!',
    );
  });

  it('a long shop name is cut to 30 characters', () => {
    const text = composeMessage({ ...base, shop: 'A'.repeat(50), kind: 'delivered', language: 'en' });
    expect(text.startsWith(`${'A'.repeat(30)}:`)).toBe(true);
  });
});

describe('smsEncoding', () => {
  it('GSM-7: 160 septets in one segment, 153 a part beyond', () => {
    expect(smsEncoding('a'.repeat(160))).toEqual({ encoding: 'gsm7', units: 160, segments: 1 });
    expect(smsEncoding('a'.repeat(161))).toEqual({ encoding: 'gsm7', units: 161, segments: 2 });
    expect(smsEncoding('a'.repeat(306)).segments).toBe(2);
    expect(smsEncoding('a'.repeat(307)).segments).toBe(3);
    expect(smsEncoding('é à ù Ç ñ £ ¥ Δ').encoding).toBe('gsm7');
  });

  it('GSM-7 extension characters count 2 and are never split across parts', () => {
    expect(smsEncoding('€'.repeat(80))).toEqual({ encoding: 'gsm7', units: 160, segments: 1 });
    expect(smsEncoding('€'.repeat(81)).segments).toBe(2);
    // 152 plain septets then a euro: it does not fit the first part's last septet, so it starts the second.
    expect(smsEncoding('a'.repeat(152) + '€' + 'a'.repeat(152)).segments).toBe(3);
    expect(smsEncoding('{}[]~|^\\').units).toBe(16);
  });

  it('UCS-2 when any character is outside GSM-7: 70 in one segment, 67 a part', () => {
    expect(smsEncoding('não')).toEqual({ encoding: 'ucs2', units: 3, segments: 1 });
    expect(smsEncoding('ç' + 'a'.repeat(69)).segments).toBe(1);
    expect(smsEncoding('ç' + 'a'.repeat(70)).segments).toBe(2);
    expect(smsEncoding('ç' + 'a'.repeat(133)).segments).toBe(2);
    expect(smsEncoding('ç' + 'a'.repeat(134)).segments).toBe(3);
    expect(smsEncoding('😀').units).toBe(2);
  });
});

describe('opt-out keyword', () => {
  it('PARAR and STOP, whatever the case, accents, spaces and final punctuation', () => {
    for (const yes of ['PARAR', 'parar', ' Parar ', 'PÁRAR', 'P A R A R', 'stop', 'Stop!', 'STOP.', '\tsTóP\n'])
      expect(isOptOutKeyword(yes), yes).toBe(true);
    for (const no of ['', 'PARA', 'STOPPED', 'não parar', 'ok', 'PARAR AGORA POR FAVOR'])
      expect(isOptOutKeyword(no), no).toBe(false);
  });
});

describe('normalizePhone', () => {
  it('digits with the country code; Angolan numbers without it get 244', () => {
    expect(normalizePhone('+244 923 000 000')).toBe('244923000000');
    expect(normalizePhone('923000000')).toBe('244923000000');
    expect(normalizePhone('0923000000')).toBe('244923000000');
    expect(normalizePhone('00244923000000')).toBe('244923000000');
    expect(normalizePhone('+351 912 345 678')).toBe('351912345678');
    expect(normalizePhone('n/a')).toBeNull();
    expect(normalizePhone(undefined)).toBeNull();
  });
});
