// The shapes deliveries leave the API in: full (merchant), summary (lists, webhooks), widget (trimmed),
// public tracking (reference, status, event types and times only).
import type { DeliveryEventRow, DeliveryRow } from './repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toEvent(e: DeliveryEventRow) {
  return { id: e.id, event_type: e.event_type, occurred_at: e.occurred_at.toISOString(), source: e.source, payload: e.payload };
}

export function trackingUrl(baseUrl: string, deliveryId: string) {
  return `${baseUrl}/track/${deliveryId}`;
}

export function toSummary(d: DeliveryRow) {
  return {
    id: d.id,
    reference: d.reference,
    status: d.status,
    inserted_at: d.inserted_at.toISOString(),
    origin: d.origin,
    destination: d.destination,
    parcel: d.parcel,
    quoted_fee_aoa: d.quoted_fee_aoa,
    courier: { name: d.courier_name, tracking_ref: d.courier_tracking_ref },
  };
}

export function toDelivery(d: DeliveryRow, events: DeliveryEventRow[], baseUrl: string) {
  return {
    ...toSummary(d),
    company_id: d.company_id,
    payment_method: d.payment_method,
    cash_collect_aoa: d.cash_collect_aoa,
    scheduled_pickup_at: iso(d.scheduled_pickup_at),
    scheduled_delivery_at: iso(d.scheduled_delivery_at),
    sla_deadline_at: iso(d.sla_deadline_at),
    tracking_url: trackingUrl(baseUrl, d.id),
    delivery_pin: d.delivery_pin,
    metadata: d.metadata,
    updated_at: d.updated_at.toISOString(),
    events: events.map(toEvent),
  };
}

/** For the browser: no courier job reference, cash amount, SLA or event payloads. */
export function toWidgetDelivery(d: DeliveryRow, events: DeliveryEventRow[], baseUrl: string) {
  return {
    id: d.id,
    reference: d.reference,
    status: d.status,
    inserted_at: d.inserted_at.toISOString(),
    origin: d.origin,
    destination: d.destination,
    parcel: d.parcel,
    payment_method: d.payment_method,
    quoted_fee_aoa: d.quoted_fee_aoa,
    courier: { name: d.courier_name },
    scheduled_pickup_at: iso(d.scheduled_pickup_at),
    scheduled_delivery_at: iso(d.scheduled_delivery_at),
    tracking_url: trackingUrl(baseUrl, d.id),
    delivery_pin: d.delivery_pin,
    metadata: d.metadata,
    events: events.filter((e) => !e.payload?.ignored).map((e) => ({ id: e.id, event_type: e.event_type, occurred_at: e.occurred_at.toISOString() })),
  };
}

/** The public tracking view: nothing internal. Ignored fleet events are not part of the recipient's timeline. */
export function toTracking(d: Pick<DeliveryRow, 'reference' | 'status'>, events: DeliveryEventRow[]) {
  return {
    reference: d.reference,
    status: d.status,
    events: events.filter((e) => !e.payload?.ignored).map((e) => ({ event_type: e.event_type, occurred_at: e.occurred_at.toISOString() })),
  };
}
