// The outbox's retry schedule (src/notifications/outbox.ts): exponential from the first wait, capped, with jitter.
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../src/notifications/outbox.js';

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
