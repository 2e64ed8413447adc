// The outbox's retry schedule (src/notifications/outbox.ts): exponential from the first wait, capped, with jitter.
import { describe, expect, it } from 'vitest';
import { isBackPressure, retryDelayMs } from '../../src/notifications/outbox.js';

describe('retryDelayMs', () => {
  it('doubles from the first wait up to the cap; the jitter keeps half to all of it', () => {
    const none = () => 0;
    const full = () => 1;
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 2000, 600_000, full))).toEqual([2000, 4000, 8000, 16_000]);
    expect(retryDelayMs(1, 2000, 600_000, none)).toBe(1000);
    expect(retryDelayMs(20, 2000, 600_000, full)).toBe(600_000);
    expect(retryDelayMs(20, 2000, 600_000, none)).toBe(300_000);
    for (let i = 0; i < 50; i++) {
      const d = retryDelayMs(3, 2000, 600_000);
      expect(d).toBeGreaterThanOrEqual(4000);
      expect(d).toBeLessThanOrEqual(8000);
    }
  });
});

describe('isBackPressure', () => {
  it('is the SMSC throttling or the transport queue full, never a refusal or a lost connection', () => {
    expect(isBackPressure('ESME_RTHROTTLED')).toBe(true);
    expect(isBackPressure('QUEUE_FULL')).toBe(true);
    for (const code of ['ESME_RSYSERR', 'CONNECTION_LOST', 'SMSC_UNAVAILABLE', 'ESME_RINVDSTADR']) {
      expect(isBackPressure(code)).toBe(false);
    }
  });
});
