// Effect `stall`: records the stall, keeping the status it leaves (what an operator's resume goes back to).
import type { Transition } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';
import { record } from './record.js';

export function stall(d: Delivery, t: Transition, msg: Message): Promise<void> {
  d.state.previousStatus = d.state.status;
  return record(d, t, msg);
}

/** A `delivery.stalled` payload: why, from where, and what else the trigger tells. */
export const stallPayload = (d: Delivery, reason: string, extra: Record<string, unknown> = {}) => ({
  reason,
  previous_status: d.state.status,
  ...extra,
});
