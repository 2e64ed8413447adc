// The pure parts of the webhook sender (src/webhooks/sender.ts): reading a receiver's Retry-After, and the
// Standard Webhooks signature header (one signature per secret while a rotation is in progress).
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, signatureHeader } from '../../src/webhooks/sender.js';

describe('webhook sender pieces', () => {
  it('parseRetryAfter: seconds or an HTTP date, capped at 24 h', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(new Date(now + 10_000).toUTCString(), now)).toBe(10_000);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 3600 * 1000);
    expect(parseRetryAfter(new Date(now - 10_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter(['7', '9'], now)).toBe(7000);
    expect(parseRetryAfter(' 2 ', now)).toBe(2000);
  });

  it('signatureHeader: one v1 signature per secret, each verifiable with its own secret, none with another', () => {
    const older = 'whsec_' + Buffer.from('an older secret, 24 bytes').toString('base64');
    const newer = 'whsec_' + Buffer.from('the newer secret 24 bytes').toString('base64');
    const other = 'whsec_' + Buffer.from('someone else, 24 bytes!!').toString('base64');
    const at = new Date();
    const body = JSON.stringify({ type: 'delivery.created', data: { id: 'x' } });
    const header = signatureHeader([newer, older], 'msg_1', at, body);
    const parts = header.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);
    const headers = (signature: string) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    });
    for (const secret of [newer, older]) expect(new Webhook(secret).verify(body, headers(header))).toBeTruthy();
    expect(() => new Webhook(other).verify(body, headers(header))).toThrow();
    // Each part is the signature of its own secret, newest first.
    expect(new Webhook(newer).verify(body, headers(parts[0]))).toBeTruthy();
    expect(() => new Webhook(newer).verify(body, headers(parts[1]))).toThrow();
    // A body changed after signing verifies with no secret.
    expect(() => new Webhook(newer).verify(body + ' ', headers(header))).toThrow();
  });
});
