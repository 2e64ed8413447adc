// The message log's masked phone and the sender id rule (src/notifications/views.ts, schemas.ts).
import { describe, expect, it } from 'vitest';
import { maskPhone } from '../../src/notifications/views.js';
import { NotificationSettingsChange, SENDER_ID_PATTERN } from '../../src/notifications/schemas.js';
import { defaultSenderId, defaultSettings, FALLBACK_SENDER_ID } from '../../src/notifications/settings.js';
import { loadConfig } from '../../src/platform/config.js';

describe('maskPhone', () => {
  it('keeps the country code and the last 3 digits, whatever the country code length', () => {
    expect(maskPhone('244923000123')).toBe('+244 *** *** 123');
    expect(maskPhone('+244 923 000 123')).toBe('+244 *** *** 123');
    expect(maskPhone('351912345678')).toBe('+351 *** *** 678');
    expect(maskPhone('27821234567')).toBe('+27 *** *** 567');
    expect(maskPhone('14155550100')).toBe('+1 *** *** 100');
  });

  it('hides the length of the number and shows nothing of a number too short to hide', () => {
    expect(maskPhone('2449230001234567').length).toBe(maskPhone('244923000123').length);
    expect(maskPhone('24412345')).toBe('*** *** ***');
    expect(maskPhone('')).toBe('*** *** ***');
  });
});

describe('sender id', () => {
  const ok = ['LojaKianda', 'Loja Kianda', 'A', 'ABCDEFGHIJK', '923000111', '244923000111123', '1'];
  const refused = [
    '',
    ' ',
    'ABCDEFGHIJKL',
    ' Loja',
    'Loja ',
    'Ça Loja',
    'Loja-K',
    'Loja_K',
    '2449230001111234',
    'Lója',
  ];
  it.each(ok)('takes %j', (s) => expect(SENDER_ID_PATTERN.test(s)).toBe(true));
  it.each(refused)('refuses %j', (s) => expect(SENDER_ID_PATTERN.test(s)).toBe(false));

  it('the change is strict: an unknown field is refused, null clears the sender', () => {
    expect(NotificationSettingsChange.safeParse({ sms_enabled: true, sender: 'X' }).success).toBe(false);
    expect(NotificationSettingsChange.parse({ sender_id: null })).toEqual({ sender_id: null });
    expect(NotificationSettingsChange.safeParse({ language: 'pt' }).success).toBe(false);
  });
});

describe('defaults', () => {
  it('SMS off in live mode, on in test mode, pt-AO, the service sender', () => {
    expect(defaultSettings(true)).toEqual({ sms_enabled: false, language: 'pt-AO', sender_id: null });
    expect(defaultSettings(false)).toEqual({ sms_enabled: true, language: 'pt-AO', sender_id: null });
    expect(defaultSenderId(loadConfig({}))).toMatch(SENDER_ID_PATTERN);
    expect(defaultSenderId({ ...loadConfig({}), sms: { senderId: '' } } as ReturnType<typeof loadConfig>)).toBe(
      FALLBACK_SENDER_ID,
    );
    expect(defaultSenderId({ ...loadConfig({}), sms: { senderId: 'Kianda' } } as ReturnType<typeof loadConfig>)).toBe(
      'Kianda',
    );
  });
});
