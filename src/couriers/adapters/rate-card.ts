// The `rate_card` adapter: the service prices from the company's rate card itself; no upstream call.
//
// Arithmetic (integer centavos and whole minutes throughout; docs/quotes.md "Rate-card arithmetic"):
//   fee  = base_fee_aoa
//        + distance fee:  when both addresses carry coordinates: per_km_aoa x ceil(haversine km)   (every started km)
//                         else the zone table zone_fees_aoa: "OriginCity>DestCity", else (same city) "City",
//                         else the same with provinces; no match: no distance fee
//        + weight fee:    per_kg_aoa x ceil((weight_grams - per_kg_threshold_grams) / 1000)     (every started kg above)
//   eta  = base_eta_minutes + ceil(eta_minutes_per_km x haversine km)   (0 without coordinates)
// Coverage: origin and destination must each match a service zone by city or province (empty zones: everywhere);
// weight <= capabilities.max_weight_grams; parcel.parcel_type (when sent) in capabilities.parcel_types (when set).
// Names compare case- and accent-insensitively ("Huíla" = "huila"). Cannot carry: quote() returns null.
//
// Booking: with an `endpoint`, through the courier protocol (like the http adapter); without one "by fleet":
// the job is the delivery's reference and the fleet's `assigned` event will follow.
import type { RecipientUpdate } from '../../../shared/deliveries/vocabulary.js';
import { z } from 'zod';
import type { CourierRow } from '../repository.js';
import type { Address, Parcel } from '../schemas.js';
import {
  CourierUnavailableError,
  type BookingRequest,
  type BookingResult,
  type CourierAdapter,
  type CourierQuote,
  type QuoteRequest,
} from './adapter.js';
import { HttpCourierAdapter, type HttpAdapterOptions } from './http.js';

const centavos = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** The stored rate card (courier_companies.rate_card), validated: a malformed card makes the company unavailable, never a wrong price. */
export const RateCardSchema = z.object({
  per_km_aoa: centavos.optional(),
  zone_fees_aoa: z.record(z.string(), centavos).optional(),
  per_kg_aoa: centavos.optional(),
  per_kg_threshold_grams: z.number().int().nonnegative().optional(),
  eta_minutes_per_km: z.number().nonnegative().max(10_000).optional(),
  return_fee_pct: z.int().min(0).max(1000).optional(),
});

/** A return to sender's fee: the quote for the swapped route times the card's return_fee_pct (default 100), rounded. */
export function returnFee(quotedAoa: number, card: { return_fee_pct?: number } | null | undefined): number {
  const pct = card?.return_fee_pct ?? 100;
  return Math.round((quotedAoa * pct) / 100);
}
export type RateCardInput = z.infer<typeof RateCardSchema>;

/** Everything the price depends on: the card plus the company's base fee, base ETA, zones and capabilities. */
export interface PricingInput {
  base_fee_aoa?: number | null;
  base_eta_minutes?: number | null;
  service_zones?: string[];
  max_weight_grams?: number | null;
  parcel_types?: string[] | null;
  rate_card: RateCardInput;
}

export type Priced =
  | {
      ok: true;
      fee_aoa: number;
      eta_minutes: number;
      distance_km: number | null;
      breakdown: { base: number; distance: number; weight: number };
    }
  | { ok: false; reason: 'zone' | 'weight' | 'parcel_type' };

const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance in km between two coordinates. */
export function haversineKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Case- and accent-insensitive form of a place name. */
export const placeKey = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');

/** ceil that ignores floating-point dust (2.0000000000000004 km is 2 started km, not 3). */
const ceilClean = (x: number): number => Math.ceil(Math.round(x * 1e6) / 1e6);

function zoneFee(table: Record<string, number> | undefined, origin: Address, destination: Address): number {
  if (!table) return 0;
  const byKey = new Map(Object.entries(table).map(([k, v]) => [k.split('>').map(placeKey).join('>'), v]));
  const pairs: [string, string][] = [
    [placeKey(origin.city), placeKey(destination.city)],
    [placeKey(origin.province), placeKey(destination.province)],
  ];
  for (const [from, to] of pairs) {
    const pair = byKey.get(`${from}>${to}`);
    if (pair !== undefined) return pair;
    if (from === to) {
      const single = byKey.get(from);
      if (single !== undefined) return single;
    }
  }
  return 0;
}

