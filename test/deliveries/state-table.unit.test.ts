// The delivery state machine (shared/deliveries/state-table.ts), without Temporal: every (status, trigger) pair
// against design.md's lifecycle (written out again here, independently of the table), the table's invariants, the
// views the API uses, and the generated lifecycle table of docs/deliveries.md.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CANCELLABLE_STATUSES,
  FLEET_TRANSITIONS,
  STALLABLE_STATUSES,
  TRANSITIONS,
  TRIGGERS,
  testHelperRefusal,
  transitionFrom,
  transitionOf,
  type Effect,
  type Trigger,
} from '../../shared/deliveries/state-table.js';
import {
  ATTEMPT_FAILURE_REASONS,
  DEFAULT_MAX_DELIVERY_ATTEMPTS,
  EVENT_TYPES,
  FINAL_STATUSES,
  attemptOutcome,
  FLEET_EVENT_TYPES,
  OPERATOR_ACTIONS,
  STATUSES,
  type Status,
} from '../../shared/deliveries/vocabulary.js';
import { LIFECYCLE_DOC, withLifecycleTable } from '../../scripts/lib/lifecycle-table.js';

const MOVING: Status[] = ['pending', 'assigned', 'pickup_ready', 'in_transit', 'out_for_delivery'];
const NOT_FINAL: Status[] = ['awaiting_payment', ...MOVING, 'stalled'];

/** design.md's lifecycle: trigger -> [allowed from, to, event type]. */
const EXPECTED: Record<Trigger, [Status[], Status | 'previous' | null, string]> = {
  'fleet.payment.confirmed': [['awaiting_payment'], 'pending', 'delivery.payment_confirmed'],
  'fleet.assigned': [['pending'], 'assigned', 'delivery.assigned'],
  'fleet.pickup_ready': [['assigned'], 'pickup_ready', 'delivery.pickup_ready'],
  'fleet.in_transit': [['assigned', 'pickup_ready'], 'in_transit', 'delivery.in_transit'],
  'fleet.out_for_delivery': [['in_transit'], 'out_for_delivery', 'delivery.out_for_delivery'],
  'fleet.delivered': [['in_transit', 'out_for_delivery'], 'delivered', 'delivery.delivered'],
  'fleet.failed': [NOT_FINAL, 'failed', 'delivery.failed'],
  pin_attempts_exceeded: [['in_transit', 'out_for_delivery'], 'stalled', 'delivery.stalled'],
  payment_confirmed: [['awaiting_payment'], 'pending', 'delivery.payment_confirmed'],
  payment_window: [['awaiting_payment'], 'cancelled', 'delivery.cancelled'],
  cancel: [['awaiting_payment', 'pending', 'assigned'], 'cancelled', 'delivery.cancelled'],
  booked: [['pending'], null, 'delivery.dispatched'],
  booking_accepted: [['pending'], 'assigned', 'delivery.assigned'],
  courier_rejected: [['pending'], 'stalled', 'delivery.stalled'],
  dispatch_failed: [['pending'], 'stalled', 'delivery.stalled'],
  state_budget: [MOVING, 'stalled', 'delivery.stalled'],
  sla_deadline: [MOVING, 'stalled', 'delivery.stalled'],
  assign_timeout: [['pending'], 'stalled', 'delivery.stalled'],
  failover: [['pending', 'assigned'], 'pending', 'delivery.redispatched'],
  failover_exhausted: [['pending', 'assigned'], 'stalled', 'delivery.stalled'],
  'operator.redispatch': [['stalled'], 'pending', 'delivery.redispatched'],
  'operator.resume': [['stalled'], 'previous', 'delivery.resumed'],
  'operator.mark_failed': [['stalled'], 'failed', 'delivery.failed'],
  'operator.cancel': [['stalled'], 'cancelled', 'delivery.cancelled'],
  'test.stall': [MOVING, 'stalled', 'delivery.stalled'],
  'test.expire_payment_window': [['awaiting_payment'], 'cancelled', 'delivery.cancelled'],
  'fleet.attempt_failed': [['in_transit', 'out_for_delivery'], 'in_transit', 'delivery.attempt_failed'],
  attempts_exhausted: [['in_transit'], 'failed', 'delivery.failed'],
  'recipient.update': [NOT_FINAL, null, 'delivery.recipient_updated'],
};

describe('every (status, trigger) pair', () => {
  for (const trigger of TRIGGERS) {
    for (const status of STATUSES) {
      const [from, to, event] = EXPECTED[trigger];
      const allowed = from.includes(status);
      it(`${trigger} from ${status}: ${allowed ? `-> ${to ?? 'unchanged'} (${event})` : 'refused'}`, () => {
        const t = transitionFrom(status, trigger);
        if (!allowed) return expect(t).toBeNull();
        expect(t).toMatchObject({ trigger, to, event });
        expect(t!.effects.length).toBeGreaterThan(0);
      });
    }
  }
});

