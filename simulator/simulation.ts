// The simulated companies' state and behaviour, apart from HTTP: their configuration, bookings, auto-progress and
// the signed fleet events they send (Standard Webhooks, the company's fleet secret) to a booking's callback_url.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { deliveredPayload } from './proof.js';
import type {
  BookingRecord,
  CompanyConfig,
  CompanyState,
  FailedAttempts,
  FleetEventType,
  SentEvent,
  SimulatorControl,
  SimulatorOptions,
} from './types.js';
import { cashPayload, remit } from './cod.js';

/** An answer other than success: `{ error: code, detail: message }` with this status (no detail when empty). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message = '',
  ) {
    super(message);
  }
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fresh `whsec_` secret for a simulated company. */
export const newFleetSecret = (): string => 'whsec_' + randomBytes(24).toString('base64');

/** Signs a fleet event body the way the service expects (Standard Webhooks). */
export function signFleetEvent(
  secret: string,
  body: string,
  msgId = `msg_${randomUUID()}`,
  at = new Date(),
): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(msgId, at, body),
  };
}

/** The event after `previous` in auto-progress (null: the first), or undefined at the end of the chain. */
function nextEvent(
  booking: BookingRecord,
  previous: FleetEventType | null,
  outcome: 'delivered' | 'failed',
): FleetEventType | undefined {
  if (previous === null) return booking.status === 'pending' ? 'assigned' : 'pickup_ready';
  if (previous === 'assigned') return 'pickup_ready';
  const chain: FleetEventType[] = ['pickup_ready', 'in_transit', 'out_for_delivery', outcome];
  return chain[chain.indexOf(previous) + 1];
}

const REFUSALS = ['recipient_refused', 'cod_refused'];

/** Auto-progress with failing attempts: the event after `previous`, or undefined at the end (null: the plain chain). */
function attemptStep(
  booking: BookingRecord,
  previous: FleetEventType | null,
  attempts: FailedAttempts | undefined,
): FleetEventType | undefined | null {
  if (!attempts || (attempts.returns === false && booking.reference.endsWith('-R'))) return null;
  const failed = booking.failed_attempts ?? 0;
  if (previous === 'attempt_failed') {
    const last = booking.events.at(-1)?.payload.reason;
    return failed >= (attempts.max ?? 2) || REFUSALS.includes(String(last)) ? undefined : 'out_for_delivery';
  }
  if (previous !== 'out_for_delivery') return null;
  const fails = failed < (attempts.first ?? 0) || Math.random() < (attempts.rate ?? 0);
  return fails ? 'attempt_failed' : null;
}

/** The reason of the next failed attempt: `reasons` in turn. */
function attemptReason(booking: BookingRecord, attempts: FailedAttempts | undefined): string {
  const reasons = attempts?.reasons?.length ? attempts.reasons : ['recipient_unavailable'];
  return reasons[(booking.failed_attempts ?? 0) % reasons.length];
}

