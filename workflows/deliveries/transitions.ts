// The interpreter of the state table (shared/deliveries/state-table.ts): a trigger's transition runs its effects, in
// the table's order. Call under the workflow's lock.
import { transitionOf, type Effect, type Transition, type Trigger } from '../../shared/deliveries/state-table.js';
import type { Delivery } from './delivery.js';
import { askCourierToCancel } from './effects/ask-courier-to-cancel.js';
import type { Message } from './effects/message.js';
import { record } from './effects/record.js';
import { releaseBooking } from './effects/release-booking.js';
import { dispatch } from './effects/dispatch.js';
import { markSlaStalled } from './effects/mark-sla-stalled.js';
import { rememberBooking } from './effects/remember-booking.js';
import { resetPinAttempts } from './effects/reset-pin-attempts.js';
import { switchCompany } from './effects/switch-company.js';
import { stall } from './effects/stall.js';
import { reportReturned, startReturn } from './effects/returns.js';
import { collectCash } from './effects/collect-cash.js';
import { tellCourier } from './effects/tell-courier.js';

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
  startReturn,
  reportReturned,
  collectCash,
  tellCourier,
};

/** Runs the effects of `trigger`'s transition (the caller has checked it is allowed from the current status). */
export async function apply(d: Delivery, trigger: Trigger, msg: Message): Promise<void> {
  const t = transitionOf(trigger);
  for (const effect of t.effects) {
    // Most effects are synchronous: awaiting their undefined would cost a promise each (docs/architecture.md).
    const pending = EFFECTS[effect](d, t, msg);
    if (pending) await pending;
  }
}
