// The shapes deliveries leave the API in: full (merchant), summary (lists, webhooks), widget (trimmed),
// public tracking (reference, status, event types and times only).
import type { DeliveryEventRow, DeliveryRow, DeliverySummaryRow } from './repository.js';
import { clampDate } from '../http/schemas.js';
import { recoveryActions } from '../../shared/deliveries/recovery.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Ignored events are not state changes: the widget and the public tracking view leave them out (docs/deliveries.md). */
const isIgnored = (e: DeliveryEventRow) => e.payload?.ignored === true;
/** Cash-on-delivery events are between the merchant and the courier: never on the recipient's timeline (widget, tracking). */
const isHiddenFromRecipient = (e: DeliveryEventRow) => isIgnored(e) || e.event_type.startsWith('cod.');

/**
 * An event as the merchant sees it. An event that changed nothing (a fleet event not allowed from the current
 * status, a wrong PIN, an operator action on a delivery that is not stalled) says so at the top level,
 * `ignored: true`, besides `payload.ignored` and `payload.reason`; other events have no `ignored` field.
 */
export function toEvent(e: DeliveryEventRow) {
  return {
    id: e.id,
    event_type: e.event_type,
    occurred_at: e.occurred_at.toISOString(),
    ...(isIgnored(e) ? { ignored: true as const } : {}),
    source: e.source,
    payload: e.payload,
  };
}

export function trackingUrl(baseUrl: string, deliveryId: string) {
  return `${baseUrl}/track/${deliveryId}`;
}

/** What the merchant's and the widget's views of a delivery begin with. */
const toBase = (d: DeliverySummaryRow) => ({
  id: d.id,
  reference: d.reference,
  status: d.status,
  livemode: d.livemode,
  inserted_at: d.inserted_at.toISOString(),
});

/** A list's row (50 a page). Object.assign, not a spread of toBase: a spread costs ten times as much per row. */
export function toSummary(d: DeliverySummaryRow) {
  return Object.assign(toBase(d), {
    origin: d.origin,
    destination: d.destination,
    parcel: d.parcel,
    quoted_fee_aoa: d.quoted_fee_aoa,
    courier: { name: d.courier_name, tracking_ref: d.courier_tracking_ref },
  });
}

/** A row of GET /v1/deliveries: the summary and the merchant's metadata (an order id is how a merchant finds it). */
export function toListItem(d: DeliverySummaryRow) {
  return Object.assign(toSummary(d), { metadata: d.metadata });
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
    return_of: d.return_of,
    return_delivery_id: d.return_delivery_id,
    updated_at: d.updated_at.toISOString(),
    events: events.map(toEvent),
    proof_of_delivery: proofOfDelivery(events),
    recipient_answers: recipientAnswers(events),
    recovery: recoveryOf(d, events),
    cod: codOf(d),
  };
}

/** The latest event of `type` that changed something, or undefined. */
function latest(events: DeliveryEventRow[], type: string): DeliveryEventRow | undefined {
  for (let i = events.length - 1; i >= 0; i--)
    if (events[i].event_type === type && !isIgnored(events[i])) return events[i];
  return undefined;
}

/**
 * The courier's proof of delivery (the `proof` of the `delivered` fleet event, kept under its payload.courier), for the
 * merchant only: the widget and tracking views never show it. Null when the delivery was handed over without one.
 */
export function proofOfDelivery(events: DeliveryEventRow[]): Record<string, unknown> | null {
  const courier = latest(events, 'delivery.delivered')?.payload?.courier as { proof?: unknown } | undefined;
  const proof = courier?.proof;
  return proof && typeof proof === 'object' && !Array.isArray(proof) ? (proof as Record<string, unknown>) : null;
}

/**
 * The recipient's latest answers on the tracking page (docs/recipients.md): each field as the last
 * `delivery.recipient_updated` that carried it said, and when the last one came. Null when the recipient never answered.
 */
export function recipientAnswers(events: DeliveryEventRow[]) {
  const answers = events.filter((e) => e.event_type === 'delivery.recipient_updated' && !isIgnored(e));
  if (answers.length === 0) return null;
  const latestOf = (field: string) =>
    [...answers].reverse().find((e) => e.payload?.[field] !== undefined)?.payload?.[field] ?? null;
  return {
    instructions: latestOf('instructions') as string | null,
    destination_coordinates: latestOf('destination_coordinates') as { lat: number; lng: number } | null,
    preferred_window: latestOf('preferred_window') as { date: string; from: string; to: string } | null,
    updated_at: answers.at(-1)!.occurred_at.toISOString(),
  };
}

/**
 * What a stalled delivery accepts of POST /v1/deliveries/{id}/recover: why it stalled (its `delivery.stalled` reason),
 * the status it stalled from and the actions it accepts (shared/deliveries/recovery.ts). Null when not stalled.
 */
