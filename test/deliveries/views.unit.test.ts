// The shapes a delivery leaves the API in (src/deliveries/views.ts): what the merchant sees, what the widget hides
// without and with the client secret, what public tracking shows, and the expected delivery time. Each view is also
// held to its response schema (src/deliveries/schemas.ts), so a field the schema does not document cannot slip in.
import { describe, expect, it } from 'vitest';
import type { DeliveryEventRow, DeliveryRow } from '../../src/deliveries/repository.js';
import { Delivery, DeliverySummary, TrackingView, WidgetDelivery } from '../../src/deliveries/schemas.js';
import {
  expectedDeliveryAt,
  toDelivery,
  toEvent,
  toSummary,
  toTracking,
  toWidgetDelivery,
  trackingUrl,
} from '../../src/deliveries/views.js';
import { LATEST_DATE_MS } from '../../src/http/schemas.js';

const BASE = 'https://api.example.test';
const ID = '0b6f4c1e-7a6e-4c31-9d2a-2f1c1f0e9a11';
const INSERTED = new Date('2030-01-01T10:00:00Z');

const row = (change: Partial<DeliveryRow> = {}): DeliveryRow => ({
  id: ID,
  tenant_id: '11111111-1111-4111-8111-111111111111',
  reference: 'DLV-ABC123',
  status: 'in_transit',
  livemode: true,
  company_id: '22222222-2222-4222-8222-222222222222',
  courier_name: 'Rápido',
  courier_slug: 'rapido',
  require_delivery_pin: true,
  origin: {
    address_line: 'Rua Rainha Ginga 10',
    city: 'Luanda',
    province: 'Luanda',
    coordinates: { lat: -8.8, lng: 13.2 },
    contact: { name: 'Loja', phone: '+244900000000' },
  },
  destination: {
    address_line: 'Estrada de Catete km 12',
    city: 'Viana',
    province: 'Luanda',
    contact: { name: 'Ana', phone: '+244911111111' },
  },
  parcel: { weight_grams: 2500, description: 'phone', declared_value_aoa: 50_000_000, length_cm: 20 },
  payment_method: 'cod',
  cash_collect_aoa: 7_500_000,
  quoted_fee_aoa: 150_000,
  courier_tracking_ref: 'TRK-9',
  delivery_pin: '4821',
  scheduled_pickup_at: null,
  scheduled_delivery_at: null,
  sla_deadline_at: new Date('2030-01-01T14:00:00Z'),
  metadata: { order: 'A-1' },
  workflow_started_at: INSERTED,
  inserted_at: INSERTED,
  updated_at: new Date('2030-01-01T11:00:00Z'),
  return_of: null,
  return_delivery_id: null,
  ...change,
});

const event = (
  event_type: DeliveryEventRow['event_type'],
  minute: number,
  payload: DeliveryEventRow['payload'] = {},
) => ({
  id: `00000000-0000-4000-8000-0000000000${String(minute).padStart(2, '0')}`,
  event_type,
  occurred_at: new Date(INSERTED.getTime() + minute * 60_000),
  source: 'fleet',
  payload,
});
const EVENTS: DeliveryEventRow[] = [
  event('delivery.created', 0),
  event('delivery.in_transit', 10, { courier: { eta: '2030-01-01T11:30:00Z' } }),
  event('delivery.delivered', 20, { ignored: true, reason: 'pin_mismatch' }),
];

describe('the merchant view', () => {
  it('has everything, events with payloads, ignored ones marked at the top level; matches the Delivery schema', () => {
    const d = toDelivery(row(), EVENTS, BASE);
    expect(Delivery.strict().parse(d)).toBeTruthy();
    expect(d).toMatchObject({
      id: ID,
      status: 'in_transit',
      cash_collect_aoa: 7_500_000,
      delivery_pin: '4821',
      courier: { name: 'Rápido', tracking_ref: 'TRK-9' },
      sla_deadline_at: '2030-01-01T14:00:00.000Z',
      scheduled_pickup_at: null,
      tracking_url: `${BASE}/track/${ID}`,
      inserted_at: '2030-01-01T10:00:00.000Z',
    });
    expect(d.events).toHaveLength(3);
    expect(d.events[2]).toMatchObject({ ignored: true, payload: { ignored: true, reason: 'pin_mismatch' } });
    expect(d.events[1]).not.toHaveProperty('ignored');
    expect(d).not.toHaveProperty('tenant_id');
    expect(d).not.toHaveProperty('workflow_started_at');
  });

  it('toEvent: ISO times, ignored only when the payload says so', () => {
    expect(toEvent(EVENTS[0])).toEqual({
      id: EVENTS[0].id,
      event_type: 'delivery.created',
      occurred_at: '2030-01-01T10:00:00.000Z',
      source: 'fleet',
      payload: {},
    });
    expect(toEvent({ ...EVENTS[0], payload: null })).not.toHaveProperty('ignored');
  });

  it('a list row is the summary: no PIN, cash, metadata or events', () => {
    const s = toSummary(row());
    expect(DeliverySummary.strict().parse(s)).toBeTruthy();
    expect(Object.keys(s).sort()).toEqual(
      [
        'courier',
        'destination',
        'id',
        'inserted_at',
        'livemode',
        'origin',
        'parcel',
        'quoted_fee_aoa',
        'reference',
        'status',
      ].sort(),
    );
    expect(trackingUrl(BASE, ID)).toBe(`${BASE}/track/${ID}`);
  });
});

