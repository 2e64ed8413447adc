// The `recover` update: a merchant's recovery of a stalled delivery (POST /v1/deliveries/{id}/recover). The same
// transitions as an operator's action (the table's `operator.*` rows, handlers/operator.ts), recorded with source
// `api`; unlike an operator's signal, a refusal is the update's failure (the API answers 409 or 422), never an event.
// The validator refuses what the status of the moment does not allow, so a refused request leaves no history.
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { RecoveryRejected, recoverUpdate, type RecoverRequest } from '../../../shared/deliveries/definitions.js';
import { recoveryRefusal } from '../../../shared/deliveries/recovery.js';
import type { Trigger } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import type { Message } from '../effects/message.js';
import { planRedispatch, regular } from '../proxies.js';
import { apply } from '../transitions.js';
import { accepted } from './accepted.js';

const reject = (code: string, detail: string) => ApplicationFailure.nonRetryable(detail, RecoveryRejected, { code });

/** What a redispatch books: the company asked for, or the next one within the fee ceiling (failover's rule). */
async function redispatchMessage(d: Delivery, request: RecoverRequest, payload: Record<string, unknown>) {
  const { state } = d;
  const asked = request.company_id;
  if (asked === state.companyId) {
    // The same company keeps its job booked, as an operator's redispatch to it.
    return {
      payload: { ...payload, company_id: asked },
      keepBooking: true,
      extra: { companyId: asked, trackingRef: null },
    };
  }
  if (asked) {
    const company = await regular.findRedispatchCompany({ tenantId: d.input.tenantId, companyId: asked });
    if (!company) throw reject('company_not_linked', 'The company is not an active company linked to this account.');
    return { payload: { ...payload, company_id: asked }, company, extra: { companyId: asked, trackingRef: null } };
  }
  const plan = await planRedispatch({
    deliveryId: d.input.deliveryId,
    tenantId: d.input.tenantId,
    excludeCompanyIds: [...state.redispatchedFrom, state.companyId],
    maxFeeIncreaseAoa: request.maxFeeIncreaseAoa ?? 0,
    preferredCompanyIds: request.preferredCompanyIds ?? [],
  });
  if (plan.companyId === null)
    throw reject(
      'no_company_available',
      'No other company quotes this delivery within its fee ceiling (the locked fee plus max_fee_increase_aoa).',
    );
  return {
    payload: {
      ...payload,
      company_id: plan.companyId,
      from_company_id: state.companyId,
      old_fee_aoa: plan.oldFeeAoa,
      new_fee_aoa: plan.feeAoa,
    },
    company: { companyId: plan.companyId, slug: plan.slug },
    extra: { companyId: plan.companyId, trackingRef: null, quotedFeeAoa: plan.feeAoa },
  };
}

/** The action's message to its transition. */
async function messageOf(d: Delivery, request: RecoverRequest): Promise<Message> {
  const payload = { action: request.action, note: request.note ?? null };
  switch (request.action) {
    case 'redispatch':
      return { ...(await redispatchMessage(d, request, payload)), source: 'api' };
    case 'resume':
      return { payload: { ...payload, status: d.state.previousStatus }, source: 'api' };
    case 'mark_failed':
      return { payload: { ...payload, reason: request.reason ?? 'merchant_request' }, source: 'api' };
    case 'cancel':
      return { payload: { ...payload, reason: 'merchant_request' }, source: 'api' };
  }
}

export function setRecoverHandler(d: Delivery): void {
  const refusal = (request: RecoverRequest) => recoveryRefusal(d.state.status, d.state.previousStatus, request.action);
  setHandler(
    recoverUpdate,
    async (request) => {
      await accepted();
      return d.lock.runExclusive(async () => {
        const refused = refusal(request);
        if (refused) throw reject(refused.code, refused.detail);
        await apply(d, `operator.${request.action}` as Trigger, await messageOf(d, request));
        return { status: d.state.status };
      });
    },
    {
      validator: (request: RecoverRequest) => {
        const refused = refusal(request);
        if (refused) throw new Error(refused.detail);
      },
    },
  );
}