export function recoveryOf(d: Pick<DeliveryRow, 'status'>, events: DeliveryEventRow[]) {
  if (d.status !== 'stalled') return null;
  const payload = latest(events, 'delivery.stalled')?.payload ?? {};
  const previous = typeof payload.previous_status === 'string' ? (payload.previous_status as Status) : null;
  return {
    reason: typeof payload.reason === 'string' ? payload.reason : null,
    previous_status: previous,
    actions: recoveryActions(d.status, previous),
  };
}

/** A cash-on-delivery delivery's cash line (docs/cash-on-delivery.md); null for other payment methods. */
function codOf(d: DeliveryRow) {
  if (d.payment_method !== 'cod') return null;
  const line = d.cod_line ?? null;
  const remitted = line?.remittance_status === 'confirmed' ? 'confirmed' : 'remitted';
  return {
    expected_aoa: Number(d.cash_collect_aoa ?? 0),
    collected_aoa: line ? Number(line.collected_aoa) : null,
    remitted_aoa: line ? Number(line.remitted_aoa) : 0,
    fee_deducted_aoa: line ? Number(line.fee_deducted_aoa) : 0,
    status: !line ? 'awaiting_collection' : line.remittance_id ? remitted : 'collected',
    remittance_id: line?.remittance_id ?? null,
  } as const;
}

/** An address as the publishable key alone reads it: the city and province, no street, point or person. */
const cityOnly = ({ city, province }: { city: string; province: string }) => ({ city, province });

/** A parcel as the publishable key alone reads it: its size, not what it holds nor what it is worth. */
const parcelSize = ({ description: _description, declared_value_aoa: _value, ...size }: DeliveryRow['parcel']) => size;

/**
 * For the browser: no courier job reference, cash amount, SLA or event payloads. A delivery id travels to every
 * courier and sits in every tracking URL, and the publishable key sits in the shop's page, so the publishable key
 * alone gets no PIN, no metadata, of each address only `city` and `province` (no `address_line`, `coordinates` or
 * `contact`) and of the parcel no `description` nor `declared_value_aoa`; `full` (the caller presented the
 * delivery's client secret) adds them back.
 */
export function toWidgetDelivery(d: DeliveryRow, events: DeliveryEventRow[], baseUrl: string, full = false) {
  return {
    ...toBase(d),
    origin: full ? d.origin : cityOnly(d.origin),
    destination: full ? d.destination : cityOnly(d.destination),
    parcel: full ? d.parcel : parcelSize(d.parcel),
    payment_method: d.payment_method,
    quoted_fee_aoa: d.quoted_fee_aoa,
    courier: { name: d.courier_name },
    scheduled_pickup_at: iso(d.scheduled_pickup_at),
    scheduled_delivery_at: iso(d.scheduled_delivery_at),
    tracking_url: trackingUrl(baseUrl, d.id),
    ...(full ? { delivery_pin: d.delivery_pin, metadata: d.metadata } : {}),
    events: events
      .filter((e) => !isHiddenFromRecipient(e))
      .map((e) => ({ id: e.id, event_type: e.event_type, occurred_at: e.occurred_at.toISOString() })),
  };
}

/** The public tracking view: nothing internal. Ignored fleet events are not part of the recipient's timeline. */
export function toTracking(d: Pick<DeliveryRow, 'reference' | 'status'>, events: DeliveryEventRow[]) {
  return {
    reference: d.reference,
    status: d.status,
    events: events
      .filter((e) => !isHiddenFromRecipient(e))
      .map((e) => ({ event_type: e.event_type, occurred_at: e.occurred_at.toISOString() })),
  };
}

/** Final statuses: nothing more is expected of the courier. */
const FINISHED = ['delivered', 'cancelled', 'failed'];

/**
 * When the parcel is expected, for the recipient: the latest arrival time the courier sent (`payload.courier.eta` of
 * an event that was not ignored), else the delivery time the merchant scheduled, else the quote's estimate from the
 * pickup time (or creation). Null once the delivery is over, or when nothing says.
 */
export function expectedDeliveryAt(
  d: DeliveryRow,
  events: DeliveryEventRow[],
  quotedEtaMinutes: number | null,
): Date | null {
  if (FINISHED.includes(d.status)) return null;
  for (const e of [...events].reverse()) {
    const eta = isIgnored(e) ? undefined : (e.payload?.courier as { eta?: unknown } | undefined)?.eta;
    if (typeof eta === 'string' && !Number.isNaN(Date.parse(eta))) return new Date(eta);
  }
  if (d.scheduled_delivery_at) return d.scheduled_delivery_at;
  if (quotedEtaMinutes === null) return null;
  return clampDate((d.scheduled_pickup_at ?? d.inserted_at).getTime() + quotedEtaMinutes * 60_000);
}
