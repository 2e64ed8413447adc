// The cash-on-delivery ledger's bookings as pure data (docs/cash-on-delivery.md "The ledger"): which accounts each
// business event debits and credits. The repository writes them; the database checks every transaction balances.
//
// Accounts, per (tenant, mode, courier company), each entry naming its delivery:
//   customer_payments       credit-normal: cash the recipients paid at the door (collected)
//   courier_cash_held       debit-normal:  cash the courier holds for the merchant (outstanding)
//   remittances_in_transit  debit-normal:  cash the courier reports handed over, not yet confirmed by the merchant
//   merchant_cash           debit-normal:  cash the merchant confirmed (or recorded itself)
//   courier_fees            debit-normal:  the courier's fee, kept out of the cash (fee_deducted)
// so that collected = (in transit + merchant cash) + fees + held, i.e. collected = remitted + fee_deducted + outstanding.

export const ACCOUNTS = [
  'customer_payments',
  'courier_cash_held',
  'remittances_in_transit',
  'merchant_cash',
  'courier_fees',
] as const;
export type Account = (typeof ACCOUNTS)[number];

export type JournalKind = 'collection' | 'remittance' | 'fee_deduction' | 'confirmation' | 'dispute' | 'correction';

export interface Entry {
  deliveryId: string;
  account: Account;
  direction: 'debit' | 'credit';
  amountAoa: number;
}

/** One remittance line: the delivery, the cash handed over and the fee the courier kept. */
export interface RemittedItem {
  deliveryId: string;
  amountAoa: number;
  feeDeductedAoa: number;
}

/** A debit and its credit of `amount` (none when the amount is 0: an entry moves money). */
function move(deliveryId: string, debit: Account, credit: Account, amountAoa: number): Entry[] {
  if (amountAoa <= 0) return [];
  return [
    { deliveryId, account: debit, direction: 'debit', amountAoa },
    { deliveryId, account: credit, direction: 'credit', amountAoa },
  ];
}

/** Collection at the door: the courier now holds the cash for the merchant. */
export const collectionEntries = (deliveryId: string, collectedAoa: number): Entry[] =>
  move(deliveryId, 'courier_cash_held', 'customer_payments', collectedAoa);

/** The cash handed over: in transit until the merchant confirms (a courier's report), or the merchant's at once. */
export const remittanceEntries = (items: RemittedItem[], confirmed: boolean): Entry[] =>
  items.flatMap((i) =>
    move(i.deliveryId, confirmed ? 'merchant_cash' : 'remittances_in_transit', 'courier_cash_held', i.amountAoa),
  );

/** The courier's fee, kept out of the cash it holds. */
export const feeDeductionEntries = (items: RemittedItem[]): Entry[] =>
  items.flatMap((i) => move(i.deliveryId, 'courier_fees', 'courier_cash_held', i.feeDeductedAoa));

/** The merchant confirms the reported cash arrived. */
export const confirmationEntries = (items: RemittedItem[]): Entry[] =>
  items.flatMap((i) => move(i.deliveryId, 'merchant_cash', 'remittances_in_transit', i.amountAoa));

/**
 * The merchant disputes a report: the reported cash and the fee the courier kept go back to what the courier holds
 * (outstanding again, remittable anew).
 */
export const disputeEntries = (items: RemittedItem[]): Entry[] =>
  items.flatMap((i) => [
    ...move(i.deliveryId, 'courier_cash_held', 'remittances_in_transit', i.amountAoa),
    ...move(i.deliveryId, 'courier_cash_held', 'courier_fees', i.feeDeductedAoa),
  ]);

/** Whether entries balance (debits = credits) and move money: what the database's constraint checks at commit. */
export function balanced(entries: Entry[]): boolean {
  let net = 0;
  for (const e of entries) net += e.direction === 'debit' ? e.amountAoa : -e.amountAoa;
  return entries.length >= 2 && net === 0;
}

/** An account's sums as the balances read them. */
export interface AccountSums {
  collected: number;
  remitted: number;
  feeDeducted: number;
  outstanding: number;
}

/** The figures of the balances from per-account net debits (debit - credit). */
export function figuresOf(netDebits: Partial<Record<Account, number>>): AccountSums {
  const n = (a: Account) => netDebits[a] ?? 0;
  return {
    collected: -n('customer_payments'),
    remitted: n('remittances_in_transit') + n('merchant_cash'),
    feeDeducted: n('courier_fees'),
    outstanding: n('courier_cash_held'),
  };
}
