// The error codes of cash on delivery (docs/cash-on-delivery.md), part of ERROR_CATALOG (./error-catalog.ts).

const REMITTANCE_WRITES = ['reportFleetRemittance', 'createCodRemittance'];

type Code =
  | 'remittance_mixed_tenants'
  | 'remittance_amount_mismatch'
  | 'already_remitted'
  | 'remittance_ref_reused'
  | 'remittance_not_reported';

export const COD_ERRORS: Record<
  Code,
  { status: number; meaning: string; todo: string; example: string; only?: string[] }
> = {
  remittance_mixed_tenants: {
    status: 422,
    meaning: "a remittance's items are deliveries of more than one merchant (or mode)",
    todo: 'send one remittance per merchant',
    example: 'The items of a remittance must all belong to one merchant: send one remittance per merchant.',
    only: ['reportFleetRemittance'],
  },
  remittance_amount_mismatch: {
    status: 422,
    meaning:
      "an item's `amount_aoa + fee_deducted_aoa` is not the cash collected for it, or the fee is above the delivery's locked fee",
    todo: 'send the collected cash of each item (the pointers name them), the fee at most the quoted fee',
    example: 'items/0: amount_aoa + fee_deducted_aoa (1400000) must equal the cash collected (1500000).',
    only: REMITTANCE_WRITES,
  },
  already_remitted: {
    status: 422,
    meaning: 'an item is covered by another remittance already (reported or confirmed)',
    todo: 'leave that item out (the pointers name them); a disputed remittance frees its items',
    example: 'items/0: this delivery is in remittance 1f0c... already.',
    only: REMITTANCE_WRITES,
  },
  remittance_ref_reused: {
    status: 409,
    meaning: 'this `remittance_ref` was reported before with another body',
    todo: 'send the same body again to read the remittance, or use a new `remittance_ref`',
    example: 'remittance_ref KX-REM-0042 was reported with another body.',
    only: ['reportFleetRemittance'],
  },
  remittance_not_reported: {
    status: 409,
    meaning: 'the remittance is not `reported` (it was confirmed or disputed already)',
    todo: 'read the remittance: only a reported one can be confirmed or disputed',
    example: 'The remittance is confirmed: only a reported remittance can be confirmed or disputed.',
    only: ['confirmCodRemittance', 'disputeCodRemittance'],
  },
};
