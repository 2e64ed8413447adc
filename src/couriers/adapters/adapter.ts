// One small interface in front of every courier company, whatever its adapter:
//   rate_card  the service prices from the company's rate card (rate-card.ts)
//   http       the company's own API, spoken through the courier protocol of design.md (http.ts)
//   simulated  the built-in test couriers of test mode (simulated.ts)
// The quote service, the API's quotes route and the delivery workflow's dispatch all go through this.
import type { RecipientUpdate } from '../../../shared/deliveries/vocabulary.js';
import type { Address, Parcel } from '../schemas.js';

/** What an adapter is asked to price: the body of POST /v1/quotes (src/quotes/schemas.ts QuoteRequestBody). */
export interface QuoteRequest {
  origin: Address;
  destination: Address;
  parcel: Parcel;
}

export interface CourierQuote {
  fee_aoa: number;
  eta_minutes: number;
  /** Upstream validity; shortens the service's default quote validity. */
  valid_for_seconds?: number;
  /** The courier's own reference for the quote, when it gives one. */
  upstream_ref?: string | null;
}

export interface BookingRequest {
  delivery_id: string;
  reference: string;
  origin: Address;
  destination: Address;
  parcel: Parcel;
  payment_method: 'prepaid' | 'bank_transfer' | 'cod';
  cash_collect_aoa: number | null;
  scheduled_pickup_at: string | null;
  /** Where the courier sends fleet events: `{base_url}/v1/fleet/{slug}/events`. */
  callback_url: string;
  /**
   * `<delivery id>.<booking number>`, sent as the `Idempotency-Key` header: the same on every retry of one booking, a
   * new number for each redispatch, so a booking whose answer was lost never makes a courier send a second driver.
   */
  idempotency_key: string;
}

export interface BookingResult {
  /** The courier's reference for the job; fleet events name it. A company booked "by fleet" uses the delivery reference. */
  tracking_ref: string;
  /** `accepted`: assigned at once. `pending`: the fleet `assigned` event will follow. */
  status: 'accepted' | 'pending';
}

export interface CourierAdapter {
  /** A price, or null when the company cannot carry this parcel (zones, weight, parcel type). Throws CourierUnavailableError. */
  quote(request: QuoteRequest): Promise<CourierQuote | null>;
  /** Throws CourierRejectedError when the courier refuses (4xx), CourierUnavailableError when it failed (retryable). */
  book(request: BookingRequest): Promise<BookingResult>;
  /** `refused` when the courier will not cancel (409). Throws CourierUnavailableError when it failed. */
  cancel(trackingRef: string): Promise<'cancelled' | 'refused'>;
  /**
   * Passes the recipient's answers on to a booked job (`POST {endpoint}/bookings/{ref}/updates`): `refused` when the
   * courier says no (4xx: an unknown or finished job). Throws CourierUnavailableError when it failed (retryable).
   */
  update(trackingRef: string, update: RecipientUpdate): Promise<'sent' | 'refused'>;
}

/** The courier failed: timeout, network error, 5xx, or an answer that is not the protocol. Retrying may help. */
export class CourierUnavailableError extends Error {
  constructor(
    readonly slug: string,
    message: string,
  ) {
    super(`${slug}: ${message}`);
    this.name = 'CourierUnavailableError';
  }
}

/** The courier answered and said no (4xx). Retrying will not help. */
export class CourierRejectedError extends Error {
  constructor(
    readonly slug: string,
    readonly status: number,
    message: string,
  ) {
    super(`${slug}: ${message}`);
    this.name = 'CourierRejectedError';
  }
}
