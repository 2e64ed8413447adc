// The interpreter of the state table (shared/deliveries/state-table.ts): a trigger's transition runs its effects, in
// the table's order. Call under the workflow's lock.
import { transitionOf, type Effect, type Transition, type Trigger } from '../../shared/deliveries/state-table.js';
import type { Delivery } from './delivery.js';
import { askCourierToCancel } from './effects/ask-courier-to-cancel.js';
import { failOver } from './effects/fail-over.js';
import type { Message } from './effects/message.js';
import { record } from './effects/record.js';
import { releaseBooking } from './effects/release-booking.js';
import { dispatch, markSlaStalled, rememberBooking, resetPinAttempts, switchCompany } from './effects/small.js';
import { stall } from './effects/stall.js';

const EFFECTS: Record<Effect, (d: Delivery, t: Transition, msg: Message) => unknown> = {
  record,
  stall,
  releaseBooking,
  askCourierToCancel,
  dispatch,
  switchCompany,
  resetPinAttempts,
  markSlaStalled,
  rememberBooking,
};

/** Runs the effects of `trigger`'s transition (the caller has checked it is allowed from the current status). */
export async function apply(d: Delivery, trigger: Trigger, msg: Message): Promise<void> {
  const t = transitionOf(trigger);
  for (const effect of t.effects) await EFFECTS[effect](d, t, msg);
}

/** Why a failing-over trigger fails over, and what its events add (by default: its stall payload's reason and rest). */
export interface FailoverCause {
  reason: string;
  extra: Record<string, unknown>;
}

/**
 * Fires `trigger` when the current status allows it (false when not). A trigger that fails over (courier failure or
 * refusal, dispatch failure, assign timeout) rebooks with the next company instead when the tenant's policy asks.
 */
export async function fire(d: Delivery, trigger: Trigger, msg: Message, cause = causeOf(msg)): Promise<boolean> {
  const t = transitionOf(trigger);
  if (!t.from.includes(d.state.status)) return false;
  if (!(t.failsOver && (await failOver(d, cause.reason, cause.extra)))) await apply(d, trigger, msg);
  return true;
}

function causeOf(msg: Message): FailoverCause {
  const { reason, previous_status: _previous, ...extra } = msg.payload;
  return { reason: String(reason), extra };
}
