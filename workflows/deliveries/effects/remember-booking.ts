// Effect `rememberBooking`: the courier's job; with failover, the assign timeout counts from here.
import type { Transition } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

export function rememberBooking(d: Delivery, _t: Transition, msg: Message): void {
  d.state.trackingRef = msg.extra?.trackingRef ?? d.state.trackingRef;
  if (d.input.redispatch) d.state.bookedAt = Date.now();
}
