// The `simulated` adapter: the test couriers built into the service (docs/test-mode.md). Test keys quote and book
// only these, so an integration is built without a real courier ever being asked; they run inside the API and the
// worker, in every deployment (the courier simulator of simulator/ is a separate process for dev and tests only).
//
// Their rows (migrations/1700000004100_simulated-couriers.sql) hold what the API shows of them and their rate card; what they
// do is decided here, by slug:
//   test-auto           accepts; then moves by itself to `delivered` within a minute (SIMULATED_COURIER_STEP_MS apart)
//   test-manual         accepts (assigned at once); then waits for the test helpers
//   test-pin            like test-manual, and `delivered` needs the delivery PIN (POST .../advance {"to":"delivered","pin"})
//   test-never-assigns  books the job as `pending` and never assigns a driver: the delivery stays pending until its
//                       state budget stalls it (or a test helper advances it)
//   test-rejects        refuses every booking (422): the delivery stalls with reason `courier_rejected`
//   test-slow-quotes    quotes only parcels with `parcel_type: "slow_quote"`, after SLOW_QUOTE_MS; books like test-manual
// Movement of test-auto is a small workflow per booking (workflows/simulated-couriers), sending the delivery workflow
// the fleet events a courier's POST /v1/fleet/{slug}/events would.
import type { CourierRow } from '../repository.js';
import type { FleetEventType } from '../../../shared/deliveries/vocabulary.js';
import {
  CourierRejectedError,
  type BookingRequest,
  type BookingResult,
  type CourierAdapter,
  type CourierQuote,
  type QuoteRequest,
} from './adapter.js';
import { RateCardAdapter } from './rate-card.js';

/** How long test-slow-quotes takes to answer a quote (its row's timeout is 5 s). */
export const SLOW_QUOTE_MS = 3000;
/** The parcel_type test-slow-quotes answers for; every other simulated courier carries it too. */
export const SLOW_QUOTE_PARCEL_TYPE = 'slow_quote';

interface Behaviour {
  /** The booking answer: `accepted` assigns at once, `pending` waits for an `assigned` that this courier never sends by itself. */
  booking: 'accepted' | 'pending' | 'rejected';
  /** Fleet events it sends by itself after booking, one every SIMULATED_COURIER_STEP_MS. */
  moves: FleetEventType[];
  /** Quotes only parcels of this parcel_type, after SLOW_QUOTE_MS. */
  slowQuotesFor?: string;
}

const BEHAVIOURS: Record<string, Behaviour> = {
  'test-auto': { booking: 'accepted', moves: ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered'] },
  'test-manual': { booking: 'accepted', moves: [] },
  'test-pin': { booking: 'accepted', moves: [] },
  'test-never-assigns': { booking: 'pending', moves: [] },
  'test-rejects': { booking: 'rejected', moves: [] },
  'test-slow-quotes': { booking: 'accepted', moves: [], slowQuotesFor: SLOW_QUOTE_PARCEL_TYPE },
};
/** A simulated row this code does not know (added by hand) waits for the test helpers. */
const DEFAULT_BEHAVIOUR: Behaviour = { booking: 'accepted', moves: [] };

const behaviourOf = (slug: string): Behaviour => BEHAVIOURS[slug] ?? DEFAULT_BEHAVIOUR;

/** The fleet events a simulated courier sends by itself once booked (empty: it waits for the test helpers). */
export const simulatedMoves = (slug: string): FleetEventType[] => [...behaviourOf(slug).moves];

/** The job reference a simulated courier gives a delivery: the same on every retry of the booking. */
export const simulatedTrackingRef = (reference: string) => `TEST-${reference}`;

export class SimulatedCourierAdapter implements CourierAdapter {
  private readonly behaviour: Behaviour;
  private readonly pricing: RateCardAdapter;

  constructor(readonly courier: CourierRow) {
    this.behaviour = behaviourOf(courier.slug);
    // Priced from its rate card like a rate_card company; it has no endpoint, so nothing is called.
    this.pricing = new RateCardAdapter({ ...courier, endpoint: null });
  }

  async quote(request: QuoteRequest): Promise<CourierQuote | null> {
    const wanted = this.behaviour.slowQuotesFor;
    if (wanted !== undefined && request.parcel.parcel_type !== wanted) return null;
    const quote = await this.pricing.quote(request);
    if (wanted !== undefined) await new Promise((resolve) => setTimeout(resolve, SLOW_QUOTE_MS));
    return quote;
  }

  async book(request: BookingRequest): Promise<BookingResult> {
    if (this.behaviour.booking === 'rejected') {
      throw new CourierRejectedError(
        this.courier.slug,
        422,
        `booking refused with HTTP 422: ${this.courier.slug} refuses every booking (test mode)`,
      );
    }
    return { tracking_ref: simulatedTrackingRef(request.reference), status: this.behaviour.booking };
  }

  async cancel(): Promise<'cancelled' | 'refused'> {
    return 'cancelled';
  }

  /** A test courier takes the recipient's answers (they are on the delivery's events). */
  async update(): Promise<'sent' | 'refused'> {
    return 'sent';
  }
}
