// The OpenAPI examples of cash on delivery (docs/cash-on-delivery.md's worked example, in centavos).

export const EXAMPLE_FLEET_REMITTANCE = {
  remittance_ref: 'KX-REM-0042',
  paid_at: '2026-11-24T17:30:00.000Z',
  method: 'bank_transfer',
  bank_reference: 'BAI-TRF-77812',
  items: [{ tracking_ref: 'KX-20261123-0042', amount_aoa: 1400000, fee_deducted_aoa: 100000 }],
};

export const EXAMPLE_MERCHANT_REMITTANCE = {
  company_id: 'c0a8012e-7b1f-4c2d-9e3f-5a6b7c8d9e0f',
  paid_at: '2026-11-24T17:30:00.000Z',
  method: 'cash',
  items: [{ tracking_ref: 'KX-20261123-0042', amount_aoa: 1500000 }],
};

export const EXAMPLE_COD_REMITTANCE = {
  id: '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
  livemode: true,
  tenant_id: '0f1e2d3c-4b5a-4697-8877-665544332211',
  remittance_ref: 'KX-REM-0042',
  company_id: 'c0a8012e-7b1f-4c2d-9e3f-5a6b7c8d9e0f',
  company_name: 'Kianda Express',
  source: 'courier',
  status: 'reported',
  method: 'bank_transfer',
  bank_reference: 'BAI-TRF-77812',
  paid_at: '2026-11-24T17:30:00.000Z',
  total_aoa: 1400000,
  fee_deducted_aoa: 100000,
  items: [
    {
      delivery_id: '7d9f8e6a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
      tracking_ref: 'KX-20261123-0042',
      amount_aoa: 1400000,
      fee_deducted_aoa: 100000,
    },
  ],
  dispute_reason: null,
  created_at: '2026-11-24T17:31:02.000Z',
  confirmed_at: null,
  disputed_at: null,
};

export const EXAMPLE_COD_BALANCES = {
  data: [
    {
      company_id: 'c0a8012e-7b1f-4c2d-9e3f-5a6b7c8d9e0f',
      company_name: 'Kianda Express',
      collected_aoa: 4500000,
      remitted_aoa: 1400000,
      fee_deducted_aoa: 100000,
      outstanding_aoa: 3000000,
      overdue_aoa: 1200000,
      oldest_outstanding_at: '2026-11-21T15:02:00.000Z',
    },
  ],
};

export const EXAMPLE_COD_SETTINGS = {
  default_remittance_terms_hours: 48,
  remittance_terms: [{ company_id: 'c0a8012e-7b1f-4c2d-9e3f-5a6b7c8d9e0f', remittance_terms_hours: 24 }],
};
