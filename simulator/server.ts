// The courier simulator: one real HTTP server speaking the courier protocol of design.md for several
// simulated courier companies at once, each under its own path prefix:
//   POST   /{slug}/quotes                    -> {fee_aoa, eta_minutes, valid_for_seconds}   (422 when it cannot carry)
//   POST   /{slug}/bookings                  -> 201 {tracking_ref, status: accepted|pending} (409/422 when rejecting)
//   DELETE /{slug}/bookings/{tracking_ref}   -> 200, 409 when refusing, 404 when unknown
// After a booking it can drive the job by itself ("auto-progress"): signed fleet events (Standard Webhooks,
// the company's fleet secret) to the booking's callback_url. A control API under /_control changes behaviour at
// run time and sends single fleet events on demand. docs/quotes.md ("Courier simulator") documents all of it.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { priceFromRateCard } from '../src/couriers/adapters/rate-card.js';

export const FLEET_EVENT_TYPES = [
  'assigned',
  'pickup_ready',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'failed',
  'payment.confirmed',
] as const;
export type FleetEventType = (typeof FLEET_EVENT_TYPES)[number];
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

interface CompanyState {
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

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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

export async function createSimulator(options: SimulatorOptions): Promise<Simulator> {
  const log = options.log ?? (() => {});
  const retries = options.eventRetries ?? 3;
  const retryDelayMs = options.eventRetryDelayMs ?? 1000;
  const sleep = options.sleep ?? wait;
  const companies = new Map<string, CompanyState>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closed = false;

  const upsert = (config: CompanyConfig) => {
    if (!config.slug || !/^[a-z0-9][a-z0-9_-]*$/i.test(config.slug) || config.slug === '_control')
      throw new HttpError(422, 'invalid_slug', 'slug must be letters, digits, - and _');
    if (!config.fleet_secret) throw new HttpError(422, 'fleet_secret_required', 'fleet_secret is required');
    const existing = companies.get(config.slug);
    companies.set(config.slug, {
      initial: structuredClone(config),
      config: structuredClone(config),
      bookings: existing?.bookings ?? new Map(),
      byDelivery: existing?.byDelivery ?? new Map(),
      byKey: existing?.byKey ?? new Map(),
      stats: existing?.stats ?? { quotes: 0, bookings: 0, cancel: 0 },
    });
  };
  for (const c of options.companies) upsert(c);

  const company = (slug: string): CompanyState => {
    const state = companies.get(slug);
    if (!state) throw new HttpError(404, 'unknown_company', `No simulated company "${slug}".`);
    return state;
  };
  const bookingOf = (slug: string, ref: string): BookingRecord => {
    const b = company(slug).bookings.get(ref);
    if (!b) throw new HttpError(404, 'unknown_booking', `No booking "${ref}" at "${slug}".`);
    return b;
  };
  const later = (ms: number, fn: () => void) => {
    if (closed) return;
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    timers.add(t);
  };

  async function deliverEvent(
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
    for (let attempt = 1; attempt <= attempts && !closed; attempt++) {
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
      if (attempt < attempts) await sleep(retryDelayMs);
    }
    booking.events.push(sent);
    log(`${state.config.slug}: ${eventType} for ${booking.tracking_ref} -> ${sent.response_status ?? sent.error}`);
    return sent;
  }

  /** Auto-progress: the next event after `previous`, each `delay_ms` apart, until the outcome or `stop_after`. */
  function progress(state: CompanyState, booking: BookingRecord, previous: FleetEventType | null) {
    booking.progressing = false;
    const auto = state.config.auto_progress;
    if (!auto || booking.status === 'cancelled') return;
    if (previous && (previous === auto.stop_after || previous === 'delivered' || previous === 'failed')) return;
    const chain: FleetEventType[] = ['pickup_ready', 'in_transit', 'out_for_delivery', auto.outcome ?? 'delivered'];
    const next: FleetEventType =
      previous === null
        ? booking.status === 'pending'
          ? 'assigned'
          : 'pickup_ready'
        : previous === 'assigned'
          ? 'pickup_ready'
          : chain[chain.indexOf(previous) + 1];
    if (!next) return;
    booking.progressing = true;
    later(auto.delay_ms ?? 1000, () => {
      if (booking.status === 'cancelled') return void (booking.progressing = false);
      let payload: Record<string, unknown> = {};
      if (next === 'delivered') {
        const pin = booking.pin ?? auto.pin ?? null;
        if (state.config.require_delivery_pin && pin === null) {
          booking.waiting_for_pin = true;
          booking.progressing = false;
          log(
            `${state.config.slug}: ${booking.tracking_ref} waits for its PIN (POST /_control/${state.config.slug}/pins)`,
          );
          return;
        }
        if (pin !== null) payload = { pin };
      }
      if (next === 'failed') payload = { reason: 'recipient_unreachable' };
      void deliverEvent(state, booking, next, payload, retries + 1).then(() => progress(state, booking, next));
    });
  }

  const control: SimulatorControl = {
    companies: () => [...companies.values()].map((c) => structuredClone(c.config)),
    upsert,
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
    async sendEvent(slug, input) {
      if (!input || typeof input.event_type !== 'string' || !input.event_type)
        throw new HttpError(422, 'event_type_required', 'event_type is required');
      const booking = bookingOf(slug, input.tracking_ref);
      return deliverEvent(company(slug), booking, input.event_type, input.payload ?? {}, 1, input.occurred_at);
    },
    async setPin(slug, ref, pin) {
      const booking = bookingOf(slug, ref);
      booking.pin = pin;
      if (!booking.waiting_for_pin) return null;
      booking.waiting_for_pin = false;
      return deliverEvent(company(slug), booking, 'delivered', { pin }, retries + 1);
    },
    async deliver(slug, ref, pin) {
      const booking = bookingOf(slug, ref);
      if (pin !== undefined) booking.pin = pin;
      booking.waiting_for_pin = false;
      const used = pin ?? booking.pin;
      return deliverEvent(company(slug), booking, 'delivered', used ? { pin: used } : {}, 1);
    },
  };

  // ---- the courier protocol ----

  async function applyFaults(state: CompanyState, call: ProtocolCall, res: http.ServerResponse): Promise<boolean> {
    const c = state.config;
    if (c.faults_on && !c.faults_on.includes(call)) return false;
    if (c.latency_ms) await sleep(c.latency_ms);
    if (c.hang) return true; // never answered; the socket is destroyed on close()
    if (c.failure_rate && Math.random() < c.failure_rate) {
      send(res, 503, { error: 'simulated_failure' });
      return true;
    }
    if (c.garbage) {
      const mode: GarbageMode = c.garbage === true ? 'json' : c.garbage;
      if (mode === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway (nginx)</body></html>');
      } else if (mode === 'truncated') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
        res.write('{"fee_aoa": 12');
        setTimeout(() => res.destroy(), 10);
      } else if (mode === 'wrong_types') {
        send(
          res,
          200,
          call === 'bookings' ? { tracking_ref: 42, status: 'maybe' } : { fee_aoa: '1500.50', eta_minutes: -3 },
        );
      } else if (mode === 'empty') {
        res.writeHead(200, { 'content-type': 'application/json' }).end();
      } else {
        send(res, 200, { hello: 'world', fee: null });
      }
      return true;
    }
    return false;
  }

