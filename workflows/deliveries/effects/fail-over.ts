// Automatic failover (docs/deliveries.md), when the tenant's policy asks for it (`input.redispatch`): a failure before
// pickup rebooks with the next company within the fee ceiling (transition `failover`) instead of stalling; when none
// qualifies, or the delivery has moved `maxRedispatches` times, it stalls with what was tried (`failover_exhausted`).
import { allows } from '../../../shared/deliveries/state-table.js';
import type { RedispatchPlan } from '../../../shared/deliveries/definitions.js';
import type { Delivery } from '../delivery.js';
import { apply } from '../transitions.js';
import { planRedispatch } from '../proxies.js';
import { stallPayload } from './stall.js';

/** Fails over for `reason`; false, doing nothing, without the policy or after pickup (the caller goes on). */
export async function failOver(d: Delivery, reason: string, extra: Record<string, unknown> = {}): Promise<boolean> {
  const policy = d.input.redispatch;
  const { state } = d;
  if (!policy || !allows('failover', state.status)) return false;
  const tried = [...state.redispatchedFrom, state.companyId];
  const exhausted = (redispatch: Record<string, unknown>) =>
    apply(d, 'failover_exhausted', { payload: stallPayload(d, reason, { ...extra, redispatch }) });
  if (state.redispatchedFrom.length >= policy.maxRedispatches) {
    await exhausted({ outcome: 'max_redispatches_reached', tried_company_ids: tried });
    return true;
  }
  let plan: RedispatchPlan;
  try {
    plan = await planRedispatch({
      deliveryId: d.input.deliveryId,
      tenantId: d.input.tenantId,
      excludeCompanyIds: tried,
      maxFeeIncreaseAoa: policy.maxFeeIncreaseAoa,
      preferredCompanyIds: policy.preferredCompanyIds,
    });
  } catch {
    await exhausted({ outcome: 'planning_failed', tried_company_ids: tried });
    return true;
  }
  if (plan.companyId === null) {
    await exhausted({ outcome: 'no_company_qualifies', tried_company_ids: tried, candidates: plan.candidates });
    return true;
  }
  const payload = {
    ...extra,
    reason,
    automatic: true,
    from_company_id: state.companyId,
    to_company_id: plan.companyId,
    old_fee_aoa: plan.oldFeeAoa,
    new_fee_aoa: plan.feeAoa,
  };
  await apply(d, 'failover', {
    payload,
    company: { companyId: plan.companyId, slug: plan.slug },
    extra: { companyId: plan.companyId, trackingRef: null, quotedFeeAoa: plan.feeAoa },
  });
  return true;
}
