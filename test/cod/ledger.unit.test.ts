// The ledger's bookings as pure data (src/cod/ledger.ts): every business event's entries balance and move only
// positive amounts, and the balances' figures keep collected = remitted + fee_deducted + outstanding.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  balanced,
  collectionEntries,
  confirmationEntries,
  disputeEntries,
  feeDeductionEntries,
  figuresOf,
  remittanceEntries,
  type Account,
  type Entry,
} from '../../src/cod/ledger.js';

const item = fc.record({
  deliveryId: fc.uuid(),
  amountAoa: fc.integer({ min: 0, max: 1e12 }),
  feeDeductedAoa: fc.integer({ min: 0, max: 1e9 }),
});

/** Net debits per account of some entries. */
function nets(entries: Entry[]): Partial<Record<Account, number>> {
  const out: Partial<Record<Account, number>> = {};
  for (const e of entries)
    out[e.account] = (out[e.account] ?? 0) + (e.direction === 'debit' ? e.amountAoa : -e.amountAoa);
  return out;
}

describe('the ledger bookings', () => {
  it('every booking balances (or moves nothing), with positive amounts', () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), fc.boolean(), (items, confirmed) => {
        for (const entries of [
          collectionEntries(items[0].deliveryId, items[0].amountAoa),
          remittanceEntries(items, confirmed),
          feeDeductionEntries(items),
          confirmationEntries(items),
          disputeEntries(items),
        ]) {
          if (entries.length > 0) expect(balanced(entries)).toBe(true);
          for (const e of entries) expect(e.amountAoa).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('collected = remitted + fee_deducted + outstanding through collection, remittance, confirmation or dispute', () => {
    fc.assert(
      fc.property(item, fc.constantFrom('reported', 'confirmed', 'disputed', 'merchant'), (i, end) => {
        const collected = i.amountAoa + i.feeDeductedAoa;
        const entries = [...collectionEntries(i.deliveryId, collected)];
        entries.push(...remittanceEntries([i], end === 'merchant'), ...feeDeductionEntries([i]));
        if (end === 'confirmed') entries.push(...confirmationEntries([i]));
        if (end === 'disputed') entries.push(...disputeEntries([i]));
        const f = figuresOf(nets(entries));
        expect(f.collected).toBe(collected);
        expect(f.collected).toBe(f.remitted + f.feeDeducted + f.outstanding);
        expect(f.outstanding).toBe(end === 'disputed' ? collected : 0);
      }),
    );
  });

  it('refuses what does not balance', () => {
    expect(balanced([{ deliveryId: 'd', account: 'courier_cash_held', direction: 'debit', amountAoa: 5 }])).toBe(false);
    expect(
      balanced([
        { deliveryId: 'd', account: 'courier_cash_held', direction: 'debit', amountAoa: 5 },
        { deliveryId: 'd', account: 'customer_payments', direction: 'credit', amountAoa: 4 },
      ]),
    ).toBe(false);
  });
});