  function quote(state: CompanyState, body: any, res: http.ServerResponse) {
    const c = state.config;
    const place = (a: any) =>
      a && typeof a === 'object' && typeof a.city === 'string' && typeof a.province === 'string';
    if (
      !body ||
      typeof body !== 'object' ||
      !place(body.origin) ||
      !place(body.destination) ||
      typeof body.parcel?.weight_grams !== 'number'
    ) {
      return send(res, 400, {
        error: 'bad_request',
        detail: 'origin, destination (city, province) and parcel.weight_grams are required',
      });
    }
    const p = c.pricing ?? {};
    const priced = priceFromRateCard(
      {
        base_fee_aoa: p.base_fee_aoa ?? 100_000,
        base_eta_minutes: p.base_eta_minutes ?? 60,
        service_zones: c.service_zones ?? [],
        max_weight_grams: c.max_weight_grams ?? null,
        parcel_types: c.parcel_types ?? null,
        rate_card: {
          per_km_aoa: p.per_km_aoa,
          per_kg_aoa: p.per_kg_aoa,
          per_kg_threshold_grams: p.per_kg_threshold_grams,
          zone_fees_aoa: p.zone_fees_aoa,
          eta_minutes_per_km: p.eta_minutes_per_km,
        },
      },
      body,
    );
    if (!priced.ok) return send(res, 422, { error: 'cannot_carry', reason: priced.reason });
    const validFor = c.valid_for_seconds === undefined ? 900 : c.valid_for_seconds;
    send(res, 200, {
      fee_aoa: priced.fee_aoa,
      eta_minutes: priced.eta_minutes,
      ...(validFor === null ? {} : { valid_for_seconds: validFor }),
      quote_ref: `q_${randomUUID()}`,
    });
  }

