// What a publishable key lets the browser choose on POST /v1/widget/deliveries: the payment methods (the
// merchant's payment terms) and, for cash on delivery, the amount the courier collects. Set with
// `npm run admin -- key policy`; a key without a policy allows DEFAULT_WIDGET_PAYMENT_METHODS.
import type { Pool } from '../platform/db.js';
import { setWidgetPolicyRow, widgetPolicyRow } from './repository.js';
import { ApiError, type ErrorCode, type FieldErrorCode } from '../http/problem.js';
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

/** Sets the policy of a publishable key. Returns false when there is no such publishable key. */
export async function setWidgetPaymentPolicy(pool: Pool, keyId: string, policy: WidgetPaymentPolicy): Promise<boolean> {
  const unknown = policy.payment_methods.filter((m) => !PAYMENT_METHODS.includes(m));
  if (unknown.length || !policy.payment_methods.length)
    throw new Error(`payment methods are ${PAYMENT_METHODS.join(', ')} (at least one)`);
  if (policy.cod_amount_aoa !== null && (!policy.payment_methods.includes('cod') || !(policy.cod_amount_aoa > 0))) {
    throw new Error('a cod amount goes with the cod payment method and is above zero');
  }
  return setWidgetPolicyRow(pool, keyId, [...new Set(policy.payment_methods)], policy.cod_amount_aoa);
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
