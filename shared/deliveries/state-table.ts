// The delivery state machine as one table (design.md "Delivery lifecycle"): every transition of a delivery, what
// triggers it, the statuses it is allowed from, the status it leads to, the event it records and its effects as named
// commands. Pure data, workflow-safe: the delivery workflow interprets it (workflows/deliveries), the API derives its
// checks from it (the views at the end), the docs' lifecycle table is generated from it (npm run docs:lifecycle) and
// test/deliveries/state-table.unit.test.ts walks every (status, trigger) pair of it.
import { FINAL_STATUSES, STATUSES, type EventType, type FleetEventType, type Status } from './vocabulary.js';

/** Statuses a delivery leaves by itself when it makes no progress (state budget, SLA): it goes to `stalled`. */
const MOVING: readonly Status[] = ['pending', 'assigned', 'pickup_ready', 'in_transit', 'out_for_delivery'];
const NOT_FINAL: readonly Status[] = STATUSES.filter((s) => !FINAL_STATUSES.includes(s));
/** Before pickup: a cancellation is possible, and automatic failover rebooks with another company. */
const BEFORE_PICKUP: readonly Status[] = ['pending', 'assigned'];

/** What sets a transition off. Fleet events are `fleet.<event type>`; test helpers `test.<action>`. */
export const TRIGGERS = [
  'fleet.payment.confirmed',
  'fleet.assigned',
  'fleet.pickup_ready',
  'fleet.in_transit',
  'fleet.out_for_delivery',
  'fleet.delivered',
  'fleet.failed',
  'pin_attempts_exceeded',
  'payment_confirmed',
  'payment_window',
  'cancel',
  'booked',
  'booking_accepted',
  'courier_rejected',
  'dispatch_failed',
  'state_budget',
  'sla_deadline',
  'assign_timeout',
  'failover',
  'failover_exhausted',
  'operator.redispatch',
  'operator.resume',
  'operator.mark_failed',
  'operator.cancel',
  'test.stall',
  'test.expire_payment_window',
  'fleet.attempt_failed',
  'attempts_exhausted',
  'recipient.update',
] as const;
export type Trigger = (typeof TRIGGERS)[number];

/**
 * The effects, as named commands the workflow runs in the row's order (workflows/deliveries/effects/):
 * - `record`: writes the event (and the status change, when the row has one) and upserts the status attribute;
 * - `stall`: `record`, keeping the status it leaves as `previous_status` (what `operator.resume` goes back to);
 * - `releaseBooking`: tells the courier the booked job is off, in the background (bookingReleaseWorkflow);
 * - `askCourierToCancel`: asks the courier to cancel the booked job (bounded), a refusal rejects the cancellation;
 * - `dispatch`: books the courier next (dispatchDelivery);
 * - `switchCompany`: the next booking goes to another company (failover's plan, the operator's `company_id`);
 * - `resetPinAttempts`: the driver gets new PIN attempts;
 * - `markSlaStalled`: the SLA deadline has been acted on and is not armed again;
 * - `rememberBooking`: keeps the courier's tracking ref (and starts the failover assign timeout);
 * - `startReturn`: creates and books the return to sender (a delivery of its own; none for a return);
 * - `reportReturned`: on a return to sender, records `delivery.returned` on the delivery it brings back.
 * - `collectCash`: a cash-on-delivery delivery books the cash collected at the door in the ledger, with the events
 *   `cod.collected` (and `cod.discrepancy`), once per delivery (docs/cash-on-delivery.md).
 * - `tellCourier`: passes the recipient's answers to the booked courier (`POST {endpoint}/bookings/{ref}/updates`), in
 *   the background (recipientUpdateWorkflow); nothing to tell before a booking.
 */
export type Effect =
  | 'record'
  | 'stall'
  | 'releaseBooking'
  | 'askCourierToCancel'
  | 'dispatch'
  | 'switchCompany'
  | 'resetPinAttempts'
  | 'markSlaStalled'
  | 'rememberBooking'
  | 'startReturn'
  | 'reportReturned'
  | 'collectCash'
  | 'tellCourier';

/** Who a transition's event is recorded as coming from (its `source`), unless the request names one. */
export type Source = 'fleet_webhook' | 'system' | 'api' | 'operator' | 'test_helper' | 'recipient';

export interface Transition {
  trigger: Trigger;
  /** Statuses it is allowed from; from any other the trigger is refused (recorded as ignored, or rejected). */
  from: readonly Status[];
  /** The status it leads to; `previous` the status before the stall; null changes no status. */
  to: Status | 'previous' | null;
  event: EventType;
  source: Source;
  effects: readonly Effect[];
  /** With the tenant's automatic failover policy, from a status `failover` allows, `failover` runs instead. */
  failsOver?: true;
  /** One line for the docs. */
  note: string;
}