export class Simulation {
  readonly companies = new Map<string, CompanyState>();
  readonly log: (line: string) => void;
  readonly sleep: (ms: number) => Promise<void>;
  readonly #retries: number;
  readonly #retryDelayMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(options: SimulatorOptions) {
    this.log = options.log ?? (() => {});
    this.sleep = options.sleep ?? wait;
    this.#retries = options.eventRetries ?? 3;
    this.#retryDelayMs = options.eventRetryDelayMs ?? 1000;
    for (const c of options.companies) this.upsert(c);
  }

  /** Adds or replaces a company; its bookings and counts are kept. */
  upsert(config: CompanyConfig): void {
    if (!config?.slug || !/^[a-z0-9][a-z0-9_-]*$/i.test(config.slug) || config.slug === '_control')
      throw new HttpError(422, 'invalid_slug', 'slug must be letters, digits, - and _');
    if (!config.fleet_secret) throw new HttpError(422, 'fleet_secret_required', 'fleet_secret is required');
    const existing = this.companies.get(config.slug);
    this.companies.set(config.slug, {
      initial: structuredClone(config),
      config: structuredClone(config),
      bookings: existing?.bookings ?? new Map(),
      byDelivery: existing?.byDelivery ?? new Map(),
      byKey: existing?.byKey ?? new Map(),
      stats: existing?.stats ?? { quotes: 0, bookings: 0, cancel: 0, updates: 0 },
    });
  }

  company(slug: string): CompanyState {
    const state = this.companies.get(slug);
    if (!state) throw new HttpError(404, 'unknown_company', `No simulated company "${slug}".`);
    return state;
  }

  bookingOf(slug: string, ref: string): BookingRecord {
    const b = this.company(slug).bookings.get(ref);
    if (!b) throw new HttpError(404, 'unknown_booking', `No booking "${ref}" at "${slug}".`);
    return b;
  }

  /** Stops every scheduled event; events on their way give up after their current attempt. */
  stop(): void {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #later(ms: number, fn: () => void): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      if (!this.#closed) fn();
    }, ms);
    this.#timers.add(t);
  }

  /** Posts one signed fleet event to the booking's callback_url, trying up to `attempts` times; records it. */
  async deliverEvent(
    state: CompanyState,
    booking: BookingRecord,
    eventType: string,
    payload: Record<string, unknown>,
    attempts: number,
    occurredAt?: string,
  ): Promise<SentEvent> {
    const occurred_at = occurredAt ?? new Date().toISOString();
    const webhookId = `msg_${randomUUID()}`;
    const body = JSON.stringify({ tracking_ref: booking.tracking_ref, event_type: eventType, occurred_at, payload });
    const sent: SentEvent = {
      webhook_id: webhookId,
      event_type: eventType,
      occurred_at,
      payload,
      response_status: null,
      attempts: 0,
    };
    for (let attempt = 1; attempt <= attempts && !this.#closed; attempt++) {
      sent.attempts = attempt;
      try {
        // Signed per attempt: a retry carries the same webhook-id (receivers deduplicate on it) and a fresh timestamp.
        const res = await fetch(booking.callback_url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...signFleetEvent(state.config.fleet_secret, body, webhookId),
          },
          body,
          signal: AbortSignal.timeout(5000),
        });
        await res.arrayBuffer().catch(() => {});
        sent.response_status = res.status;
        delete sent.error;
        // 404: the service may not know the job yet (its booking answer is still being recorded); 408/429/5xx: try again.
        if (res.status < 500 && ![404, 408, 429].includes(res.status)) break;
      } catch (err) {
        sent.response_status = null;
        sent.error = (err as Error).message;
      }
      if (attempt < attempts) await this.sleep(this.#retryDelayMs);
    }
    booking.events.push(sent);
    this.log(`${state.config.slug}: ${eventType} for ${booking.tracking_ref} -> ${sent.response_status ?? sent.error}`);
    return sent;
  }

  /** Auto-progress: the next event after `previous`, each `delay_ms` apart, until the outcome or `stop_after`. */
  progress(state: CompanyState, booking: BookingRecord, previous: FleetEventType | null): void {
    booking.progressing = false;
    const auto = state.config.auto_progress;
    if (!auto || booking.status === 'cancelled') return;
    if (previous && (previous === auto.stop_after || previous === 'delivered' || previous === 'failed')) return;
    const step = attemptStep(booking, previous, auto.failed_attempts);
    const next = step === null ? nextEvent(booking, previous, auto.outcome ?? 'delivered') : step;
    if (!next) return;
    booking.progressing = true;
    this.#later(auto.delay_ms ?? 1000, () => {
      if (booking.status === 'cancelled') return void (booking.progressing = false);
      let payload: Record<string, unknown> = {};
      if (next === 'delivered') {
        const pin = booking.pin ?? auto.pin ?? null;
        if (state.config.require_delivery_pin && pin === null) {
          booking.waiting_for_pin = true;
          booking.progressing = false;
          this.log(
            `${state.config.slug}: ${booking.tracking_ref} waits for its PIN (POST /_control/${state.config.slug}/pins)`,
          );
          return;
        }
        payload = { ...deliveredPayload(state.config, booking, pin), ...cashPayload(state, booking) };
      }
      if (next === 'failed') payload = { reason: 'recipient_unreachable' };
      if (next === 'attempt_failed') {
        payload = { reason: attemptReason(booking, auto.failed_attempts) };
        booking.failed_attempts = (booking.failed_attempts ?? 0) + 1;
      }
      void this.deliverEvent(state, booking, next, payload, this.#retries + 1).then(() =>
        this.progress(state, booking, next),
      );
    });
  }

  /** The control surface (tests drive it directly; /_control serves it over HTTP). */
  control(): SimulatorControl {
    const company = (slug: string) => this.company(slug);
    return {
      companies: () => [...this.companies.values()].map((c) => structuredClone(c.config)),
      upsert: (config) => this.upsert(config),
      configure(slug, patch) {
        const state = company(slug);
        state.config = { ...state.config, ...structuredClone(patch), slug };
        return structuredClone(state.config);
      },
      reset(slug) {
        const state = company(slug);
        state.config = structuredClone(state.initial);
        return structuredClone(state.config);
      },
      bookings: (slug) => [...company(slug).bookings.values()],
      booking: (slug, ref) => company(slug).bookings.get(ref) ?? null,
      stats: (slug) => ({ ...company(slug).stats }),
      sendEvent: async (slug, input) => {
        if (!input || typeof input.event_type !== 'string' || !input.event_type)
          throw new HttpError(422, 'event_type_required', 'event_type is required');
        const booking = this.bookingOf(slug, input.tracking_ref);
        return this.deliverEvent(company(slug), booking, input.event_type, input.payload ?? {}, 1, input.occurred_at);
      },
      setPin: async (slug, ref, pin) => {
        const booking = this.bookingOf(slug, ref);
        booking.pin = pin;
        if (!booking.waiting_for_pin) return null;
        booking.waiting_for_pin = false;
        const state = company(slug);
        return this.deliverEvent(
          state,
          booking,
          'delivered',
          { ...deliveredPayload(state.config, booking, pin), ...cashPayload(state, booking) },
          this.#retries + 1,
        );
      },
      deliver: async (slug, ref, pin) => {
        const booking = this.bookingOf(slug, ref);
        if (pin !== undefined) booking.pin = pin;
        booking.waiting_for_pin = false;
        const used = pin ?? booking.pin;
        const state = company(slug);
        const payload = { ...deliveredPayload(state.config, booking, used), ...cashPayload(state, booking) };
        return this.deliverEvent(state, booking, 'delivered', payload, 1);
      },
      remit: (slug, input) => remit(company(slug), input ?? {}, (secret, body) => signFleetEvent(secret, body)),
    };
  }
}
