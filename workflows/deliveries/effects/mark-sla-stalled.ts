// Effect `markSlaStalled`: a stall for the SLA happens once; its deadline is not armed again.
import type { Transition } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

export function markSlaStalled(d: Delivery, _t: Transition, msg: Message): void {
  if (msg.payload.reason === 'sla_deadline_passed') d.state.slaStalled = true;
}
