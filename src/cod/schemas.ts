// Cash on delivery's request and answer shapes (design.md "Cash on delivery"; docs/cash-on-delivery.md).
import { z } from 'zod';
import { DateTimeInput, PaginationQuery, Timestamp } from '../http/schemas.js';
import { pageOf } from '../http/schema-builders.js';
import {
  EXAMPLE_COD_BALANCES,
  EXAMPLE_COD_REMITTANCE,
  EXAMPLE_COD_SETTINGS,
  EXAMPLE_FLEET_REMITTANCE,
  EXAMPLE_MERCHANT_REMITTANCE,
} from './examples.js';

const Aoa = z.int().min(0).max(1e14);
const METHODS = ['bank_transfer', 'cash', 'multicaixa_express'] as const;

const FleetItem = z.strictObject({
  tracking_ref: z.string().min(1).max(200).describe("the courier's job reference of a delivered cash-on-delivery job"),
  amount_aoa: Aoa.describe('cash handed over for this delivery (centavos)'),
  fee_deducted_aoa: Aoa.optional().describe(
    "the courier's fee kept out of the cash: at most the delivery's locked fee",
  ),
});

export const FleetRemittanceBody = z
  .strictObject({
    remittance_ref: z
      .string()
      .min(1)
      .max(200)
      .describe("the courier's own reference: a repeat with it answers the same"),
    paid_at: DateTimeInput,
    method: z.enum(METHODS),
    bank_reference: z.string().max(200).nullable().optional(),
    items: z.array(FleetItem).min(1).max(1000),
  })
  .meta({ id: 'FleetRemittance', examples: [EXAMPLE_FLEET_REMITTANCE] });

export const FleetRemittanceAnswer = z
  .object({
    id: z.uuid(),
    remittance_ref: z.string(),
    tenant_id: z.uuid(),
    total_aoa: z.int(),
    status: z.enum(['reported', 'confirmed', 'disputed']),
  })
  .meta({
    id: 'FleetRemittanceReceipt',
    examples: [
      {
        id: EXAMPLE_COD_REMITTANCE.id,
        remittance_ref: 'KX-REM-0042',
        tenant_id: EXAMPLE_COD_REMITTANCE.tenant_id,
        total_aoa: 1400000,
        status: 'reported',
      },
    ],
  });

const MerchantItem = z
  .strictObject({
    tracking_ref: z.string().min(1).max(200).optional(),
    delivery_id: z.uuid().optional(),
    amount_aoa: Aoa,
    fee_deducted_aoa: Aoa.optional(),
  })
  .describe('names the delivery by `tracking_ref` or `delivery_id` (one of them, the same one in every item)');

export const MerchantRemittanceBody = z
  .strictObject({
    company_id: z.uuid(),
    paid_at: DateTimeInput,
    method: z.enum(METHODS),
    bank_reference: z.string().max(200).nullable().optional(),
    items: z.array(MerchantItem).min(1).max(1000),
  })
  .meta({ id: 'CodRemittanceCreate', examples: [EXAMPLE_MERCHANT_REMITTANCE] });

export const DisputeBody = z
  .strictObject({ reason: z.string().min(1).max(1000).describe('what is wrong: missing cash, wrong amount, ...') })
  .meta({ examples: [{ reason: 'Only 12 000 Kz arrived on the account, 14 000 Kz reported.' }] });

export const TestRemitBody = z
  .strictObject({ company_id: z.uuid().describe('the simulated courier company whose outstanding cash is remitted') })
  .meta({ examples: [{ company_id: '8da57b84-642c-4662-bedb-196b0b8a2e88' }] });

export const Remittance = z
  .object({
    id: z.uuid(),
    livemode: z.boolean(),
    tenant_id: z.uuid(),
    remittance_ref: z.string().nullable(),
    company_id: z.uuid(),
    company_name: z.string(),
    source: z.enum(['courier', 'merchant', 'test_helper']),
    status: z.enum(['reported', 'confirmed', 'disputed']),
    method: z.enum(METHODS),
    bank_reference: z.string().nullable(),
    paid_at: Timestamp,
    total_aoa: z.int().describe('cash handed over (the items’ amount_aoa)'),
    fee_deducted_aoa: z.int().describe('fees the courier kept out of the cash'),
    items: z.array(
      z.object({
        delivery_id: z.uuid(),
        tracking_ref: z.string(),
        amount_aoa: z.int(),
        fee_deducted_aoa: z.int(),
      }),
    ),
    dispute_reason: z.string().nullable(),
    created_at: Timestamp,
    confirmed_at: Timestamp.nullable(),
    disputed_at: Timestamp.nullable(),
  })
  .meta({ id: 'CodRemittance', examples: [EXAMPLE_COD_REMITTANCE] });

export const RemittancePage = pageOf(Remittance, EXAMPLE_COD_REMITTANCE);

export const RemittanceListQuery = PaginationQuery.extend({
  company_id: z.uuid().optional(),
  status: z.enum(['reported', 'confirmed', 'disputed']).optional(),
  created_at_gte: DateTimeInput.optional().describe('created on or after (inclusive)'),
  created_at_lt: DateTimeInput.optional().describe('created before (exclusive)'),
});

export const Balances = z
  .object({
    data: z.array(
      z.object({
        company_id: z.uuid(),
        company_name: z.string(),
        collected_aoa: z.int(),
        remitted_aoa: z.int(),
        fee_deducted_aoa: z.int(),
        outstanding_aoa: z.int().describe('collected - remitted - fee_deducted'),
        overdue_aoa: z.int().describe('outstanding cash past its remittance terms'),
        oldest_outstanding_at: Timestamp.nullable(),
      }),
    ),
  })
  .meta({ id: 'CodBalances', examples: [EXAMPLE_COD_BALANCES] });

export const CodSettings = z
  .object({
    default_remittance_terms_hours: z.int(),
    remittance_terms: z.array(z.object({ company_id: z.uuid(), remittance_terms_hours: z.int() })),
  })
  .meta({ id: 'CodSettings', examples: [EXAMPLE_COD_SETTINGS] });

export const CodSettingsChange = z
  .strictObject({
    company_id: z.uuid(),
    remittance_terms_hours: z
      .int()
      .min(1)
      .max(8760)
      .nullable()
      .describe('hours the courier has to hand collected cash over; null: back to the default (48)'),
  })
  .meta({ examples: [{ company_id: '8da57b84-642c-4662-bedb-196b0b8a2e88', remittance_terms_hours: 24 }] });
