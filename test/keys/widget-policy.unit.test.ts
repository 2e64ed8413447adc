// A publishable key's widget payment policy (src/keys/widget-policy.ts): which payment methods a widget delivery may
// use and how much cash the courier collects on cod.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/problem.js';
import {
  applyWidgetPaymentPolicy,
  DEFAULT_WIDGET_PAYMENT_METHODS,
  normaliseWidgetPolicy,
  widgetPolicyErrors,
} from '../../src/keys/widget-policy.js';

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

describe('checking a widget payment policy before storing it (PATCH /v1/api_keys/{id}, admin key policy)', () => {
  const errors = (payment_methods: string[], cod_amount_aoa: number | null) =>
    widgetPolicyErrors({ payment_methods, cod_amount_aoa }).map((e) => `${e.pointer} ${e.code}`);

  it('accepts known methods, with a cod amount above zero only alongside cod', () => {
    expect(errors(['prepaid'], null)).toEqual([]);
    expect(errors(['prepaid', 'bank_transfer', 'cod'], null)).toEqual([]);
    expect(errors(['cod'], 1_500_000)).toEqual([]);
  });

  it('names each wrong field at its pointer', () => {
    expect(errors([], null)).toEqual(['/widget_payment_methods too_small']);
    expect(errors(['prepaid', 'cheque'], null)).toEqual(['/widget_payment_methods/1 invalid_enum']);
    expect(errors(['prepaid'], 500)).toEqual(['/widget_cod_amount_aoa not_allowed']);
    expect(errors(['cod'], 0)).toEqual(['/widget_cod_amount_aoa too_small']);
    expect(errors(['cod'], -5)).toEqual(['/widget_cod_amount_aoa too_small']);
    expect(errors(['cod'], 1.5)).toEqual(['/widget_cod_amount_aoa too_small']);
    expect(errors([], 10)).toEqual(['/widget_payment_methods too_small', '/widget_cod_amount_aoa not_allowed']);
  });

  it('stores each method once, in a fixed order', () => {
    expect(normaliseWidgetPolicy({ payment_methods: ['cod', 'prepaid', 'cod'], cod_amount_aoa: 100 })).toEqual({
      payment_methods: ['prepaid', 'cod'],
      cod_amount_aoa: 100,
    });
  });
});
