// Pure parts of #29's merchant-facing pieces: which recovery actions a delivery accepts (shared/deliveries/recovery.ts,
// from the state table), the `recovery` and `proof_of_delivery` fields of the merchant's view, the proof schema, and
// the list's metadata filters gathered from `metadata[key]` parameters and validated by ListQuery.
import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { recoveryActions, recoveryRefusal } from '../../shared/deliveries/recovery.js';
import { OPERATOR_ACTIONS, STATUSES, type Status } from '../../shared/deliveries/vocabulary.js';
import { proofOfDelivery, recoveryOf } from '../../src/deliveries/views.js';
import type { DeliveryEventRow } from '../../src/deliveries/repository.js';
import { ProofOfDelivery } from '../../src/deliveries/proof.js';
import { ListQuery } from '../../src/deliveries/schemas.js';
import { gatherMetadataFilters, listFilterOf } from '../../src/deliveries/list-filters.js';
import { ApiError } from '../../src/http/problem.js';
import { observeRecordedEvent } from '../../src/deliveries/event-metrics.js';
import { deliveryRedispatches } from '../../src/platform/observability/metrics.js';

const event = (event_type: string, payload: Record<string, unknown> | null): DeliveryEventRow => ({
  id: crypto.randomUUID(),
  event_type: event_type as DeliveryEventRow['event_type'],
  occurred_at: new Date(),
  source: 'system',
  payload,
});

describe('recovery actions', () => {
  it('none unless stalled; every action stalled before pickup; no cancel after pickup', () => {
    for (const status of STATUSES.filter((s) => s !== 'stalled')) {
      expect(recoveryActions(status, 'pending')).toEqual([]);
      for (const action of OPERATOR_ACTIONS)
        expect(recoveryRefusal(status, 'pending', action)?.code).toBe('delivery_not_stalled');
    }
    for (const previous of ['pending', 'assigned'] as Status[])
      expect(recoveryActions('stalled', previous)).toEqual(['redispatch', 'resume', 'mark_failed', 'cancel']);
    for (const previous of ['pickup_ready', 'in_transit', 'out_for_delivery', null] as (Status | null)[]) {
      expect(recoveryActions('stalled', previous)).toEqual(['redispatch', 'resume', 'mark_failed']);
      expect(recoveryRefusal('stalled', previous, 'cancel')?.code).toBe('recovery_not_allowed');
      expect(recoveryRefusal('stalled', previous, 'resume')).toBeNull();
    }
  });
});

describe("the merchant's view", () => {
  it('recovery: the latest stall that changed something; null when not stalled', () => {
    const events = [
      event('delivery.stalled', { reason: 'courier_rejected', previous_status: 'pending' }),
      event('delivery.resumed', {}),
      event('delivery.stalled', { reason: 'state_timeout', previous_status: 'in_transit' }),
      event('delivery.stalled', { ignored: true, reason: 'x', previous_status: 'assigned' }),
    ];
    expect(recoveryOf({ status: 'stalled' }, events)).toEqual({
      reason: 'state_timeout',
      previous_status: 'in_transit',
      actions: ['redispatch', 'resume', 'mark_failed'],
    });
    expect(recoveryOf({ status: 'in_transit' }, events)).toBeNull();
  });

  it('proof_of_delivery: the proof of the delivered event that was not ignored, else null', () => {
    const proof = { photo_url: 'https://x.example/p.jpg' };
    expect(proofOfDelivery([event('delivery.created', {})])).toBeNull();
    expect(proofOfDelivery([event('delivery.delivered', { courier: {} })])).toBeNull();
    expect(
      proofOfDelivery([
        event('delivery.delivered', { ignored: true, courier: { proof: { photo_url: 'https://wrong.example/' } } }),
        event('delivery.delivered', { courier: { proof } }),
      ]),
    ).toEqual(proof);
    // A proof stored before it was an object (a string) is not shown as one.
    expect(
      proofOfDelivery([event('delivery.delivered', { courier: { proof: 'https://x.example/p.jpg' } })]),
    ).toBeNull();
  });
});

