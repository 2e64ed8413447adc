// The pure rules around the delivery vocabulary that are not the state table (the workflow helper's table test covers
// the transitions): the first status of each payment method, what the test helpers may act on, and which of a
// courier's payload fields a fleet event keeps (shared/deliveries/courier-payload.ts).
import { describe, expect, it } from 'vitest';
import { COURIER_PAYLOAD_FIELDS, pickCourierPayload } from '../../shared/deliveries/courier-payload.js';
import { testHelperRefusal } from '../../shared/deliveries/state-table.js';
import { initialStatusFor, isFinal, STATUSES } from '../../shared/deliveries/vocabulary.js';

describe('delivery vocabulary rules', () => {
  it('bank_transfer waits for payment; prepaid and cod go straight to dispatch', () => {
    expect(initialStatusFor('bank_transfer')).toBe('awaiting_payment');
    expect(initialStatusFor('prepaid')).toBe('pending');
    expect(initialStatusFor('cod')).toBe('pending');
  });

  it('test helpers: stall only what can stall, expire the payment window only while awaiting payment', () => {
    const stallable = STATUSES.filter((s) => testHelperRefusal(s, 'stall') === null);
    expect(stallable).toEqual(['pending', 'assigned', 'pickup_ready', 'in_transit', 'out_for_delivery']);
    expect(testHelperRefusal('delivered', 'stall')).toMatch(/^A delivery in status delivered cannot stall/);
    const expirable = STATUSES.filter((s) => testHelperRefusal(s, 'expire_payment_window') === null);
    expect(expirable).toEqual(['awaiting_payment']);
    expect(testHelperRefusal('pending', 'expire_payment_window')).toMatch(/not awaiting_payment/);
    expect(STATUSES.filter(isFinal)).toEqual(['delivered', 'cancelled', 'failed']);
  });
});

describe('pickCourierPayload', () => {
  it("keeps the allow-listed courier fields only: the service's own fields cannot be forged", () => {
    const payload = {
      driver_name: 'João',
      eta: '2030-01-01T12:00:00Z',
      ignored: true,
      reason: 'traffic',
      status: 'delivered',
      pin_verified: true,
      pin: '1234',
      note: null,
      vehicle: undefined,
    };
    expect(pickCourierPayload(payload)).toEqual({
      driver_name: 'João',
      eta: '2030-01-01T12:00:00Z',
      reason: 'traffic',
    });
    expect(pickCourierPayload(null)).toEqual({});
    expect(pickCourierPayload(undefined)).toEqual({});
    expect(COURIER_PAYLOAD_FIELDS).not.toContain('pin');
  });

  it('own fields only, not inherited ones', () => {
    const inherited = Object.create({ driver_name: 'from the prototype' }) as Record<string, unknown>;
    expect(pickCourierPayload(inherited)).toEqual({});
  });
});
