// In-memory stand-ins for the delivery workflow's activities (activities/deliveries/activities.ts), for the fast
// workflow tier (test/workflows/): no Postgres, no courier. Every call and every recorded event is kept in memory;
// each delivery's courier answers (dispatch, cancel) are scripted by the test.
import { ApplicationFailure } from '@temporalio/common';
import { EventEmitter } from 'node:events';
import type { DeliveryActivities, RecordInput } from '../../activities/deliveries/activities.js';
import type { CodActivities } from '../../activities/cod/activities.js';
import { CourierRejected, type RedispatchPlan } from '../../shared/deliveries/definitions.js';

export type Booking = Awaited<ReturnType<DeliveryActivities['dispatchDelivery']>>;
/** A dispatch answer: called with the attempt number (1 for the first call of this delivery). */
export type DispatchScript = (attempt: number, deliveryId: string) => Promise<Booking>;
/** `no_answer`: the call fails for good (non-retryable), as a courier that never answers ends up doing. */
export type CancelAnswer = 'cancelled' | 'refused' | 'no_answer';

/** An event as the workflow recorded it (recordEvent or recordIgnoredEvents), in order. */
export interface RecordedEvent {
  eventId: string;
  eventType: string;
  source: string;
  payload: Record<string, unknown>;
  toStatus: string | null;
  trackingRef?: string | null;
  companyId?: string;
}

export interface ActivityCall {
  name: keyof DeliveryActivities;
  input: Record<string, unknown>;
}

/** The tracking reference of a delivery's n-th booking (unique, so a cancel call names its delivery). */
export const trackingRefOf = (deliveryId: string, attempt = 1) => `TRK-${deliveryId.slice(0, 8)}-${attempt}`;

/** Ready-made courier answers to dispatch. */
export const courier = {
  /** Books the job; `accepted` assigns it at once, `pending` waits for the fleet's `assigned`. */
  books:
    (status: Booking['status'] = 'accepted'): DispatchScript =>
    async (attempt, deliveryId) => ({
      tracking_ref: trackingRefOf(deliveryId, attempt),
      status,
      courierName: 'Fake Courier',
    }),
  /** A 4xx from the courier: final, as the real activity reports it. */
  rejects: (): DispatchScript => async () => {
    throw ApplicationFailure.nonRetryable('fake courier: rejected (422)', CourierRejected, { status: 422 });
  },
  /** The courier is down: every attempt fails (retryable). */
  fails: (): DispatchScript => async () => {
    throw new Error('fake courier: unavailable');
  },
  /** Fails the first `n` attempts, then answers like `then`. */
  failsThen:
    (n: number, then: DispatchScript): DispatchScript =>
    async (attempt, deliveryId) => {
      if (attempt <= n) throw new Error(`fake courier: unavailable (attempt ${attempt})`);
      return then(attempt, deliveryId);
    },
};

/** A dispatch that waits until the test opens it: `started` resolves once the activity is in flight. */
export function gatedDispatch(then: DispatchScript = courier.books()) {
  let open!: () => void;
  let markStarted!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const dispatch: DispatchScript = async (attempt, deliveryId) => {
    markStarted();
    await opened;
    return then(attempt, deliveryId);
  };
  return { dispatch, started, open };
}

export class FakeDeliveryActivities {
  private readonly events = new Map<string, RecordedEvent[]>();
  private readonly calls = new Map<string, ActivityCall[]>();
  private readonly dispatchScripts = new Map<string, DispatchScript>();
  private readonly cancelAnswers = new Map<string, CancelAnswer[]>();
  private readonly redispatchPlans = new Map<string, RedispatchPlan[]>();
  /** tracking ref -> delivery id, for cancel calls (they name only the company and the job). */
  private readonly deliveryOfRef = new Map<string, string>();
  /** Companies an operator may redispatch to: company id -> slug (for any tenant). */
  readonly companies = new Map<string, string>();
  private readonly changed = new EventEmitter().setMaxListeners(0);

  /** Scripts a delivery's courier: its dispatch answer (default: books, accepted) and its cancel answers in order (the last repeats; default: cancelled). */
  script(
    deliveryId: string,
    script: { dispatch?: DispatchScript; cancel?: CancelAnswer[]; redispatch?: RedispatchPlan[] },
  ): void {
    if (script.dispatch) this.dispatchScripts.set(deliveryId, script.dispatch);
    if (script.cancel) this.cancelAnswers.set(deliveryId, [...script.cancel]);
    if (script.redispatch) this.redispatchPlans.set(deliveryId, [...script.redispatch]);
  }

  eventsOf(deliveryId: string): RecordedEvent[] {
    return [...(this.events.get(deliveryId) ?? [])];
  }

  eventTypesOf(deliveryId: string): string[] {
    return this.eventsOf(deliveryId).map((e) => e.eventType);
  }

  callsOf(deliveryId: string, name?: ActivityCall['name']): ActivityCall[] {
    return (this.calls.get(deliveryId) ?? []).filter((c) => !name || c.name === name);
  }

