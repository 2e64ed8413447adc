// The delivery workflow's state, in one place: the columns of design.md's state table that the workflow owns.
// One run holds it; at continue-as-new it travels to the next run in the input (`continued`).
import type {
  DeliveryContinuedState,
  DeliveryInboxItem,
  DeliveryStateView,
  DeliveryWorkflowInput,
} from '../../shared/deliveries/definitions.js';
import type { Status } from '../../shared/deliveries/vocabulary.js';

/** Fleet webhook-ids a run hands over to the next one at continue-as-new (the most recent ones). */
const SEEN_WEBHOOK_IDS_CARRIED = 1000;

/** The fields of DeliveryContinuedState (definitions.ts), held live by one run; the constructor sets every one. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- declares the class's fields, all set in its constructor
export interface DeliveryState extends Omit<
  DeliveryContinuedState,
  'inbox' | 'seenWebhookIds' | 'redispatchedFrom' | 'bookedAt' | 'bookingNumber' | 'failedAttempts'
> {
  redispatchedFrom: string[];
  bookedAt: number | null;
  bookingNumber: number;
  failedAttempts: number;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class DeliveryState {
  readonly inbox: DeliveryInboxItem[];
  /** Fleet webhook-ids seen: a courier retrying an event after a lost answer counts once. */
  readonly seenWebhookIds: Set<string>;

  /** A run that continues an earlier one (continue-as-new) starts from the state that run handed over. */
  constructor(input: DeliveryWorkflowInput) {
    const carried = input.continued;
    this.status = carried?.status ?? input.initialStatus;
    this.previousStatus = carried?.previousStatus ?? null;
    this.companyId = carried?.companyId ?? input.companyId;
    this.trackingRef = carried?.trackingRef ?? null;
    this.enteredAt = carried?.enteredAt ?? Date.now();
    this.slaStalled = carried?.slaStalled ?? false;
    this.needsDispatch = carried ? carried.needsDispatch : this.status === 'pending';
    this.pinAttempts = carried?.pinAttempts ?? 0;
    this.inbox = [...(carried?.inbox ?? [])];
    this.seenWebhookIds = new Set(carried?.seenWebhookIds ?? []);
    this.redispatchedFrom = [...(carried?.redispatchedFrom ?? [])];
    this.bookedAt = carried?.bookedAt ?? null;
    this.bookingNumber = carried?.bookingNumber ?? 1;
    this.failedAttempts = carried?.failedAttempts ?? 0;
  }

  /** A redispatch: the next booking is a new one for the courier (a new `Idempotency-Key`). */
  nextBooking(): void {
    this.trackingRef = null;
    this.bookedAt = null;
    this.needsDispatch = true;
    this.bookingNumber += 1;
  }

  /** Enters another status: its time budget starts now. */
  enter(to: Status): void {
    this.status = to;
    this.enteredAt = Date.now();
  }

  /** What the `state` query answers. */
  view(): DeliveryStateView {
    return {
      status: this.status,
      previousStatus: this.previousStatus,
      trackingRef: this.trackingRef,
      companyId: this.companyId,
    };
  }

  /** What the next run starts from (continue-as-new). */
  handOver(): DeliveryContinuedState {
    return {
      status: this.status,
      previousStatus: this.previousStatus,
      companyId: this.companyId,
      trackingRef: this.trackingRef,
      enteredAt: this.enteredAt,
      slaStalled: this.slaStalled,
      needsDispatch: this.needsDispatch,
      pinAttempts: this.pinAttempts,
      inbox: [...this.inbox],
      seenWebhookIds: [...this.seenWebhookIds].slice(-SEEN_WEBHOOK_IDS_CARRIED),
      redispatchedFrom: [...this.redispatchedFrom],
      bookedAt: this.bookedAt,
      bookingNumber: this.bookingNumber,
      failedAttempts: this.failedAttempts,
    };
  }
}
