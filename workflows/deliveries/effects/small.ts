// The effects that only change the workflow's state.
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { Transition } from '../../../shared/deliveries/state-table.js';
import { CourierSlugKey } from '../../../shared/search-attributes.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

/** `dispatch`: back in `pending` with no courier job, the main loop books one next. */
export function dispatch(d: Delivery): void {
  if (d.state.status === 'pending' && !d.state.trackingRef) d.state.needsDispatch = true;
}

/** `switchCompany`: the next booking is a new one (a new `Idempotency-Key`), with the message's company if any. */
export function switchCompany(d: Delivery, t: Transition, msg: Message): void {
  if (msg.company) {
    if (t.trigger === 'failover') d.state.redispatchedFrom.push(d.state.companyId);
    d.state.companyId = msg.company.companyId;
  }
  d.state.nextBooking();
  if (msg.company) upsertSearchAttributes([{ key: CourierSlugKey, value: msg.company.slug }]);
}

/** `resetPinAttempts`: the operator gives the driver new attempts. */
export function resetPinAttempts(d: Delivery): void {
  d.state.pinAttempts = 0;
}

/** `markSlaStalled`: a stall for the SLA is done once; its deadline is not armed again. */
export function markSlaStalled(d: Delivery, _t: Transition, msg: Message): void {
  if (msg.payload.reason === 'sla_deadline_passed') d.state.slaStalled = true;
}

/** `rememberBooking`: the courier's job; with failover, the assign timeout counts from here. */
export function rememberBooking(d: Delivery, _t: Transition, msg: Message): void {
  d.state.trackingRef = msg.extra?.trackingRef ?? d.state.trackingRef;
  if (d.input.redispatch) d.state.bookedAt = Date.now();
}