  function book(state: CompanyState, body: any, res: http.ServerResponse, idempotencyKey: string | undefined) {
    const c = state.config;
    if (
      !body ||
      typeof body !== 'object' ||
      typeof body.delivery_id !== 'string' ||
      typeof body.reference !== 'string' ||
      typeof body.callback_url !== 'string'
    ) {
      return send(res, 400, { error: 'bad_request', detail: 'delivery_id, reference and callback_url are required' });
    }
    if (c.reject_bookings) {
      const status = c.reject_bookings === true ? 409 : c.reject_bookings;
      return send(res, status, { error: 'booking_rejected', detail: 'No driver available for this job.' });
    }
    // A repeated Idempotency-Key (a retried booking whose answer was lost) gets the first booking back, whatever became
    // of it: one job per key. Without a key (an older caller), the same delivery's live job is answered again.
    const existingRef = idempotencyKey ? state.byKey.get(idempotencyKey) : state.byDelivery.get(body.delivery_id);
    const existing = existingRef ? state.bookings.get(existingRef) : undefined;
    if (existing && (idempotencyKey || existing.status !== 'cancelled')) {
      existing.repeated++;
      return send(res, 201, { tracking_ref: existing.tracking_ref, status: existing.first_status });
    }

    const booking: BookingRecord = {
      tracking_ref: `${c.slug.slice(0, 8).toUpperCase()}-${randomBytes(5).toString('hex').toUpperCase()}`,
      delivery_id: body.delivery_id,
      reference: body.reference,
      callback_url: body.callback_url,
      status: c.booking_status ?? 'accepted',
      first_status: c.booking_status ?? 'accepted',
      idempotency_key: idempotencyKey ?? null,
      repeated: 0,
      created_at: new Date().toISOString(),
      request: body,
      pin: null,
      waiting_for_pin: false,
      progressing: false,
      events: [],
    };
    state.bookings.set(booking.tracking_ref, booking);
    state.byDelivery.set(booking.delivery_id, booking.tracking_ref);
    if (idempotencyKey) state.byKey.set(idempotencyKey, booking.tracking_ref);
    send(res, 201, { tracking_ref: booking.tracking_ref, status: booking.status });
    progress(state, booking, null);
  }

  function cancel(state: CompanyState, ref: string, res: http.ServerResponse) {
    const booking = state.bookings.get(ref);
    if (!booking) return send(res, 404, { error: 'unknown_booking' });
    const delivered = booking.events.some((e) => e.event_type === 'delivered' || e.event_type === 'failed');
    if (state.config.refuse_cancellation || delivered)
      return send(res, 409, { error: 'cancellation_refused', detail: 'The driver is already on the way.' });
    booking.status = 'cancelled';
    send(res, 200, { tracking_ref: ref, status: 'cancelled' });
  }

  // ---- the control API ----

