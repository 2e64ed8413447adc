// The crash tests' ordering check (test/helpers/event-chain.ts): what it accepts and what it catches.
import { describe, expect, it } from 'vitest';
import { chainProblems, type ChainEvent } from './event-chain.js';

const chain = (...items: (string | [string, Record<string, unknown>])[]): ChainEvent[] =>
  items.map((item) =>
    Array.isArray(item)
      ? { event_type: `delivery.${item[0]}`, payload: item[1] }
      : { event_type: `delivery.${item}`, payload: {} },
  );
const failed = (attempt: number) => ['attempt_failed', { attempt, reason: 'recipient_unavailable' }] as const;

describe('chainProblems', () => {
  it('accepts the plain lifecycle, a failed attempt then delivered, a return and a redispatch', () => {
    const plain = ['created', 'assigned', 'pickup_ready', 'in_transit', 'out_for_delivery', 'delivered'];
    expect(chainProblems(chain(...plain))).toEqual([]);
    const attempt = chain(...plain.slice(0, 5), [...failed(1)], 'out_for_delivery', 'delivered');
    expect(chainProblems(attempt)).toEqual([]);
    const returned = chain(
      ...plain.slice(0, 5),
      [...failed(1)],
      'out_for_delivery',
      [...failed(2)],
      'failed',
      'return_started',
      'returned',
    );
    expect(chainProblems(returned)).toEqual([]);
    expect(chainProblems(chain('created', 'stalled', 'redispatched', ...plain.slice(1)))).toEqual([]);
    expect(chainProblems(chain('created', 'assigned', 'stalled', 'redispatched', ...plain.slice(1)))).toEqual([]);
  });

  it('catches an event twice and a status backwards within an attempt', () => {
    expect(chainProblems(chain('created', 'assigned', 'in_transit', 'in_transit', 'delivered'))).toEqual([
      'event 4 (delivery.in_transit): twice in the same attempt',
      'event 4 (delivery.in_transit): in_transit after a later status',
    ]);
    expect(chainProblems(chain('created', 'in_transit', 'assigned', 'delivered'))).toEqual([
      'event 3 (delivery.assigned): assigned after a later status',
    ]);
    // After a failed attempt the chain goes on from in_transit: assigned again is backwards.
    expect(
      chainProblems(chain('created', 'assigned', 'in_transit', 'out_for_delivery', [...failed(1)], 'assigned')),
    ).toEqual(['event 6 (delivery.assigned): assigned after a later status']);
  });

  it('catches a failed attempt out of turn or out of place', () => {
    expect(
      chainProblems(chain('created', 'in_transit', 'out_for_delivery', [...failed(2)], 'out_for_delivery')),
    ).toEqual(['event 4 (delivery.attempt_failed): attempt 2, not 1']);
    expect(chainProblems(chain('created', 'assigned', [...failed(1)]))).toEqual([
      'event 3 (delivery.attempt_failed): not from in_transit or later',
    ]);
    expect(chainProblems(chain('created', 'in_transit', 'delivered', [...failed(1)]))).toEqual([
      'event 4 (delivery.attempt_failed): not from in_transit or later',
    ]);
  });
});
