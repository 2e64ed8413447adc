// Canonical JSON (src/platform/canonical.ts): equal values give equal text whatever the key order, which the quote
// payload hash and the Idempotency-Key body comparison rely on.
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/platform/canonical.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('keeps null, dates as JSON dates, scalars as they are', () => {
    expect(canonicalJson({ a: null })).toBe('{"a":null}');
    expect(canonicalJson({ at: new Date('2030-01-01T00:00:00Z') })).toBe('{"at":"2030-01-01T00:00:00.000Z"}');
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(5)).toBe('5');
  });

  it('sha256Hex: 64 lower-case hex characters of the text', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