const fleet = (event: FleetEventType, from: readonly Status[], to: Status, note: string): Transition => ({
  trigger: `fleet.${event}`,
  from,
  to,
  event: event === 'payment.confirmed' ? 'delivery.payment_confirmed' : `delivery.${event}`,
  source: 'fleet_webhook',
  effects:
    to === 'pending'
      ? ['record', 'dispatch']
      : event === 'delivered'
        ? ['record', 'collectCash', 'reportReturned']
        : ['record'],
  ...(event === 'failed' ? { failsOver: true as const } : {}),
  note,
});

const stall = (
  trigger: Trigger,
  from: readonly Status[],
  note: string,
  extra: Partial<Transition> = {},
): Transition => ({
  trigger,
  from,
  to: 'stalled',
  event: 'delivery.stalled',
  source: 'system',
  effects: ['stall'],
  note,
  ...extra,
});

export const TRANSITIONS: readonly Transition[] = [
  fleet('payment.confirmed', ['awaiting_payment'], 'pending', 'The payment provider confirms the payment.'),
  fleet('assigned', ['pending'], 'assigned', 'The courier assigns a driver.'),
  fleet('pickup_ready', ['assigned'], 'pickup_ready', 'The driver is at the pickup.'),
  fleet('in_transit', ['assigned', 'pickup_ready'], 'in_transit', 'The parcel is picked up.'),
  fleet('out_for_delivery', ['in_transit'], 'out_for_delivery', 'The driver is on the last leg.'),
  fleet('delivered', ['in_transit', 'out_for_delivery'], 'delivered', 'Handed over (with the PIN when required).'),
  fleet('failed', NOT_FINAL, 'failed', 'The courier fails the job.'),
  fleet(
    'attempt_failed',
    ['in_transit', 'out_for_delivery'],
    'in_transit',
    'A delivery attempt failed (payload.reason): the parcel stays with the courier, the next `out_for_delivery` is the next attempt.',
  ),
  {
    trigger: 'attempts_exhausted',
    from: ['in_transit'],
    to: 'failed',
    event: 'delivery.failed',
    source: 'fleet_webhook',
    effects: ['record', 'startReturn'],
    note: 'After the last attempt (`max_delivery_attempts`, reason `delivery_attempts_exhausted`), or at once on `recipient_refused` / `cod_refused`: the parcel returns to the sender.',
  },
  {
    trigger: 'recipient.update',
    from: NOT_FINAL,
    to: null,
    event: 'delivery.recipient_updated',
    source: 'recipient',
    effects: ['record', 'tellCourier'],
    note: 'The recipient answers on the tracking page (instructions, location, preferred window): the courier is told.',
  },
  stall('pin_attempts_exceeded', ['in_transit', 'out_for_delivery'], 'Too many wrong PINs on `delivered`.'),
  {
    trigger: 'payment_confirmed',
    from: ['awaiting_payment'],
    to: 'pending',
    event: 'delivery.payment_confirmed',
    source: 'api',
    effects: ['record', 'dispatch'],
    note: '`POST /v1/deliveries/{id}/payment_confirmation`.',
  },
  {
    trigger: 'payment_window',
    from: ['awaiting_payment'],
    to: 'cancelled',
    event: 'delivery.cancelled',
    source: 'system',
    effects: ['record'],
    note: 'The payment window (`PAYMENT_WINDOW_MS`, 48 h) elapses (reason `payment_timeout`).',
  },
  {
    trigger: 'cancel',
    from: ['awaiting_payment', ...BEFORE_PICKUP],
    to: 'cancelled',
    event: 'delivery.cancelled',
    source: 'api',
    effects: ['askCourierToCancel', 'record', 'releaseBooking'],
    note: '`DELETE /v1/deliveries/{id}` (or Request Cancellation in the Temporal UI); a courier refusal rejects it.',
  },
  {
    trigger: 'booked',
    from: ['pending'],
    to: null,
    event: 'delivery.dispatched',
    source: 'system',
    effects: ['rememberBooking', 'record'],
    note: 'The courier takes the booking.',
  },
  {
    trigger: 'booking_accepted',
    from: ['pending'],
    to: 'assigned',
    event: 'delivery.assigned',
    source: 'system',
    effects: ['record'],
    note: 'The courier answers the booking with `accepted`.',
  },
  stall('courier_rejected', ['pending'], 'The courier refuses the booking.', { failsOver: true }),
  stall('dispatch_failed', ['pending'], 'The booking fails after its retries (`DISPATCH_MAX_ATTEMPTS`).', {
    failsOver: true,
  }),
  stall('state_budget', MOVING, "The status's time budget runs out (reason `state_timeout`)."),
  stall('sla_deadline', MOVING, 'The scheduled delivery time passes.', { effects: ['markSlaStalled', 'stall'] }),
  stall('assign_timeout', ['pending'], 'With failover: the booking is not assigned in time.', { failsOver: true }),
  {
    trigger: 'failover',
    from: BEFORE_PICKUP,
    to: 'pending',
    event: 'delivery.redispatched',
    source: 'system',
    effects: ['releaseBooking', 'switchCompany', 'record', 'dispatch'],
    note: 'Automatic failover: the next company within the fee ceiling takes the job.',
  },
  stall('failover_exhausted', BEFORE_PICKUP, 'Automatic failover finds no company (or reached its maximum).'),
  {
    trigger: 'operator.redispatch',
    from: ['stalled'],
    to: 'pending',
    event: 'delivery.redispatched',
    source: 'operator',
    effects: ['releaseBooking', 'switchCompany', 'resetPinAttempts', 'record', 'dispatch'],
    note: 'Book again, with the same company or another one (`company_id`).',
  },
  {
    trigger: 'operator.resume',
    from: ['stalled'],
    to: 'previous',
    event: 'delivery.resumed',
    source: 'operator',
    effects: ['resetPinAttempts', 'record', 'dispatch'],
    note: 'Back to the status before the stall (booked again when that is `pending` with no job).',
  },
  {
    trigger: 'operator.mark_failed',
    from: ['stalled'],
    to: 'failed',
    event: 'delivery.failed',
    source: 'operator',
    effects: ['record'],
    note: 'The operator gives up.',
  },
  {
    trigger: 'operator.cancel',
    from: ['stalled'],
    to: 'cancelled',
    event: 'delivery.cancelled',
    source: 'operator',
    effects: ['releaseBooking', 'record'],
    note: 'The operator cancels.',
  },
  stall('test.stall', MOVING, 'Test deliveries: stall now, with any stall reason.', {
    source: 'test_helper',
    effects: ['markSlaStalled', 'stall'],
  }),
  {
    trigger: 'test.expire_payment_window',
    from: ['awaiting_payment'],
    to: 'cancelled',
    event: 'delivery.cancelled',
    source: 'test_helper',
    effects: ['record'],
    note: 'Test deliveries: the payment window elapses now.',
  },
];

