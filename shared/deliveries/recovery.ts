// Merchant recovery of a stalled delivery (design.md "Merchants recover their own stalled deliveries",
// docs/deliveries.md "Recovering a stalled delivery"): the operator's actions (the state table's `operator.*` rows),
// asked for with POST /v1/deliveries/{id}/recover and recorded with source `api`. Pure and workflow-safe: the API
// checks a request with it first and shows a stalled delivery's accepted actions (`recovery.actions`), the workflow's
// `recover` update checks it again against the status of the moment.
import { OPERATOR_ACTIONS, type OperatorActionName, type Status } from './vocabulary.js';
import { allows, type Trigger } from './state-table.js';

/** The statuses before pickup: a delivery that stalled from one of them may be cancelled by the merchant. */
const CANCELLABLE_FROM: readonly Status[] = ['pending', 'assigned'];

/** Why the API refuses a recovery action (each is a 409 of the error catalog). */
export type RecoveryRefusal = 'delivery_not_stalled' | 'recovery_not_allowed';

/**
 * The recovery actions a delivery in `status` accepts, in the table's order: none unless it is stalled; `cancel` only
 * when it stalled before pickup (`previousStatus` pending or assigned).
 */
export function recoveryActions(status: Status, previousStatus: Status | null): OperatorActionName[] {
  return OPERATOR_ACTIONS.filter(
    (action) =>
      allows(`operator.${action}` as Trigger, status) &&
      (action !== 'cancel' || (previousStatus !== null && CANCELLABLE_FROM.includes(previousStatus))),
  );
}

/** Why `action` is refused for a delivery in `status` (stalled from `previousStatus`), or null when it is accepted. */
export function recoveryRefusal(
  status: Status,
  previousStatus: Status | null,
  action: OperatorActionName,
): { code: RecoveryRefusal; detail: string } | null {
  if (!allows(`operator.${action}` as Trigger, status))
    return {
      code: 'delivery_not_stalled',
      detail: `The delivery is ${status}, not stalled: there is nothing to recover.`,
    };
  if (!recoveryActions(status, previousStatus).includes(action))
    return {
      code: 'recovery_not_allowed',
      detail: `The delivery stalled in ${previousStatus ?? 'an unknown status'}, after pickup: it cannot be cancelled (only before pickup); redispatch, resume or mark_failed it.`,
    };
  return null;
}