  async function controlRoute(method: string, parts: string[], body: any, res: http.ServerResponse) {
    // parts: after "_control"
    if (parts.length === 1 && parts[0] === 'companies') {
      if (method === 'GET') return send(res, 200, { data: control.companies() });
      if (method === 'POST') {
        upsert(body);
        return send(
          res,
          201,
          control.companies().find((c) => c.slug === body.slug),
        );
      }
    }
    const [slug, action, ref] = parts;
    if (!slug) throw new HttpError(404, 'not_found', 'No such control route.');
    if (parts.length === 1) {
      if (method === 'GET')
        return send(res, 200, {
          config: company(slug).config,
          stats: control.stats(slug),
          bookings: company(slug).bookings.size,
        });
      if (method === 'PATCH' || method === 'POST') return send(res, 200, control.configure(slug, body ?? {}));
      if (method === 'PUT') {
        upsert({ ...body, slug });
        return send(res, 200, company(slug).config);
      }
    }
    if (action === 'reset' && method === 'POST') return send(res, 200, control.reset(slug));
    if (action === 'bookings' && method === 'GET') {
      if (ref) return send(res, 200, bookingOf(slug, ref));
      return send(res, 200, { data: control.bookings(slug) });
    }
    if (action === 'events' && method === 'POST') return sendResult(res, await control.sendEvent(slug, body));
    if (action === 'deliver' && method === 'POST') {
      if (typeof body?.tracking_ref !== 'string')
        throw new HttpError(422, 'tracking_ref_required', 'tracking_ref is required');
      return sendResult(
        res,
        await control.deliver(slug, body.tracking_ref, typeof body.pin === 'string' ? body.pin : undefined),
      );
    }
    if (action === 'pins' && method === 'POST') {
      if (typeof body?.tracking_ref !== 'string' || typeof body?.pin !== 'string')
        throw new HttpError(422, 'pin_required', 'tracking_ref and pin are required');
      const sent = await control.setPin(slug, body.tracking_ref, body.pin);
      return send(res, 200, { pin_set: true, delivered_event: sent });
    }
    throw new HttpError(404, 'not_found', 'No such control route.');
  }

  const sendResult = (res: http.ServerResponse, sent: SentEvent) =>
    send(res, sent.response_status === null ? 502 : 200, sent);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1024 * 1024) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        let body: any = undefined;
        const raw = Buffer.concat(chunks).toString('utf8');
        try {
          body = raw ? JSON.parse(raw) : undefined;
        } catch {
          return send(res, 400, { error: 'invalid_json' });
        }
        const url = new URL(req.url ?? '/', 'http://simulator');
        const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
        const method = req.method ?? 'GET';
        try {
          if (parts[0] === '_control') return await controlRoute(method, parts.slice(1), body, res);
          if (parts.length === 0 && method === 'GET')
            return send(res, 200, { simulator: 'courier', companies: [...companies.keys()] });
          const [slug, resource, ref] = parts;
          const state = company(slug);
          const call: ProtocolCall | null =
            resource === 'quotes' && method === 'POST' && parts.length === 2
              ? 'quotes'
              : resource === 'bookings' && method === 'POST' && parts.length === 2
                ? 'bookings'
                : resource === 'bookings' && method === 'DELETE' && parts.length === 3
                  ? 'cancel'
                  : null;
          if (!call) throw new HttpError(404, 'not_found', 'Not a courier protocol route.');
          state.stats[call]++;
          if (await applyFaults(state, call, res)) return;
          if (call === 'quotes') return quote(state, body, res);
          if (call === 'bookings') return book(state, body, res, headerValue(req.headers['idempotency-key']));
          return cancel(state, ref, res);
        } catch (err) {
          if (err instanceof HttpError) return send(res, err.status, { error: err.code, detail: err.message });
          log(`error: ${(err as Error).stack}`);
          return send(res, 500, { error: 'simulator_error', detail: (err as Error).message });
        }
      })();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  const url = `http://${host}:${port}`;

  return {
    url,
    port,
    endpoint: (slug) => `${url}/${slug}`,
    control,
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** One header's value (the first when repeated), trimmed; undefined when absent or empty. */
function headerValue(value: string | string[] | undefined): string | undefined {
  const first = (Array.isArray(value) ? value[0] : value)?.trim();
  return first ? first : undefined;
}