describe('ProofOfDelivery', () => {
  const ok = (value: unknown) => ProofOfDelivery.safeParse(value).success;
  it('https links, a name, a point; at least one field; nothing else', () => {
    expect(ok({ recipient_name: 'Ana' })).toBe(true);
    expect(ok({ photo_url: 'https://a.example/p.jpg', location: { lat: -8.8, lng: 13.2 } })).toBe(true);
    expect(ok({})).toBe(false);
    expect(ok({ photo_url: 'http://a.example/p.jpg' })).toBe(false);
    expect(ok({ signature_url: 'ftp://a.example/s.png' })).toBe(false);
    expect(ok({ photo_url: `https://a.example/${'x'.repeat(2000)}` })).toBe(false);
    expect(ok({ recipient_name: 'Ana', extra: 1 })).toBe(false);
    expect(ok({ location: { lat: -8.8, lng: 13.2, alt: 1 } })).toBe(false);
    expect(ok({ location: { lat: 100, lng: 0 } })).toBe(false);
  });
});

describe('metadata[key]=value filters', () => {
  const gathered = async (query: Record<string, unknown>) => {
    const request = { query: { ...query } } as unknown as FastifyRequest;
    await gatherMetadataFilters(request);
    return request.query as Record<string, unknown>;
  };

  it('gathers the bracketed parameters into one object, keys kept as keys', async () => {
    expect(await gathered({ 'metadata[order_id]': 'K-1', limit: '5' })).toEqual({
      limit: '5',
      metadata: { order_id: 'K-1' },
    });
    const proto = await gathered({ 'metadata[__proto__]': 'x' });
    expect(Object.keys(proto.metadata as object)).toEqual(['__proto__']);
    expect(await gathered({ search: 'x' })).toEqual({ search: 'x' });
  });

  it('refuses malformed names and a bare metadata parameter', async () => {
    await expect(gathered({ 'metadata[]': 'x' })).rejects.toBeInstanceOf(ApiError);
    await expect(gathered({ 'metadata[a][b]': 'x' })).rejects.toBeInstanceOf(ApiError);
    await expect(gathered({ metadata: 'x', 'metadata[a]': 'y' })).rejects.toBeInstanceOf(ApiError);
  });

  it('ListQuery: up to 5 pairs of one non-empty value each; the repository filter keeps the phone digits', async () => {
    const parse = (q: Record<string, unknown>) => ListQuery.safeParse(q);
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(parse({ metadata: pairs(5) }).success).toBe(true);
    expect(parse({ metadata: pairs(6) }).success).toBe(false);
    expect(parse({ metadata: { a: ['1', '2'] } }).success).toBe(false);
    expect(parse({ metadata: { a: '' } }).success).toBe(false);
    expect(parse({ recipient_phone: 'abc' }).success).toBe(false);
    expect(parse({ recipient_phone: '+-' }).success).toBe(false);
    expect(parse({ phone: '1' }).success).toBe(false);
    const parsed = parse({ metadata: { order_id: 'K-1' }, recipient_phone: '+244 (923) 111-222' });
    expect(listFilterOf(parsed.data!)).toMatchObject({
      metadata: { order_id: 'K-1' },
      recipientPhoneDigits: '244923111222',
    });
  });
});

describe('delivery_redispatches_total', () => {
  it("counts a merchant's redispatch (source api) as reason merchant, an operator's as operator", async () => {
    const count = async (reason: string) =>
      (await deliveryRedispatches.get()).values.find(
        (v) => v.labels.automatic === 'false' && v.labels.reason === reason,
      )?.value ?? 0;
    const before = { merchant: await count('merchant'), operator: await count('operator') };
    const redispatched = (source: string) => ({
      deliveryId: crypto.randomUUID(),
      eventType: 'delivery.redispatched',
      payload: { action: 'redispatch' },
      source,
    });
    observeRecordedEvent(null as never, redispatched('api'));
    observeRecordedEvent(null as never, redispatched('operator'));
    observeRecordedEvent(null as never, redispatched('api'));
    expect(await count('merchant')).toBe(before.merchant + 2);
    expect(await count('operator')).toBe(before.operator + 1);
  });
});