describe('the widget view', () => {
  it('with the publishable key alone: city and province only, the parcel size, no PIN, metadata, cash, SLA or tracking ref', () => {
    const w = toWidgetDelivery(row(), EVENTS, BASE);
    expect(WidgetDelivery.strict().parse(w)).toBeTruthy();
    expect(w.origin).toEqual({ city: 'Luanda', province: 'Luanda' });
    expect(w.destination).toEqual({ city: 'Viana', province: 'Luanda' });
    expect(w.parcel).toEqual({ weight_grams: 2500, length_cm: 20 });
    expect(w.courier).toEqual({ name: 'Rápido' });
    for (const hidden of [
      'delivery_pin',
      'metadata',
      'cash_collect_aoa',
      'sla_deadline_at',
      'company_id',
      'updated_at',
    ])
      expect(w, hidden).not.toHaveProperty(hidden);
    const text = JSON.stringify(w);
    for (const secret of ['4821', 'TRK-9', 'Rua Rainha', '+244', 'phone', 'A-1', '7500000'])
      expect(text).not.toContain(secret);
  });

  it('events: no payloads, no source, no ignored ones', () => {
    const w = toWidgetDelivery(row(), EVENTS, BASE);
    expect(w.events).toEqual([
      { id: EVENTS[0].id, event_type: 'delivery.created', occurred_at: '2030-01-01T10:00:00.000Z' },
      { id: EVENTS[1].id, event_type: 'delivery.in_transit', occurred_at: '2030-01-01T10:10:00.000Z' },
    ]);
  });

  it('with the client secret: the PIN, metadata, full addresses and parcel back; still no cash, SLA or tracking ref', () => {
    const w = toWidgetDelivery(row(), EVENTS, BASE, true);
    expect(WidgetDelivery.strict().parse(w)).toBeTruthy();
    expect(w).toMatchObject({
      delivery_pin: '4821',
      metadata: { order: 'A-1' },
      origin: row().origin,
      parcel: row().parcel,
    });
    expect(w).not.toHaveProperty('cash_collect_aoa');
    expect(w).not.toHaveProperty('sla_deadline_at');
    expect(JSON.stringify(w)).not.toContain('TRK-9');
  });
});

describe('public tracking', () => {
  it('reference, status, event types and times; nothing else, no ignored events', () => {
    const t = toTracking(row(), EVENTS);
    expect(TrackingView.strict().parse(t)).toBeTruthy();
    expect(t).toEqual({
      reference: 'DLV-ABC123',
      status: 'in_transit',
      events: [
        { event_type: 'delivery.created', occurred_at: '2030-01-01T10:00:00.000Z' },
        { event_type: 'delivery.in_transit', occurred_at: '2030-01-01T10:10:00.000Z' },
      ],
    });
  });
});

describe('expectedDeliveryAt', () => {
  it('the latest courier ETA of an event that was not ignored comes first', () => {
    const events = [
      ...EVENTS,
      event('delivery.out_for_delivery', 30, { ignored: true, courier: { eta: '2031-01-01T00:00:00Z' } }),
    ];
    expect(expectedDeliveryAt(row(), events, 60)?.toISOString()).toBe('2030-01-01T11:30:00.000Z');
    const later = [...EVENTS, event('delivery.out_for_delivery', 30, { courier: { eta: '2030-01-01T12:00:00Z' } })];
    expect(expectedDeliveryAt(row(), later, 60)?.toISOString()).toBe('2030-01-01T12:00:00.000Z');
    const bad = [event('delivery.out_for_delivery', 30, { courier: { eta: 'soon' } })];
    expect(expectedDeliveryAt(row(), bad, 60)?.toISOString()).toBe('2030-01-01T11:00:00.000Z');
  });

  it('then the scheduled delivery time, then the quote estimate from pickup (or creation), clamped; null when over', () => {
    const scheduled = new Date('2030-01-02T09:00:00Z');
    expect(expectedDeliveryAt(row({ scheduled_delivery_at: scheduled }), [], 60)).toEqual(scheduled);
    const pickup = new Date('2030-01-01T15:00:00Z');
    expect(expectedDeliveryAt(row({ scheduled_pickup_at: pickup }), [], 45)?.toISOString()).toBe(
      '2030-01-01T15:45:00.000Z',
    );
    expect(expectedDeliveryAt(row(), [], 45)?.toISOString()).toBe('2030-01-01T10:45:00.000Z');
    expect(expectedDeliveryAt(row(), [], null)).toBeNull();
    const late = new Date(LATEST_DATE_MS - 60_000);
    expect(expectedDeliveryAt(row({ scheduled_pickup_at: late }), [], 600)?.getTime()).toBe(LATEST_DATE_MS);
    for (const status of ['delivered', 'cancelled', 'failed'] as const)
      expect(expectedDeliveryAt(row({ status }), EVENTS, 60), status).toBeNull();
  });
});
