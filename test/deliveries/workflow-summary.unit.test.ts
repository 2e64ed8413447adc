// The static summary and details a delivery's workflow starts with (what the Temporal UI shows of it).
import { describe, expect, it } from 'vitest';
import { workflowStaticDetails, workflowStaticSummary } from '../../src/deliveries/workflow-summary.js';
import type { WorkflowSummaryFacts } from '../../src/deliveries/start-repository.js';

const facts: WorkflowSummaryFacts = {
  delivery_id: '0b7e4b1e-2f1c-4c55-9a55-3d1f0f1a2b3c',
  reference: 'DLV-7K2M9XQ4TP',
  tenant_id: '5d2c9f0a-8e1b-4f6a-b3c2-1a2b3c4d5e6f',
  shop_name: 'Loja Kianda',
  livemode: true,
  courier_name: 'Rápido Express',
  courier_slug: 'rapido',
  origin: { city: 'Luanda', province: 'Luanda' },
  destination: { city: 'Lobito', province: 'Benguela' },
  weight_grams: 1200,
  payment_method: 'cod',
  quoted_fee_aoa: 180_000,
  cash_collect_aoa: 2_500_000,
  return_of: null,
};

describe('workflow static summary and details', () => {
  it('summary: reference, shop and courier on one line; a test delivery says so first', () => {
    expect(workflowStaticSummary(facts)).toBe('DLV-7K2M9XQ4TP · Loja Kianda · Rápido Express');
    expect(workflowStaticSummary({ ...facts, livemode: false })).toBe(
      '[TEST] DLV-7K2M9XQ4TP · Loja Kianda · Rápido Express',
    );
  });

  it('details: tenant, mode, route (cities only), courier, money in kwanzas, the delivery id', () => {
    const details = workflowStaticDetails(facts);
    expect(details.split('\n\n')).toEqual([
      `**Shop** Loja Kianda · tenant \`${facts.tenant_id}\``,
      '**Mode** live',
      '**Route** Luanda → Lobito, Benguela',
      '**Courier** Rápido Express (`rapido`) at start; the CourierSlug search attribute follows a failover',
      '**Fee** 1 800,00 Kz · **payment** cash on delivery, **25 000,00 Kz** to collect · **parcel** 1.2 kg',
      `**Delivery** \`${facts.delivery_id}\` · reference DLV-7K2M9XQ4TP`,
    ]);
    // No street address, recipient name or phone ever reaches Temporal: the facts do not even carry them.
    expect(details).not.toMatch(/Rua|\+244/);
  });

  it('details: a test delivery, a prepaid one and a return to sender', () => {
    const original = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
    const details = workflowStaticDetails({
      ...facts,
      livemode: false,
      payment_method: 'prepaid',
      cash_collect_aoa: null,
      return_of: original,
    });
    expect(details).toContain('**Mode** test');
    expect(details).toContain('**payment** prepaid');
    expect(details).toContain(`**Return to sender** of delivery \`${original}\``);
  });

  it("a merchant's markup stays text, on one line", () => {
    const summary = workflowStaticSummary({ ...facts, shop_name: '**Loja** [x](http://e.vil)\n#1' });
    expect(summary).toBe('DLV-7K2M9XQ4TP · \\*\\*Loja\\*\\* \\[x\\](http://e.vil) \\#1 · Rápido Express');
  });
});
