// A merchant recovers its own stalled delivery (design.md "Merchants recover their own stalled deliveries",
// docs/deliveries.md "Recovering a stalled delivery"): POST /v1/deliveries/{id}/recover takes the operator's actions
// (the state table's `operator.*` rows) through the delivery workflow's `recover` update, recorded with source `api`.
// Checked here first against the delivery as stored (shared/deliveries/recovery.ts), and again by the workflow
// against the status of the moment.
import {
  ApplicationFailure,
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { AppDeps } from '../platform/deps.js';
import type { Scope } from '../platform/scope.js';
import { ApiError } from '../http/problem.js';
import { canBook } from '../couriers/service.js';
import { dispatchPolicyOf } from '../tenants/repository.js';
import { RecoveryRejected, recoverUpdate } from '../../shared/deliveries/definitions.js';
import { recoveryRefusal } from '../../shared/deliveries/recovery.js';
import type { OperatorActionName } from '../../shared/deliveries/vocabulary.js';
import { loadDeliveryWithEvents } from './load.js';
import { recoveryOf } from './views.js';
import { rejectedByHandler, updateDeliveryWorkflow } from './catch-up.js';

/**
 * How long the route waits for the workflow. A redispatch to the next company quotes the tenant's companies again
 * (each bounded by its timeout); past this, 503 recovery_pending: the action may still take effect.
 */
const RECOVER_WAIT_MS = 30_000;

export interface RecoverInput {
  action: OperatorActionName;
  company_id?: string;
  reason?: string;
}

/** The 409/422 of a refusal code (the workflow's, or the API's own check). */
function refused(code: string, detail: string): ApiError {
  switch (code) {
    case 'recovery_not_allowed':
      return new ApiError(409, 'recovery_not_allowed', detail);
    case 'no_company_available':
      return new ApiError(409, 'no_company_available', detail);
    case 'company_not_linked':
      return companyNotLinked();
    default:
      return new ApiError(409, 'delivery_not_stalled', detail);
  }
}

const companyNotLinked = () => {
  const detail = 'company_id is not an active courier company linked to this account (in this mode).';
  return new ApiError(422, 'company_not_linked', detail, [
    { pointer: '/company_id', code: 'company_not_linked', detail },
  ]);
};

/** Checks the action against the delivery as stored; throws its 404, 409 or 422. */
async function check(deps: AppDeps, scope: Scope, id: string, input: RecoverInput) {
  const { delivery, events } = await loadDeliveryWithEvents(deps.pool, scope, id);
  const refusal = recoveryRefusal(delivery.status, recoveryOf(delivery, events)?.previous_status ?? null, input.action);
  if (refusal) throw refused(refusal.code, refusal.detail);
  const other = input.company_id && input.company_id !== delivery.company_id;
  if (other && !(await canBook(deps.pool, scope.tenantId, input.company_id!, scope.livemode))) throw companyNotLinked();
  return delivery;
}

const pending = () =>
  new ApiError(
    503,
    'recovery_pending',
    'The recovery could not be confirmed in time and may still take effect. Read the delivery in a moment before retrying.',
    undefined,
    { 'retry-after': '5' },
  );

/** Takes the action; throws the problem the API answers when it is refused or not confirmed in time. */
export async function recoverDelivery(deps: AppDeps, scope: Scope, id: string, input: RecoverInput): Promise<void> {
  const { pool } = deps;
  const delivery = await check(deps, scope, id, input);
  // Without a company, the next one within the fee ceiling of the tenant's dispatch policy (failover's rule).
  const policy =
    input.action === 'redispatch' && !input.company_id
      ? await dispatchPolicyOf(pool, scope.tenantId, scope.livemode)
      : null;
  const request = {
    ...input,
    ...(policy
      ? { maxFeeIncreaseAoa: policy.max_fee_increase_aoa, preferredCompanyIds: policy.preferred_company_ids }
      : {}),
  };
  try {
    await updateDeliveryWorkflow(deps, delivery, recoverUpdate, request, {
      deadline: Date.now() + RECOVER_WAIT_MS,
      handlerRejection: RecoveryRejected,
      // When the row refuses it too, the delivery moved on since it was read: check throws that 409.
      rowAllows: async () => Boolean(await check(deps, scope, id, input)),
      late: pending,
    });
  } catch (err) {
    if (rejectedByHandler(err, RecoveryRejected)) {
      const cause = err.cause as ApplicationFailure;
      const code = (cause.details?.[0] as { code?: string } | undefined)?.code ?? 'delivery_not_stalled';
      throw refused(code, cause.message);
    }
    // The validator's refusal that the row confirmed (check throws its own answer first): a safety net, never a 500.
    if (err instanceof WorkflowUpdateFailedError)
      throw refused('delivery_not_stalled', 'The delivery moved on while the recovery was on its way.');
    if (err instanceof WorkflowNotFoundError) {
      await check(deps, scope, id, input);
      throw refused('delivery_not_stalled', 'The delivery is final: there is nothing to recover.');
    }
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || err instanceof ServiceError) throw pending();
    throw err;
  }
}