const BY_TRIGGER = new Map(TRANSITIONS.map((t) => [t.trigger, t]));

/** The transition of `trigger`. */
export function transitionOf(trigger: Trigger): Transition {
  return BY_TRIGGER.get(trigger)!;
}

/** Whether `trigger` may fire in `status`. */
export const allows = (trigger: Trigger, status: Status): boolean => transitionOf(trigger).from.includes(status);

/** The transition `trigger` makes from `status`, or null when it is refused there. */
export function transitionFrom(status: Status, trigger: Trigger): Transition | null {
  return allows(trigger, status) ? transitionOf(trigger) : null;
}

// --- Views the API and the workflow use ---------------------------------------------------------

/** Statuses a merchant can cancel from (DELETE /v1/deliveries/{id}). */
export const CANCELLABLE_STATUSES: readonly Status[] = transitionOf('cancel').from;
/** Statuses in which the recipient's forms are open (the tracking page with the recipient's token). */
export const RECIPIENT_UPDATE_STATUSES: readonly Status[] = transitionOf('recipient.update').from;
/** Statuses that go to `stalled` when they make no progress (or the SLA passes). */
export const STALLABLE_STATUSES: readonly Status[] = transitionOf('state_budget').from;

/** Which fleet event moves which state where, and the event_type it records. */
export const FLEET_TRANSITIONS = Object.fromEntries(
  TRANSITIONS.filter((t) => t.trigger.startsWith('fleet.')).map((t) => [
    t.trigger.slice('fleet.'.length),
    { from: t.from, to: t.to as Status, eventType: t.event },
  ]),
) as Record<FleetEventType, { from: readonly Status[]; to: Status; eventType: EventType }>;

/**
 * Why the test helper `stall` or `expire_payment_window` cannot act on a delivery in `status` (null: it can). The
 * API checks it first, and the workflow's testHelper update again (its validator), against the status of the moment.
 */
export function testHelperRefusal(status: Status, action: 'stall' | 'expire_payment_window'): string | null {
  const { from } = transitionOf(`test.${action}`);
  if (from.includes(status)) return null;
  return action === 'stall'
    ? `A delivery in status ${status} cannot stall (only ${from.join(', ')}).`
    : `The delivery is ${status}, not awaiting_payment: it has no payment window to expire.`;
}
