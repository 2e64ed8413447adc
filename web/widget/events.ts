// The details of the events the widget dispatches (bubbling, composed): the shop's page listens to them (docs/widget.md).
import type { WidgetError } from './api';
import type { Delivery, Quote, QuoteBody } from './types';

/**
 * `quote-selected`: everything a shop's server needs to book this quote later (POST /v1/deliveries within
 * valid_until): the quote, and the origin, destination and parcel exactly as quoted.
 */
export function quoteSelectedDetail(q: Quote, quoted: QuoteBody) {
  return {
    quote: { ...q },
    quote_id: q.quote_id,
    company_id: q.company_id,
    company_name: q.company_name ?? null,
    fee_aoa: q.fee_aoa,
    eta_minutes: q.eta_minutes,
    valid_until: q.valid_until,
    origin: quoted.origin,
    destination: quoted.destination,
    parcel: quoted.parcel,
  };
}

/** `delivery-created`: the booked delivery, with its PIN and client secret (shown once). */
export function deliveryCreatedDetail(d: Delivery, quote: Quote) {
  return {
    id: d.id,
    reference: d.reference,
    status: d.status,
    tracking_url: d.tracking_url ?? null,
    delivery_pin: d.delivery_pin ?? null,
    client_secret: d.client_secret ?? null,
    fee_aoa: d.quoted_fee_aoa ?? quote.fee_aoa,
    quote_id: quote.quote_id,
    company_id: quote.company_id,
    company_name: quote.company_name ?? null,
  };
}

export function errorDetail(e: WidgetError) {
  return { code: e.code, status: e.status, message: e.message, detail: e.apiDetail ?? null, errors: e.errors ?? null };
}
