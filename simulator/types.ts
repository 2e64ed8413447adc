// The simulator's shapes: a company's configuration, its bookings and the events it sent, the control surface.
import type { FleetEventType } from '../shared/deliveries/vocabulary.js';

export type { FleetEventType };
export type ProtocolCall = 'quotes' | 'bookings' | 'cancel';
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
  /** Auto-progress has an event scheduled or on its way; false once the chain has stopped (end, stop_after, PIN, cancel). */
  progressing: boolean;
  events: SentEvent[];
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
}

export interface Simulator {
  url: string;
  port: number;
  /** `{url}/{slug}`: the company's endpoint for courier_companies.endpoint. */
  endpoint(slug: string): string;
  control: SimulatorControl;
  close(): Promise<void>;
}
