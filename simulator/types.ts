// The simulator's shapes: a company's configuration, its bookings and the events it sent, the control surface.
import type { FleetEventType } from '../shared/deliveries/vocabulary.js';

export type { FleetEventType };
export type ProtocolCall = 'quotes' | 'bookings' | 'cancel' | 'updates';
export type GarbageMode = 'json' | 'html' | 'truncated' | 'wrong_types' | 'empty';

export interface Pricing {
  base_fee_aoa?: number;
  per_km_aoa?: number;
  per_kg_aoa?: number;
  per_kg_threshold_grams?: number;
  zone_fees_aoa?: Record<string, number>;
  base_eta_minutes?: number;
  eta_minutes_per_km?: number;
}

export interface AutoProgress {
  /** Pause before each event, ms (default 1000). */
  delay_ms?: number;
  /** How the job ends (default `delivered`). */
  outcome?: 'delivered' | 'failed';
  /** Stop after sending this event; the rest is up to the control API. */
  stop_after?: FleetEventType;
  /** PIN to put in `delivered` when none was registered for the booking (e.g. to test a wrong PIN). */
  pin?: string;
  /** Delivery attempts that fail (`attempt_failed` after `out_for_delivery`, then `out_for_delivery` again). */
  failed_attempts?: FailedAttempts;
}

/**
 * Which delivery attempts fail and why. An attempt fails when it is one of the `first` ones, else with probability
 * `rate`; its reason is the next of `reasons`, in turn. The job stops after `max` failed attempts or a refusal
 * (`recipient_refused`, `cod_refused`): the service then fails the delivery and books its return, itself a booking.
 */
export interface FailedAttempts {
  /** Share (0..1) of attempts that fail (default 0). */
  rate?: number;
  /** The first this many attempts fail, whatever `rate` (default 0). */
  first?: number;
  /** Reasons, used in turn (default `recipient_unavailable`). */
  reasons?: string[];
  /** Failed attempts after which the job stops (default 2, the service's default max_delivery_attempts). */
  max?: number;
  /**
   * Whether returns to sender (bookings whose reference ends in `-R`, design.md) fail attempts too (default true);
   * false: a return is delivered at its first attempt (the crash tests' returns all come back).
   */
  returns?: boolean;
}

export interface CompanyConfig {
  slug: string;
  name?: string;
  /** `whsec_...`: signs fleet events; the API knows it as courier_companies.fleet_secret. */
  fleet_secret: string;
  pricing?: Pricing;
  /** Cities or provinces served; empty or absent: everywhere. Outside: quotes answer 422. */
  service_zones?: string[];
  max_weight_grams?: number | null;
  parcel_types?: string[] | null;
  /** Delay before every protocol answer, ms. */
  latency_ms?: number;
  /** Share (0..1) of protocol calls answered 503. */
  failure_rate?: number;
  /** Accept protocol calls and never answer. */
  hang?: boolean;
  /** Answer 200 with something that is not the protocol. `true` = `json`. */
  garbage?: false | true | GarbageMode;
  /** Which protocol calls latency/failure_rate/hang/garbage apply to (default: all). */
  faults_on?: ProtocolCall[];
  /** Refuse every booking with this status (true = 409). */
  reject_bookings?: false | true | 409 | 422;
  refuse_cancellation?: boolean;
  /** Informational here: the API keeps the PIN; the simulator puts the registered PIN in `delivered`. */
  require_delivery_pin?: boolean;
  /** Booking answer status (default `accepted`); `pending` makes auto-progress start with `assigned`. */
  booking_status?: 'accepted' | 'pending';
  /** In quote answers (default 900); null leaves it out. */
  valid_for_seconds?: number | null;
  /** false (default): no events unless asked through the control API. */
  auto_progress?: false | AutoProgress;
  /**
   * The proof of delivery `delivered` events carry (simulator/proof.ts): true (default) a made-up one, false none, an
   * object that one (sent as is, so a test can send a bad one).
   */
  proof_of_delivery?: boolean | Record<string, unknown>;
  /** Cash on delivery: the courier reports this many centavos less than expected at `delivered` (a short payment). */
  cod_short_payment_aoa?: number;
}

/** What POST /_control/{slug}/remit takes: which jobs (default: every delivered cash job not yet remitted), the fee kept per job. */
export interface RemitInput {
  tracking_refs?: string[];
  remittance_ref?: string;
  fee_deducted_aoa?: number;
  method?: 'bank_transfer' | 'cash' | 'multicaixa_express';
}

