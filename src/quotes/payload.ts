// A quote locks its fee for the exact origin, destination and parcel that produced it.
// Both are stored normalised (validated by the zod schemas, which trim strings; keys sorted;
// absent optional fields dropped) with a SHA-256 hash, and delivery creation compares on that form.
import { canonicalJson, sha256Hex } from '../platform/canonical.js';
import type { Address, Parcel } from '../couriers/schemas.js';
import type { QuoteRequest } from './schemas.js';

/** The normalised form: plain JSON, keys sorted, undefined and null optional fields dropped. */
export function normalisePayload(payload: QuoteRequest): QuoteRequest {
  const clean = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(clean);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined || v === null) continue;
        const cleaned = clean(v);
        if (cleaned && typeof cleaned === 'object' && !Array.isArray(cleaned) && Object.keys(cleaned).length === 0)
          continue;
        out[key] = cleaned;
      }
      return out;
    }
    return typeof value === 'string' ? value.trim() : value;
  };
  return {
    origin: clean(payload.origin) as Address,
    destination: clean(payload.destination) as Address,
    parcel: clean(payload.parcel) as Parcel,
  };
}

export function payloadHash(payload: QuoteRequest): string {
  return sha256Hex(canonicalJson(normalisePayload(payload)));
}

/** The parts of a payload (origin, destination, parcel) whose normalised form differs from the quoted one. */
export function differingParts(quoted: QuoteRequest, sent: QuoteRequest): (keyof QuoteRequest)[] {
  const a = normalisePayload(quoted);
  const b = normalisePayload(sent);
  return (['origin', 'destination', 'parcel'] as const).filter(
    (part) => canonicalJson(a[part]) !== canonicalJson(b[part]),
  );
}
