// Firing a trigger: its transition when the current status allows it, or automatic failover instead for the
// triggers that fail over (shared/deliveries/state-table.ts `failsOver`). Call under the workflow's lock.
import { transitionOf, type Trigger } from '../../shared/deliveries/state-table.js';
import type { Delivery } from './delivery.js';
import { failOver } from './effects/fail-over.js';
import type { Message } from './effects/message.js';
import { apply } from './transitions.js';

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