export interface RemitResult {
  remittance_ref: string;
  tracking_refs: string[];
  /** The API's answer (null: nothing to remit). */
  status: number | null;
  body: unknown;
}

export interface SentEvent {
  webhook_id: string;
  event_type: string;
  occurred_at: string;
  payload: Record<string, unknown>;
  /** The receiver's HTTP status, or null when the request failed. */
  response_status: number | null;
  error?: string;
  attempts: number;
}

export interface BookingRecord {
  tracking_ref: string;
  delivery_id: string;
  reference: string;
  callback_url: string;
  status: 'accepted' | 'pending' | 'cancelled';
  /** What the booking answered first: a repeated Idempotency-Key gets the same answer. */
  first_status: 'accepted' | 'pending';
  /** The booking's `Idempotency-Key` (`<delivery id>.<booking number>`), null when the caller sent none. */
  idempotency_key: string | null;
  /** How many times the booking was asked for again (a retry under the same key, or the same delivery without one). */
  repeated: number;
  created_at: string;
  request: Record<string, unknown>;
  /** PIN registered through the control API (never sent to couriers by the service). */
  pin: string | null;
  /** Auto-progress reached `delivered` but has no PIN yet: waits for /pins or /deliver. */
  waiting_for_pin: boolean;
  /** Delivery attempts of this job that failed (auto-progress `failed_attempts`). */
  failed_attempts?: number;
  /** Auto-progress has an event scheduled or on its way; false once the chain has stopped (end, stop_after, PIN, cancel). */
  progressing: boolean;
  events: SentEvent[];
  /** Cash on delivery: the cash `delivered` reported, and the remittance that handed it over. */
  cash_collected_aoa?: number;
  remittance_ref?: string;
  /** The recipient's answers the service passed on (POST /bookings/{ref}/updates), oldest first. */
  updates: RecipientUpdateRecord[];
}

/** One POST /bookings/{ref}/updates as received. */
export interface RecipientUpdateRecord {
  received_at: string;
  instructions?: string;
  destination_coordinates?: { lat: number; lng: number };
  preferred_window?: { date: string; from: string; to: string };
}

export interface SimulatorOptions {
  port?: number;
  host?: string;
  companies: CompanyConfig[];
  /** Retries of an auto-progress event the receiver did not take (network error, 404, 408, 429 or 5xx) (default 3). */
  eventRetries?: number;
  /** Pause between those retries, ms (default 1000). */
  eventRetryDelayMs?: number;
  log?: (line: string) => void;
  /** Waits `ms` (a company's latency_ms, the pause between event retries) [a timer]; tests pass one that records them. */
  sleep?: (ms: number) => Promise<void>;
}

/** A company's configuration, its bookings and its call counts. */
export interface CompanyState {
  initial: CompanyConfig;
  config: CompanyConfig;
  bookings: Map<string, BookingRecord>;
  byDelivery: Map<string, string>;
  /** Idempotency-Key -> tracking_ref: one job per key. */
  byKey: Map<string, string>;
  stats: Record<ProtocolCall, number>;
}

export interface SimulatorControl {
  companies(): CompanyConfig[];
  /** Adds or replaces a company. */
  upsert(config: CompanyConfig): void;
  /** Changes a company's behaviour (shallow merge). */
  configure(slug: string, patch: Partial<CompanyConfig>): CompanyConfig;
  /** Back to the configuration it started with; bookings are kept. */
  reset(slug: string): CompanyConfig;
  bookings(slug: string): BookingRecord[];
  booking(slug: string, trackingRef: string): BookingRecord | null;
  stats(slug: string): Record<ProtocolCall, number>;
  /** Sends one signed fleet event to the booking's callback_url, once. */
  sendEvent(
    slug: string,
    input: { tracking_ref: string; event_type: string; payload?: Record<string, unknown>; occurred_at?: string },
  ): Promise<SentEvent>;
  /** Registers the PIN the recipient told the driver; a job waiting for it is delivered. */
  setPin(slug: string, trackingRef: string, pin: string): Promise<SentEvent | null>;
  /** Sends `delivered` with payload.pin (the given one, else the registered one). */
  deliver(slug: string, trackingRef: string, pin?: string): Promise<SentEvent>;
  /** Cash on delivery: reports the company's delivered cash jobs as one signed remittance to the API. */
  remit(slug: string, input?: RemitInput): Promise<RemitResult>;
}

export interface Simulator {
  url: string;
  port: number;
  /** `{url}/{slug}`: the company's endpoint for courier_companies.endpoint. */
  endpoint(slug: string): string;
  control: SimulatorControl;
  close(): Promise<void>;
}
