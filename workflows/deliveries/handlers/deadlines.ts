// The deadlines: the payment window, each status's time budget, the SLA and (with failover) the assign timeout.
import type { Trigger } from '../../../shared/deliveries/state-table.js';
import { STALLABLE_STATUSES } from '../../../shared/deliveries/state-table.js';
import type { Status } from '../../../shared/deliveries/vocabulary.js';
import type { Delivery } from '../delivery.js';
import { stallPayload } from '../effects/stall.js';
import { fire } from '../fire.js';

type Reason = 'payment_timeout' | 'state_timeout' | 'sla_deadline_passed' | 'assign_timeout';
export interface Deadline {
  ms: number;
  reason: Reason;
}

const TRIGGER_OF: Record<Reason, Trigger> = {
  payment_timeout: 'payment_window',
  state_timeout: 'state_budget',
  sla_deadline_passed: 'sla_deadline',
  assign_timeout: 'assign_timeout',
};

/** Milliseconds until the current state's budget (or the SLA) runs out, and what happens then. */
export function nextDeadline({ state, input }: Delivery): Deadline | null {
  const { timeouts } = input;
  if (state.status === 'awaiting_payment')
    return { ms: state.enteredAt + timeouts.paymentWindowMs - Date.now(), reason: 'payment_timeout' };
  if (!STALLABLE_STATUSES.includes(state.status)) return null;
  let deadline: Deadline | null = null;
  const budget = timeouts.stateBudgetsMs[state.status];
  if (budget !== undefined) deadline = { ms: state.enteredAt + budget - Date.now(), reason: 'state_timeout' };
  if (input.slaDeadlineAt && !state.slaStalled) {
    const ms = Date.parse(input.slaDeadlineAt) - Date.now();
    if (!deadline || ms < deadline.ms) deadline = { ms, reason: 'sla_deadline_passed' };
  }
  // Automatic failover: a booking the courier took as `pending` must be assigned within the policy's time.
  if (input.redispatch && state.status === 'pending' && state.trackingRef && state.bookedAt !== null) {
    const ms = state.bookedAt + input.redispatch.assignTimeoutMs - Date.now();
    if (!deadline || ms < deadline.ms) deadline = { ms, reason: 'assign_timeout' };
  }
  return deadline;
}

/** The deadline ran out while in `seen`: the payment window cancels, anything else stalls (or fails over). */
export async function onDeadline(d: Delivery, deadline: Deadline, seen: Status): Promise<void> {
  await d.lock.runExclusive(async () => {
    if (d.state.status !== seen) return;
    await fire(d, TRIGGER_OF[deadline.reason], { payload: stallPayload(d, deadline.reason) });
  });
}
