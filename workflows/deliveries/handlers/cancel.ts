// DELETE /v1/deliveries/{id} (docs/deliveries.md#cancellation) and Request Cancellation in the Temporal UI. The
// courier is asked outside the lock, so fleet events and the main loop never wait on it, and for a bounded time: a
// refusal rejects the cancellation; no answer cancels the delivery and leaves the release to the background.
import type { CancelRequest } from '../../../shared/deliveries/definitions.js';
import { allows } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import { cancellationRejected, courierAnswer } from '../effects/ask-courier-to-cancel.js';
import { recordEvent } from '../effects/record.js';
import { apply } from '../transitions.js';
import { onOperatorAction } from './operator.js';

export async function cancel(d: Delivery, request: CancelRequest): Promise<{ status: 'cancelled' }> {
  const { state } = d;
  const message = (extra: Record<string, unknown> = {}) => ({
    payload: { reason: request.reason ?? 'merchant_request', previous_status: state.status, ...extra },
    source: request.source ?? 'api',
  });
  // 1. Under the lock: with no courier job booked yet, the delivery is cancelled at once.
  const booked = await d.lock.runExclusive(async () => {
    if (!allows('cancel', state.status))
      throw cancellationRejected(`A delivery in status ${state.status} cannot be cancelled.`);
    if (!state.trackingRef) return apply(d, 'cancel', message()).then(() => null);
    return { companyId: state.companyId, trackingRef: state.trackingRef };
  });
  if (!booked) return { status: 'cancelled' };
  // 2. Outside the lock: ask the courier, a bounded number of times.
  const answer = await courierAnswer(booked);
  if (answer === 'refused') throw cancellationRejected('The courier refused to cancel the job.');
  // 3. Under the lock again: a fleet event or a deadline may have moved the delivery on meanwhile.
  return d.lock.runExclusive(async () => {
    if (
      !allows('cancel', state.status) ||
      state.trackingRef !== booked.trackingRef ||
      state.companyId !== booked.companyId
    ) {
      throw cancellationRejected(
        `The delivery moved on (now ${state.status}) while the courier was being asked to cancel.`,
      );
    }
    const release = answer === 'cancelled' ? 'confirmed' : 'retrying';
    await apply(d, 'cancel', { ...message({ booking_release: release }), courierAnswer: answer });
    return { status: 'cancelled' as const };
  });
}

/**
 * Request Cancellation in the Temporal UI (docs/operations.md "Temporal UI actions"): the usual cancellation rules.
 * Cancellable: cancelled as by DELETE /v1/deliveries/{id}, the courier asked the same way; stalled: an operator's
 * cancel; otherwise, or when the courier refuses: recorded as an ignored operator action, and the delivery goes on.
 */
export async function onCancelRequested(d: Delivery): Promise<void> {
  const payload = { action: 'cancel', note: 'Request Cancellation in the Temporal UI' };
  const ignore = (reason: string) =>
    d.lock.runExclusive(() =>
      recordEvent(d, null, 'delivery.operator_action', { ...payload, ignored: true, reason }, 'operator'),
    );
  if (d.state.status === 'stalled')
    return d.lock.runExclusive(() => onOperatorAction(d, { action: 'cancel', note: payload.note }));
  if (!allows('cancel', d.state.status)) return ignore(`not_cancellable_${d.state.status}`);
  try {
    await cancel(d, { reason: 'operator', source: 'operator' });
  } catch (err) {
    const message = (err as Error).message;
    await ignore(message === '' ? 'cancellation_rejected' : `cancellation_rejected: ${message}`);
  }
}