describe('invariants of the table', () => {
  it('one row per trigger, every trigger has a row', () => {
    expect(TRANSITIONS.map((t) => t.trigger).sort()).toEqual([...TRIGGERS].sort());
  });

  it('final statuses have no way out', () => {
    for (const status of FINAL_STATUSES) {
      expect(TRIGGERS.filter((trigger) => transitionFrom(status, trigger))).toEqual([]);
    }
  });

  it('every status is reachable from the statuses a delivery is created in', () => {
    const reached = new Set<Status>(['awaiting_payment', 'pending']);
    for (let grew = true; grew;) {
      grew = false;
      for (const t of TRANSITIONS) {
        if (!t.from.some((s) => reached.has(s))) continue;
        // `previous`: back to a status a stall left, all of which are reached already.
        const to = t.to === 'previous' ? null : t.to;
        if (to && !reached.has(to)) grew = reached.add(to) !== null;
      }
    }
    expect([...reached].sort()).toEqual([...STATUSES].sort());
  });

  it('every non-final status has a way to a final status', () => {
    for (const status of NOT_FINAL) {
      expect(TRANSITIONS.some((t) => t.from.includes(status) && FINAL_STATUSES.includes(t.to as Status))).toBe(true);
    }
  });

  it('every event type of the vocabulary is produced by some row, but those recorded elsewhere', () => {
    const elsewhere = [
      'delivery.created',
      'delivery.operator_action',
      'delivery.booking_release_failed',
      'delivery.return_started',
      'delivery.returned',
      // Cash on delivery: the collectCash effect of fleet.delivered, remittances and the overdue sweep record them.
      'cod.collected',
      'cod.discrepancy',
      'cod.remitted',
      'cod.overdue',
    ];
    const produced = new Set(TRANSITIONS.map((t) => t.event));
    expect(EVENT_TYPES.filter((e) => !produced.has(e))).toEqual(elsewhere);
  });

  it('every fleet event type and operator action has its trigger; every effect is used', () => {
    for (const e of FLEET_EVENT_TYPES) expect(TRIGGERS).toContain(`fleet.${e}`);
    for (const a of OPERATOR_ACTIONS) expect(TRIGGERS).toContain(`operator.${a}`);
    const used = new Set<Effect>(TRANSITIONS.flatMap((t) => t.effects));
    expect(used.size).toBe(13);
  });

  it('a delivered fleet event collects the cash of a cash-on-delivery delivery, after recording the status', () => {
    expect(transitionOf('fleet.delivered').effects).toEqual(['record', 'collectCash', 'reportReturned']);
    for (const t of TRANSITIONS.filter((t) => t.trigger !== 'fleet.delivered'))
      expect(t.effects).not.toContain('collectCash');
  });

  it('a status change is recorded by every row (record or stall), and stalls go through `stall`', () => {
    for (const t of TRANSITIONS) {
      expect(t.effects.filter((e) => e === 'record' || e === 'stall')).toHaveLength(1);
      expect(t.effects.includes('stall')).toBe(t.to === 'stalled');
    }
  });

  it('rows that move to `pending` book the courier', () => {
    for (const t of TRANSITIONS.filter((t) => t.to === 'pending')) expect(t.effects.at(-1)).toBe('dispatch');
  });
});

describe('views the API uses', () => {
  it('cancellable, stallable, fleet transitions', () => {
    expect(CANCELLABLE_STATUSES).toEqual(['awaiting_payment', 'pending', 'assigned']);
    expect(STALLABLE_STATUSES).toEqual(MOVING);
    expect(Object.keys(FLEET_TRANSITIONS).sort()).toEqual([...FLEET_EVENT_TYPES].sort());
    expect(FLEET_TRANSITIONS.in_transit).toEqual({
      from: ['assigned', 'pickup_ready'],
      to: 'in_transit',
      eventType: 'delivery.in_transit',
    });
  });

  it('testHelperRefusal', () => {
    for (const status of STATUSES) {
      expect(testHelperRefusal(status, 'stall') === null).toBe(MOVING.includes(status));
      expect(testHelperRefusal(status, 'expire_payment_window') === null).toBe(status === 'awaiting_payment');
    }
    expect(testHelperRefusal('delivered', 'stall')).toBe(
      'A delivery in status delivered cannot stall (only pending, assigned, pickup_ready, in_transit, out_for_delivery).',
    );
    expect(testHelperRefusal('pending', 'expire_payment_window')).toBe(
      'The delivery is pending, not awaiting_payment: it has no payment window to expire.',
    );
  });
});

describe('docs/deliveries.md', () => {
  it('holds the lifecycle table generated from the state table (npm run docs:lifecycle)', () => {
    const doc = fs.readFileSync(LIFECYCLE_DOC, 'utf8');
    expect(doc).toBe(withLifecycleTable(doc));
  });
});

describe('failed attempts and returns (design.md "Attempts, returns and proof of delivery")', () => {
  it('a failed attempt goes back to in_transit; exhaustion fails the delivery and starts the return', () => {
    expect(transitionFrom('out_for_delivery', 'fleet.attempt_failed')?.effects).toEqual(['record']);
    expect(transitionFrom('in_transit', 'attempts_exhausted')?.effects).toEqual(['record', 'startReturn']);
    expect(transitionFrom('delivered', 'fleet.attempt_failed')).toBeNull();
    expect(transitionFrom('pickup_ready', 'fleet.attempt_failed')).toBeNull();
    expect(transitionFrom('out_for_delivery', 'fleet.delivered')?.effects).toContain('reportReturned');
  });

  it('attemptOutcome: the courier tries again until the last attempt; a refusal ends at once', () => {
    expect(attemptOutcome(1, 'recipient_unavailable', 2)).toBeNull();
    expect(attemptOutcome(2, 'recipient_unavailable', 2)).toBe('delivery_attempts_exhausted');
    expect(attemptOutcome(1, 'other', 1)).toBe('delivery_attempts_exhausted');
    expect(attemptOutcome(4, 'address_not_found', 5)).toBeNull();
    expect(attemptOutcome(1, 'recipient_refused', 5)).toBe('recipient_refused');
    expect(attemptOutcome(1, 'cod_refused', 5)).toBe('cod_refused');
    for (const reason of ATTEMPT_FAILURE_REASONS)
      expect(attemptOutcome(DEFAULT_MAX_DELIVERY_ATTEMPTS, reason, DEFAULT_MAX_DELIVERY_ATTEMPTS)).not.toBeNull();
  });
});
