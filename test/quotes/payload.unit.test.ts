// The quote payload's normal form and hash (src/quotes/payload.ts): a quote locks its fee for exactly the origin,
// destination and parcel that produced it, and delivery creation names the part that differs.
import { describe, expect, it } from 'vitest';
import { differingParts, normalisePayload, payloadHash } from '../../src/quotes/payload.js';

describe('the quote payload', () => {
  const origin = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
  const destination = { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' };
  const payload = { origin, destination, parcel: { weight_grams: 2500 } };

  it('the normal form trims strings and drops null, undefined and empty optional parts', () => {
    const messy = {
      origin: { ...origin, city: ' Luanda ', contact: {} },
      destination: {
        province: 'Luanda',
        city: 'Viana',
        address_line: 'Estrada de Catete km 12',
        coordinates: undefined,
      },
      parcel: { weight_grams: 2500, description: null },
    };
    expect(normalisePayload(messy as never)).toEqual(payload);
    expect(payloadHash(messy as never)).toBe(payloadHash(payload));
  });

  it('the hash changes with anything that changes the price', () => {
    expect(payloadHash({ ...payload, parcel: { weight_grams: 2501 } })).not.toBe(payloadHash(payload));
    expect(payloadHash({ ...payload, destination: { ...destination, city: 'Cacuaco' } })).not.toBe(
      payloadHash(payload),
    );
  });

  it('differingParts names the parts that differ, in order', () => {
    expect(differingParts(payload, payload)).toEqual([]);
    expect(differingParts(payload, { ...payload, parcel: { weight_grams: 1 } })).toEqual(['parcel']);
    expect(
      differingParts(payload, { origin: destination, destination: origin, parcel: { weight_grams: 2500 } }),
    ).toEqual(['origin', 'destination']);
    expect(differingParts(payload, { ...payload, origin: { ...origin, city: 'Luanda  ' } })).toEqual([]);
  });
});
