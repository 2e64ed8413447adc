// DELETE /v1/deliveries/{id} (docs/deliveries.md "Cancellation"): the workflow's `cancel` update, once the route has
// checked the delivery as stored; the workflow checks again against the status of the moment and asks the courier.
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import type { Scope } from '../platform/scope.js';
import { ApiError } from '../http/problem.js';
import { CancellationRejected, cancelUpdate } from '../../shared/deliveries/definitions.js';
import { CANCELLABLE_STATUSES } from '../../shared/deliveries/state-table.js';
import { updateDeliveryWorkflow } from './catch-up.js';
import { loadDelivery } from './load.js';
import type { DeliveryRow } from './repository.js';

/**
 * How long DELETE /v1/deliveries/{id} waits for the workflow. The workflow decides within about 10 s even when the
 * courier never answers (workflows/deliveries/workflows.ts, cancel); this bound covers a worker or Temporal that is
 * down or slow: 503 cancellation_pending then, never a hung request.
 */
export const CANCEL_WAIT_MS = 15_000;

const cancellationPending = () =>
  new ApiError(
    503,
    'cancellation_pending',
    'The cancellation could not be confirmed in time and may still take effect. Check the delivery in a moment, or retry: a retry is safe.',
    undefined,
    { 'retry-after': '5' },
  );

/** Cancels `delivery` (cancellable as stored); throws the 422 or 503 the route answers. */
export async function cancelDelivery(
  deps: AppDeps,
  scope: Scope,
  delivery: DeliveryRow,
  log: FastifyBaseLogger,
): Promise<void> {
  try {
    await updateDeliveryWorkflow(
      deps,
      delivery,
      cancelUpdate,
      { reason: 'merchant_request', source: 'api' },
      {
        deadline: Date.now() + CANCEL_WAIT_MS,
        handlerRejection: CancellationRejected,
        rowAllows: async () =>
          CANCELLABLE_STATUSES.includes((await loadDelivery(deps.pool, scope, delivery.id)).status),
        late: cancellationPending,
      },
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
      const cause = err.cause instanceof Error ? err.cause.message : 'the delivery moved on';
      throw new ApiError(422, 'cancellation_rejected', `The cancellation was rejected: ${cause}`);
    }
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || err instanceof ServiceError) {
      // No answer in time (worker down, Temporal unreachable or slow): the update may still run, so say so.
      log.warn({ err, deliveryId: delivery.id }, 'cancellation not confirmed in time');
      throw cancellationPending();
    }
    throw err;
  }
}
