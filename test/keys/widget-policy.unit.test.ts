// A publishable key's widget payment policy (src/keys/widget-policy.ts): which payment methods a widget delivery may
// use and how much cash the courier collects on cod.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/problem.js';
import { applyWidgetPaymentPolicy, DEFAULT_WIDGET_PAYMENT_METHODS } from '../../src/keys/widget-policy.js';

describe('the widget payment policy', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      const e = err as ApiError;
      return `${e.statusCode} ${e.code} ${e.errors?.map((f) => `${f.pointer} ${f.code}`).join(',')}`;
    }
    return 'accepted';
  };
  const byDefault = { payment_methods: [...DEFAULT_WIDGET_PAYMENT_METHODS], cod_amount_aoa: null };

  it('cod is opt-in: a key without a policy allows prepaid and bank_transfer only', () => {
    expect(DEFAULT_WIDGET_PAYMENT_METHODS).toEqual(['prepaid', 'bank_transfer']);
    expect(applyWidgetPaymentPolicy(byDefault, 'prepaid', undefined)).toBeNull();
    expect(refusal(() => applyWidgetPaymentPolicy(byDefault, 'cod', 500))).toBe(
      '422 payment_method_not_allowed /payment_method payment_method_not_allowed',
    );
  });

  it('cod with a set amount collects that amount; the body may repeat it, not change it', () => {
    const policy = { payment_methods: ['cod' as const], cod_amount_aoa: 700_000 };
    expect(applyWidgetPaymentPolicy(policy, 'cod', undefined)).toBe(700_000);
    expect(applyWidgetPaymentPolicy(policy, 'cod', 700_000)).toBe(700_000);
    expect(refusal(() => applyWidgetPaymentPolicy(policy, 'cod', 1))).toBe(
      '422 validation_failed /cash_collect_aoa cash_collect_aoa_mismatch',
    );
  });

  it('cod without a set amount takes the body’s, which must be above zero', () => {
    const policy = { payment_methods: ['cod' as const, 'prepaid' as const], cod_amount_aoa: null };
    expect(applyWidgetPaymentPolicy(policy, 'cod', 250)).toBe(250);
    expect(refusal(() => applyWidgetPaymentPolicy(policy, 'cod', undefined))).toBe(
      '422 validation_failed /cash_collect_aoa required',
    );
    expect(refusal(() => applyWidgetPaymentPolicy(policy, 'cod', 0))).toBe(
      '422 validation_failed /cash_collect_aoa too_small',
    );
    expect(applyWidgetPaymentPolicy(policy, 'prepaid', null)).toBeNull();
  });
});
