// The courier protocol of design.md, per simulated company under its path prefix (one route per endpoint):
//   POST   /{slug}/quotes                    -> {fee_aoa, eta_minutes, valid_for_seconds}   (422 when it cannot carry)
//   POST   /{slug}/bookings                  -> 201 {tracking_ref, status: accepted|pending} (409/422 when rejecting)
//   DELETE /{slug}/bookings/{tracking_ref}   -> 200, 409 when refusing, 404 when unknown
//   POST   /{slug}/bookings/{tracking_ref}/updates {instructions?, destination_coordinates?, preferred_window?}
//                                            -> 200 (kept on the job: GET /_control/{slug}/bookings/{ref}), 404 when
//                                               unknown, 400 when not the protocol, 409 once the job is over
// with the faults a company is configured for (latency, failures, hanging, garbage).
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { priceFromRateCard } from '../src/couriers/adapters/rate-card.js';
import type { Simulation } from './simulation.js';
import type { BookingRecord, CompanyState, GarbageMode, ProtocolCall } from './types.js';

/**
 * Answers `body` as JSON with `status`, exactly as JSON.stringify writes it, under `content-type: application/json`
 * (a Buffer, so that Fastify adds no charset: the protocol's answers stay byte for byte what they were).
 */
export const send = (reply: FastifyReply, status: number, body: unknown) =>
  reply
    .code(status)
    .header('content-type', 'application/json')
    .send(Buffer.from(JSON.stringify(body)));

/** Something that is not the protocol, with a 200. */
function garbage(reply: FastifyReply, mode: GarbageMode, call: ProtocolCall) {
  if (mode === 'html')
    return reply
      .code(200)
      .header('content-type', 'text/html')
      .send('<html><body>502 Bad Gateway (nginx)</body></html>');
  if (mode === 'truncated') {
    // Promises 200 bytes, sends 14, then drops the connection.
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
    reply.raw.write('{"fee_aoa": 12');
    setTimeout(() => reply.raw.destroy(), 10);
    return reply;
  }
  if (mode === 'wrong_types')
    return send(
      reply,
      200,
      call === 'bookings' ? { tracking_ref: 42, status: 'maybe' } : { fee_aoa: '1500.50', eta_minutes: -3 },
    );
  if (mode === 'empty') return reply.code(200).header('content-type', 'application/json').send();
  return send(reply, 200, { hello: 'world', fee: null });
}

/** Counts the call and applies the company's faults; true when a fault answered (or will never answer). */
async function faulted(sim: Simulation, state: CompanyState, call: ProtocolCall, reply: FastifyReply) {
  state.stats[call]++;
  const c = state.config;
  if (c.faults_on && !c.faults_on.includes(call)) return false;
  if (c.latency_ms) await sim.sleep(c.latency_ms);
  if (c.hang) {
    reply.hijack(); // never answered; the socket is destroyed on close()
    return true;
  }
  if (c.failure_rate && Math.random() < c.failure_rate) {
    send(reply, 503, { error: 'simulated_failure' });
    return true;
  }
  if (c.garbage) {
    garbage(reply, c.garbage === true ? 'json' : c.garbage, call);
    return true;
  }
  return false;
}

