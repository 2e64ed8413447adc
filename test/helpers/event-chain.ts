// The crash tests' ordering invariant for one delivery's recorded events (test/helpers/chaos.ts, expectConverged):
// no event twice and no status backwards within an attempt. A failed attempt (`delivery.attempt_failed`) legitimately
// takes the delivery from out_for_delivery back to in_transit and starts the next attempt, and a redispatch
// (`delivery.redispatched`) books again from pending: each starts a new segment of the chain, checked afresh.

const RANK: Record<string, number> = {
  awaiting_payment: 0,
  pending: 1,
  assigned: 2,
  pickup_ready: 3,
  in_transit: 4,
  out_for_delivery: 5,
  delivered: 6,
  cancelled: 6,
  failed: 6,
};
const STATUS_OF_EVENT: Record<string, string> = {
  'delivery.created': 'pending',
  'delivery.assigned': 'assigned',
  'delivery.pickup_ready': 'pickup_ready',
  'delivery.in_transit': 'in_transit',
  'delivery.out_for_delivery': 'out_for_delivery',
  'delivery.delivered': 'delivered',
  'delivery.failed': 'failed',
  'delivery.cancelled': 'cancelled',
};

export interface ChainEvent {
  event_type: string;
  payload?: Record<string, unknown> | null;
}

/**
 * What is wrong with one delivery's chain (its events in recorded order, ignored ones left out): an event twice
 * within a segment, a status that does not move forward within it, a failed attempt from before in_transit or after
 * the end, attempts not numbered 1, 2, ... in turn. Empty when nothing is.
 */
export function chainProblems(events: ChainEvent[]): string[] {
  const problems: string[] = [];
  let seen = new Set<string>();
  let rank = -1;
  let attempts = 0;
  events.forEach((e, i) => {
    const type = e.event_type;
    const at = `event ${i + 1} (${type})`;
    if (seen.has(type)) problems.push(`${at}: twice in the same attempt`);
    seen.add(type);
    if (type === 'delivery.attempt_failed') {
      attempts++;
      if (e.payload?.attempt !== attempts)
        problems.push(`${at}: attempt ${String(e.payload?.attempt)}, not ${attempts}`);
      if (rank < RANK.in_transit || rank > RANK.out_for_delivery) problems.push(`${at}: not from in_transit or later`);
      // The parcel is back with the courier; the next out_for_delivery is the next attempt.
      rank = RANK.in_transit;
      seen = new Set();
      return;
    }
    if (type === 'delivery.redispatched') {
      rank = RANK.pending; // booked again: the courier's chain starts over
      seen = new Set();
      return;
    }
    const status = STATUS_OF_EVENT[type];
    if (!status) return;
    if (RANK[status] <= rank) problems.push(`${at}: ${status} after a later status`);
    rank = RANK[status];
  });
  return problems;
}
