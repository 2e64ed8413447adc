// The requests the widget sends, read from its attributes (the shop's settings), the page's fields and its own form.
import type { FieldName } from './fields';
import type { Strings } from './strings';
import type { Address, DeliveryRequest, Parcel, Quote, QuoteBody } from './types';

/** The element's getAttribute. */
export type Attr = (name: string) => string | null;

/** The settings the shop must give (attribute names), none when all are there. */
export function missingSettings(attr: Attr, apiBase: string): string[] {
  const missing = ['publishable-key', 'origin-address-line', 'origin-city', 'origin-province'].filter(
    (a) => !attr(a)?.trim(),
  );
  if (!apiBase) missing.push('api-base');
  return missing;
}

/** The parcel's weight when the shop sets it (`weight-grams`): the form then asks for none. */
export function staticWeightGrams(attr: Attr): number | null {
  const raw = attr('weight-grams');
  if (raw === null) return null;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : null;
}

export function intAttr(attr: Attr, name: string): number | undefined {
  const raw = attr(name);
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** The shopper's destination and the parcel's weight, with the fields missing or wrong (in the form's order). */
export function readShopperFields(value: (name: FieldName) => string, attr: Attr, t: Strings) {
  const invalid: [FieldName, string][] = [];
  const required = (name: FieldName) => {
    const v = value(name);
    if (!v) invalid.push([name, t.required]);
    return v;
  };
  const name = required('name');
  const phone = required('phone');
  if (phone && !/^\+?[\d\s().-]{9,20}$/.test(phone)) invalid.push(['phone', t.badPhone]);
  const address_line = required('address_line');
  const city = required('city');
  const province = required('province');
  let weight_grams = staticWeightGrams(attr);
  if (weight_grams === null) {
    const raw = required('weight').replace(',', '.');
    const kg = Number(raw);
    if (raw && (!/^\d+(\.\d+)?$/.test(raw) || !(kg > 0) || kg > 10_000)) invalid.push(['weight', t.badWeight]);
    weight_grams = Math.max(1, Math.round(kg * 1000));
  }
  const destination: Address = { address_line, city, province, contact: { name, phone } };
  return { destination, weight_grams, invalid };
}

/** The shop's address (the pickup), from the origin-* attributes. */
export function readOrigin(attr: Attr): Address {
  const origin: Address = {
    address_line: attr('origin-address-line')!.trim(),
    city: attr('origin-city')!.trim(),
    province: attr('origin-province')!.trim(),
  };
  const lat = Number(attr('origin-lat') ?? NaN);
  const lng = Number(attr('origin-lng') ?? NaN);
  if (attr('origin-lat') && attr('origin-lng') && Number.isFinite(lat) && Number.isFinite(lng))
    origin.coordinates = { lat, lng };
  const originName = attr('origin-contact-name')?.trim();
  const originPhone = attr('origin-contact-phone')?.trim();
  if (originName || originPhone)
    origin.contact = { ...(originName ? { name: originName } : {}), ...(originPhone ? { phone: originPhone } : {}) };
  return origin;
}

/** The parcel: its weight, the description (the shop's, else the shopper's), declared value and dimensions. */
export function readParcel(attr: Attr, weight_grams: number, shopperDescription: () => string): Parcel {
  const parcel: Parcel = { weight_grams };
  const description = attr('parcel-description')?.trim() || shopperDescription();
  if (description) parcel.description = description;
  const declared = intAttr(attr, 'declared-value-aoa');
  if (declared !== undefined) parcel.declared_value_aoa = declared;
  for (const dim of ['length_cm', 'width_cm', 'height_cm'] as const) {
    const v = intAttr(attr, dim.replace('_', '-'));
    if (v !== undefined && v > 0) parcel[dim] = v;
  }
  return parcel;
}

/** POST /v1/widget/deliveries: the chosen quote, exactly what was quoted, and the shop's payment and order id. */
export function bookingRequest(attr: Attr, quote: Quote, body: QuoteBody): DeliveryRequest {
  const request: DeliveryRequest = { quote_id: quote.quote_id, company_id: quote.company_id, ...body };
  const payment = attr('payment-method');
  if (payment === 'prepaid' || payment === 'bank_transfer' || payment === 'cod') request.payment_method = payment;
  if (payment === 'cod') request.cash_collect_aoa = intAttr(attr, 'cash-collect-aoa') ?? null;
  const orderId = attr('order-id');
  if (orderId) request.options = { metadata: { order_id: orderId } };
  return request;
}