function covers(zones: string[] | undefined, address: Address): boolean {
  if (!zones || zones.length === 0) return true;
  const keys = new Set(zones.map(placeKey));
  return keys.has(placeKey(address.city)) || keys.has(placeKey(address.province));
}

/** Prices one request from a rate card. Pure: the unit tests check its arithmetic on known cases. */
export function priceFromRateCard(
  input: PricingInput,
  request: { origin: Address; destination: Address; parcel: Parcel },
): Priced {
  const { origin, destination, parcel } = request;
  if (!covers(input.service_zones, origin) || !covers(input.service_zones, destination))
    return { ok: false, reason: 'zone' };
  if (input.max_weight_grams != null && parcel.weight_grams > input.max_weight_grams)
    return { ok: false, reason: 'weight' };
  if (parcel.parcel_type && input.parcel_types && input.parcel_types.length > 0) {
    const wanted = placeKey(parcel.parcel_type);
    if (!input.parcel_types.some((t) => placeKey(t) === wanted)) return { ok: false, reason: 'parcel_type' };
  }
  const card = input.rate_card;
  const base = input.base_fee_aoa ?? 0;

  let distanceKm: number | null = null;
  let distance = 0;
  if (origin.coordinates && destination.coordinates) {
    distanceKm = haversineKm(origin.coordinates, destination.coordinates);
    distance = (card.per_km_aoa ?? 0) * ceilClean(distanceKm);
  } else {
    distance = zoneFee(card.zone_fees_aoa, origin, destination);
  }

  const threshold = card.per_kg_threshold_grams ?? 0;
  const above = parcel.weight_grams - threshold;
  const weight = above > 0 ? (card.per_kg_aoa ?? 0) * Math.ceil(above / 1000) : 0;

  const eta =
    (input.base_eta_minutes ?? 0) + (distanceKm === null ? 0 : ceilClean((card.eta_minutes_per_km ?? 0) * distanceKm));
  return {
    ok: true,
    fee_aoa: base + distance + weight,
    eta_minutes: eta,
    distance_km: distanceKm,
    breakdown: { base, distance, weight },
  };
}

export class RateCardAdapter implements CourierAdapter {
  private readonly http: HttpCourierAdapter | null;

  constructor(
    readonly courier: CourierRow,
    options: HttpAdapterOptions = {},
  ) {
    this.http = courier.endpoint ? new HttpCourierAdapter(courier, options) : null;
  }

  async quote(request: QuoteRequest): Promise<CourierQuote | null> {
    const card = RateCardSchema.safeParse(this.courier.rate_card ?? {});
    if (!card.success) throw new CourierUnavailableError(this.courier.slug, 'rate card is malformed');
    const priced = priceFromRateCard(
      {
        base_fee_aoa: this.courier.base_fee_aoa,
        base_eta_minutes: this.courier.base_eta_minutes,
        service_zones: this.courier.service_zones,
        max_weight_grams: this.courier.capabilities?.max_weight_grams ?? null,
        parcel_types: this.courier.capabilities?.parcel_types ?? null,
        rate_card: card.data,
      },
      request,
    );
    if (!priced.ok) return null;
    // An absurd card (e.g. a huge per-km fee) must not reach the bigint/integer columns as an unsafe number.
    if (
      !Number.isSafeInteger(priced.fee_aoa) ||
      !Number.isSafeInteger(priced.eta_minutes) ||
      priced.eta_minutes > 2_147_483_647
    ) {
      throw new CourierUnavailableError(this.courier.slug, 'rate card yields a price out of range');
    }
    return { fee_aoa: priced.fee_aoa, eta_minutes: priced.eta_minutes, upstream_ref: null };
  }

  async book(request: BookingRequest): Promise<BookingResult> {
    if (this.http) return this.http.book(request);
    return { tracking_ref: request.reference, status: 'pending' };
  }

  async cancel(trackingRef: string): Promise<'cancelled' | 'refused'> {
    if (this.http) return this.http.cancel(trackingRef);
    return 'cancelled';
  }

  /** With an endpoint, the courier hears of the recipient's answers; without one, nobody is there to call. */
  async update(trackingRef: string, update: RecipientUpdate): Promise<'sent' | 'refused'> {
    if (this.http) return this.http.update(trackingRef, update);
    return 'sent';
  }
}