  /** Resolves with the delivery's events once `until` holds on them (checked on every new event); rejects after `timeoutMs`. */
  waitForEvents(
    deliveryId: string,
    until: (events: RecordedEvent[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<RecordedEvent[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const events = this.eventsOf(deliveryId);
        if (!until(events)) return false;
        clearTimeout(timer);
        this.changed.off(deliveryId, check);
        resolve(events);
        return true;
      };
      const timer = setTimeout(() => {
        this.changed.off(deliveryId, check);
        reject(
          new Error(
            `timed out waiting on the events of ${deliveryId}; recorded: ${this.eventTypesOf(deliveryId).join(', ') || 'none'}`,
          ),
        );
      }, timeoutMs);
      if (!check()) this.changed.on(deliveryId, check);
    });
  }

  /** Resolves once the delivery has recorded an event of this type (and matching `payload`, when given). */
  waitForEvent(deliveryId: string, eventType: string, payload: Record<string, unknown> = {}): Promise<RecordedEvent[]> {
    return this.waitForEvents(deliveryId, (events) =>
      events.some((e) => e.eventType === eventType && Object.entries(payload).every(([k, v]) => e.payload[k] === v)),
    );
  }

  private call(deliveryId: string, name: ActivityCall['name'], input: object) {
    const list = this.calls.get(deliveryId) ?? [];
    list.push({ name, input: { ...input } });
    this.calls.set(deliveryId, list);
  }

  private append(deliveryId: string, event: RecordedEvent): boolean {
    const list = this.events.get(deliveryId) ?? [];
    if (list.some((e) => e.eventId === event.eventId)) return false; // a retry: idempotent like the real one
    list.push(event);
    this.events.set(deliveryId, list);
    this.changed.emit(deliveryId);
    return true;
  }

  /** The implementations to register on a worker, typed like the real ones. */
  /** Cash on delivery's collection (the `collectCash` effect of `delivered`): the fast tier's deliveries hold no cash. */
  readonly codActivities: Pick<CodActivities, 'collectCash'> = {
    collectCash: async (input) => {
      this.cod.push(input.deliveryId);
      return { booked: false };
    },
  };
  /** The deliveries whose `delivered` asked to collect cash, in order. */
  readonly cod: string[] = [];

  readonly activities: DeliveryActivities = {
    recordEvent: async (input: RecordInput) => {
      this.call(input.deliveryId, 'recordEvent', input);
      const { eventId, eventType, source, toStatus, trackingRef, companyId } = input;
      const inserted = this.append(input.deliveryId, {
        eventId,
        eventType,
        source,
        payload: input.payload ?? {},
        toStatus,
        trackingRef,
        companyId,
      });
      return { inserted };
    },
    announceEvent: async (input) => {
      this.call(input.deliveryId, 'announceEvent', input);
    },
    recordIgnoredEvents: async (input) => {
      this.call(input.deliveryId, 'recordIgnoredEvents', input);
      let inserted = 0;
      for (const e of input.events) if (this.append(input.deliveryId, { ...e, toStatus: null })) inserted++;
      return { inserted };
    },
    dispatchDelivery: async (input) => {
      this.call(input.deliveryId, 'dispatchDelivery', input);
      const attempt = this.callsOf(input.deliveryId, 'dispatchDelivery').length;
      const booking = await (this.dispatchScripts.get(input.deliveryId) ?? courier.books())(attempt, input.deliveryId);
      this.deliveryOfRef.set(booking.tracking_ref, input.deliveryId);
      return booking;
    },
    cancelBooking: async (input) => {
      const deliveryId = this.deliveryOfRef.get(input.trackingRef) ?? 'unknown';
      this.call(deliveryId, 'cancelBooking', input);
      const answers = this.cancelAnswers.get(deliveryId) ?? ['cancelled'];
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      if (answer === 'no_answer')
        throw ApplicationFailure.nonRetryable('fake courier: no answer', 'CourierUnavailable');
      return answer;
    },
    sendCourierUpdate: async (input) => {
      const deliveryId = this.deliveryOfRef.get(input.trackingRef) ?? 'unknown';
      this.call(deliveryId, 'sendCourierUpdate', input);
      return 'sent';
    },
    planRedispatch: async (input) => {
      this.call(input.deliveryId, 'planRedispatch', input);
      // Automatic failover's answers in order (default: no company qualifies).
      return (
        this.redispatchPlans.get(input.deliveryId)?.shift() ?? { companyId: null, oldFeeAoa: 150_000, candidates: [] }
      );
    },
    findRedispatchCompany: async (input) => {
      const slug = this.companies.get(input.companyId);
      return slug ? { companyId: input.companyId, slug } : null;
    },
    startReturn: async (input) => {
      this.call(input.deliveryId, 'startReturn', input);
      return { returnDeliveryId: `return-of-${input.deliveryId}` };
    },
  };
}