function quote(state: CompanyState, body: any, reply: FastifyReply) {
  const c = state.config;
  const place = (a: any) => a && typeof a === 'object' && typeof a.city === 'string' && typeof a.province === 'string';
  if (
    !body ||
    typeof body !== 'object' ||
    !place(body.origin) ||
    !place(body.destination) ||
    typeof body.parcel?.weight_grams !== 'number'
  ) {
    return send(reply, 400, {
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
  if (!priced.ok) return send(reply, 422, { error: 'cannot_carry', reason: priced.reason });
  const validFor = c.valid_for_seconds === undefined ? 900 : c.valid_for_seconds;
  return send(reply, 200, {
    fee_aoa: priced.fee_aoa,
    eta_minutes: priced.eta_minutes,
    ...(validFor === null ? {} : { valid_for_seconds: validFor }),
    quote_ref: `q_${randomUUID()}`,
  });
}

/** A new job, or the one already booked under this Idempotency-Key (or, without one, for this delivery). */
function book(sim: Simulation, state: CompanyState, body: any, reply: FastifyReply, idempotencyKey?: string) {
  const c = state.config;
  if (
    !body ||
    typeof body !== 'object' ||
    typeof body.delivery_id !== 'string' ||
    typeof body.reference !== 'string' ||
    typeof body.callback_url !== 'string'
  ) {
    return send(reply, 400, { error: 'bad_request', detail: 'delivery_id, reference and callback_url are required' });
  }
  if (c.reject_bookings) {
    const status = c.reject_bookings === true ? 409 : c.reject_bookings;
    return send(reply, status, { error: 'booking_rejected', detail: 'No driver available for this job.' });
  }
  // A repeated Idempotency-Key (a retried booking whose answer was lost) gets the first booking back, whatever became
  // of it: one job per key. Without a key (an older caller), the same delivery's live job is answered again.
  const existingRef = idempotencyKey ? state.byKey.get(idempotencyKey) : state.byDelivery.get(body.delivery_id);
  const existing = existingRef ? state.bookings.get(existingRef) : undefined;
  if (existing && (idempotencyKey || existing.status !== 'cancelled')) {
    existing.repeated++;
    return send(reply, 201, { tracking_ref: existing.tracking_ref, status: existing.first_status });
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
    updates: [],
  };
  state.bookings.set(booking.tracking_ref, booking);
  state.byDelivery.set(booking.delivery_id, booking.tracking_ref);
  if (idempotencyKey) state.byKey.set(idempotencyKey, booking.tracking_ref);
  send(reply, 201, { tracking_ref: booking.tracking_ref, status: booking.status });
  sim.progress(state, booking, null);
  return reply;
}

function cancel(state: CompanyState, ref: string, reply: FastifyReply) {
  const booking = state.bookings.get(ref);
  if (!booking) return send(reply, 404, { error: 'unknown_booking' });
  const delivered = booking.events.some((e) => e.event_type === 'delivered' || e.event_type === 'failed');
  if (state.config.refuse_cancellation || delivered)
    return send(reply, 409, { error: 'cancellation_refused', detail: 'The driver is already on the way.' });
  booking.status = 'cancelled';
  return send(reply, 200, { tracking_ref: ref, status: 'cancelled' });
}

const isObject = (v: unknown): v is Record<string, any> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** The recipient's answers: checked as the protocol says, kept on the job. */
function recipientUpdate(state: CompanyState, ref: string, body: unknown, reply: FastifyReply) {
  const booking = state.bookings.get(ref);
  if (!booking) return send(reply, 404, { error: 'unknown_booking' });
  const b = isObject(body) ? body : {};
  const coords = b.destination_coordinates;
  const window = b.preferred_window;
  const valid =
    isObject(body) &&
    Object.keys(b).every((k) => ['instructions', 'destination_coordinates', 'preferred_window'].includes(k)) &&
    Object.keys(b).length > 0 &&
    (b.instructions === undefined || typeof b.instructions === 'string') &&
    (coords === undefined || (isObject(coords) && typeof coords.lat === 'number' && typeof coords.lng === 'number')) &&
    (window === undefined || (isObject(window) && ['date', 'from', 'to'].every((k) => typeof window[k] === 'string')));
  if (!valid)
    return send(reply, 400, {
      error: 'bad_request',
      detail: 'instructions, destination_coordinates {lat, lng} and preferred_window {date, from, to}: at least one',
    });
  const over =
    booking.status === 'cancelled' || booking.events.some((e) => ['delivered', 'failed'].includes(e.event_type));
  if (over) return send(reply, 409, { error: 'job_over', detail: 'The job is over.' });
  booking.updates.push({ received_at: new Date().toISOString(), ...b });
  return send(reply, 200, { tracking_ref: ref, updates: booking.updates.length });
}

/** One header's value (the first when repeated), trimmed; undefined when absent or empty. */
function headerValue(value: string | string[] | undefined): string | undefined {
  const first = (Array.isArray(value) ? value[0] : value)?.trim();
  return first ? first : undefined;
}

type SlugParams = { Params: { slug: string } };

export function protocolRoutes(app: FastifyInstance, sim: Simulation): void {
  app.post<SlugParams>('/:slug/quotes', async (request, reply) => {
    const state = sim.company(request.params.slug);
    if (await faulted(sim, state, 'quotes', reply)) return reply;
    return quote(state, request.body, reply);
  });
  app.post<SlugParams>('/:slug/bookings', async (request, reply) => {
    const state = sim.company(request.params.slug);
    if (await faulted(sim, state, 'bookings', reply)) return reply;
    return book(sim, state, request.body, reply, headerValue(request.headers['idempotency-key']));
  });
  app.delete<{ Params: { slug: string; ref: string } }>('/:slug/bookings/:ref', async (request, reply) => {
    const state = sim.company(request.params.slug);
    if (await faulted(sim, state, 'cancel', reply)) return reply;
    return cancel(state, request.params.ref, reply);
  });
  app.post<{ Params: { slug: string; ref: string } }>('/:slug/bookings/:ref/updates', async (request, reply) => {
    const state = sim.company(request.params.slug);
    if (await faulted(sim, state, 'updates', reply)) return reply;
    return recipientUpdate(state, request.params.ref, request.body, reply);
  });
}
