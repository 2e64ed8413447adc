// What a publishable key lets the browser choose on POST /v1/widget/deliveries: the payment methods (the
// merchant's payment terms) and, for cash on delivery, the amount the courier collects. Set from the dashboard or
// PATCH /v1/api_keys/{id} (src/keys/routes.ts) and with `npm run admin -- key policy`; a key without a policy allows
// DEFAULT_WIDGET_PAYMENT_METHODS.
import type { Pool } from '../platform/db.js';
import { setWidgetPolicyRow, widgetPolicyRow } from './repository.js';
import { ApiError, type ErrorCode, type FieldError, type FieldErrorCode } from '../http/problem.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../../shared/deliveries/vocabulary.js';

/** cod is opt-in: with it, whoever controls the browser would otherwise choose how much cash the courier collects. */
export const DEFAULT_WIDGET_PAYMENT_METHODS: readonly PaymentMethod[] = ['prepaid', 'bank_transfer'];

export interface WidgetPaymentPolicy {
  payment_methods: PaymentMethod[];
  /** AOA centavos the courier collects on the key's cod deliveries; null: the widget sends the amount (> 0). */
  cod_amount_aoa: number | null;
}

/** The policy of a publishable key (the default when none was set). */
export async function widgetPaymentPolicy(pool: Pool, keyId: string): Promise<WidgetPaymentPolicy> {
  const row = await widgetPolicyRow(pool, keyId);
  return {
    payment_methods: row?.widget_payment_methods ?? [...DEFAULT_WIDGET_PAYMENT_METHODS],
    cod_amount_aoa: row?.widget_cod_amount_aoa == null ? null : Number(row.widget_cod_amount_aoa),
  };
}

/**
 * What is wrong with a policy, one field error each (pointers as in PATCH /v1/api_keys/{id}: /widget_payment_methods,
 * /widget_cod_amount_aoa); empty when it can be stored. Payment methods: at least one, each a known one. The cod
 * amount: null, or whole centavos above zero and only with the cod method (it is what the courier collects).
 */
export function widgetPolicyErrors(policy: { payment_methods: readonly string[]; cod_amount_aoa: number | null }) {
  const errors: FieldError[] = [];
  if (!policy.payment_methods.length) {
    errors.push({
      pointer: '/widget_payment_methods',
      code: 'too_small',
      detail: `At least one payment method (${PAYMENT_METHODS.join(', ')}).`,
    });
  }
  policy.payment_methods.forEach((m, i) => {
    if (!(PAYMENT_METHODS as readonly string[]).includes(m))
      errors.push({
        pointer: `/widget_payment_methods/${i}`,
        code: 'invalid_enum',
        detail: `"${m}" is not a payment method (${PAYMENT_METHODS.join(', ')}).`,
      });
  });
  const amount = policy.cod_amount_aoa;
  if (amount !== null) {
    if (!Number.isSafeInteger(amount) || amount <= 0) {
      errors.push({
        pointer: '/widget_cod_amount_aoa',
        code: 'too_small',
        detail: 'The cod amount is whole AOA centavos above zero (null: the widget sends the amount).',
      });
    } else if (!policy.payment_methods.includes('cod')) {
      errors.push({
        pointer: '/widget_cod_amount_aoa',
        code: 'not_allowed',
        detail: 'A cod amount goes with the cod payment method: add cod to widget_payment_methods or send null.',
      });
    }
  }
  return errors;
}

/** The policy as stored: each method once, in the order of PAYMENT_METHODS. Check it with widgetPolicyErrors first. */
export function normaliseWidgetPolicy(policy: WidgetPaymentPolicy): WidgetPaymentPolicy {
  return {
    payment_methods: PAYMENT_METHODS.filter((m) => policy.payment_methods.includes(m)),
    cod_amount_aoa: policy.cod_amount_aoa,
  };
}

/**
 * Sets the policy of a publishable key (the admin command line). Returns false when there is no such publishable key;
 * a policy widgetPolicyErrors refuses is 422 validation_failed.
 */
export async function setWidgetPaymentPolicy(pool: Pool, keyId: string, policy: WidgetPaymentPolicy): Promise<boolean> {
  const errors = widgetPolicyErrors(policy);
  if (errors.length) throw new ApiError(422, 'validation_failed', errors.map((e) => e.detail).join(' '), errors);
  const stored = normaliseWidgetPolicy(policy);
  return setWidgetPolicyRow(pool, keyId, stored.payment_methods, stored.cod_amount_aoa);
}

const refuse = (code: ErrorCode, pointer: string, fieldCode: FieldErrorCode, detail: string) =>
  new ApiError(422, code, detail, [{ pointer, code: fieldCode, detail }]);

/**
 * Checks a widget delivery's payment terms against its key's policy and returns the cash amount to store:
 * a method the key does not allow is 422 payment_method_not_allowed (pointer /payment_method); cod collects the
 * key's configured amount (the body may repeat it or leave it out) or else the body's amount, which must be > 0.
 */
export function applyWidgetPaymentPolicy(
  policy: WidgetPaymentPolicy,
  method: PaymentMethod,
  cashCollect: number | null | undefined,
): number | null {
  if (!policy.payment_methods.includes(method)) {
    throw refuse(
      'payment_method_not_allowed',
      '/payment_method',
      'payment_method_not_allowed',
      `payment_method ${method} is not allowed for this publishable key (allowed: ${policy.payment_methods.join(', ')}).`,
    );
  }
  if (method !== 'cod') return null;
  if (policy.cod_amount_aoa !== null) {
    if (cashCollect != null && cashCollect !== policy.cod_amount_aoa) {
      throw refuse(
        'validation_failed',
        '/cash_collect_aoa',
        'cash_collect_aoa_mismatch',
        'cash_collect_aoa differs from the amount the merchant set for this publishable key: leave it out.',
      );
    }
    return policy.cod_amount_aoa;
  }
  if (cashCollect == null || cashCollect <= 0) {
    throw refuse(
      'validation_failed',
      '/cash_collect_aoa',
      cashCollect == null ? 'required' : 'too_small',
      'cash_collect_aoa is required with payment_method cod and must be above zero.',
    );
  }
  return cashCollect;
}
